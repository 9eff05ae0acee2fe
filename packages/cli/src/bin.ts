#!/usr/bin/env node
import module from "node:module";

// A reader that stops early (`toolhost list | head`) is not an error of ours.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code === "EPIPE") process.exit(process.exitCode ?? 0);
  throw error;
});

// Node 22.1+ keeps the compiled code of the modules loaded here on disk and reuses it on the next
// start (a hook is one process per tool call of another agent); earlier Nodes have no such cache.
(module as { enableCompileCache?: () => unknown }).enableCompileCache?.();

/** The hook's bundled entry (see build.mjs), named by a variable so that tsc does not look for it in src/. */
const HOOK_COMMAND = "./_hook-command.js";

const [command, host, ...rest] = process.argv.slice(2);
if (command === "hook" && (host === "claude-code" || host === "gemini") && !rest.includes("--help") && !rest.includes("-h")) {
  // Another agent host runs this once per tool call: skip the command parser. _hook-command.js
  // loads no core: it forwards to a running `toolhost hook serve` when given one (--server), and
  // imports the policy to decide here only without one or when the server cannot be used.
  // Whatever fails, the call is blocked (exit 2): the hosts read other codes as "go ahead".
  (import(HOOK_COMMAND) as Promise<typeof import("./hook/command.js")>)
    .then(({ runHookCommand }) => runHookCommand(host, rest))
    .then(
      (code) => process.exit(code),
      (error: unknown) => {
        process.stderr.write(`toolhost refused this call: ${error instanceof Error ? error.message : String(error)} (TOOLHOST_HOOK_FAILED)\n`);
        process.exit(2);
      },
    );
} else {
  // Exit explicitly: a prompt's stdin or a plugin's handle must not keep the process alive once the
  // command is done (the output is already written: main waits for each write).
  import("./main.js")
    .then(({ main }) => main())
    .then(
      (code) => process.exit(code),
      (error: unknown) => {
        process.stderr.write(`toolhost: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
        process.exit(1);
      },
    );
}
