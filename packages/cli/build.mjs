// tsc writes dist/; this then bundles the hook's two entries, each into one file: another agent
// host starts `toolhost hook` once per tool call, and each module file costs its cold start.
// src/hook/command.ts (options, the forwarding client) and src/hook/fast.ts (the in-process path:
// runHook and the CLI modules it uses). Packages (@toolhost/core) stay external: the plugins share
// the host's copy of core.
import { build } from "esbuild";

const common = { outdir: "dist", bundle: true, packages: "external", format: "esm", platform: "node", target: "node20", sourcemap: true, logLevel: "warning" };
await build({ ...common, entryPoints: { "_hook-fast": "src/hook/fast.ts" } });
// The entry of `toolhost hook <host>` (src/hook/command.ts): node built-ins only. The in-process
// path stays a file of its own, imported only when the hook decides here.
await build({ ...common, entryPoints: { "_hook-command": "src/hook/command.ts" } });
