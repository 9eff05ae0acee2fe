// The in-process path of `toolhost hook claude-code|gemini` (see _hook-command.ts): runHook and what it needs.
// build.mjs bundles this entry into one file (tsc alone writes a re-export), so that a hook process,
// started once per tool call, loads one module of the CLI instead of eight.
export { runHook } from "./run.js";
