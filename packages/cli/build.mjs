// tsc writes dist/; this then bundles the hook's fast path (src/_hook-fast.ts: runHook and the CLI
// modules it uses) into dist/_hook-fast.js. Another agent host starts `toolhost hook` once per tool
// call, and each module file costs its cold start. Packages (@toolhost/core) stay external: the
// plugins share the host's copy of core.
import { build } from "esbuild";

await build({
  entryPoints: { "_hook-fast": "src/_hook-fast.ts" },
  outdir: "dist",
  bundle: true,
  packages: "external",
  format: "esm",
  platform: "node",
  target: "node20",
  sourcemap: true,
  logLevel: "warning",
});
