// Bundles the plugin's entry into one file over tsc's dist/index.js: a hook of another agent host
// (`toolhost hook claude-code`) is a process per tool call and applies this plugin for its
// sandbox, and loading tsc's ~45 files was a third of what the sandbox added to that start.
// tsc still writes every file (and the .d.ts); dist/run/_timeline.js stays a module of its own,
// which the bundle imports, so that bench/bash can listen to the calls' phases.
import { build } from "esbuild";

await build({
  entryPoints: { index: "src/index.ts" },
  outdir: "dist",
  bundle: true,
  format: "esm",
  platform: "node",
  target: "node20",
  sourcemap: true,
  external: ["@toolhost/core", "@sinclair/typebox"],
  allowOverwrite: true,
  // As hooks-policy's bundle: no comments (an ASCII file scans faster), short local names (a
  // stack trace names short functions; the source map has the real ones).
  minifyWhitespace: true,
  minifyIdentifiers: true,
  plugins: [
    {
      name: "timeline-apart",
      setup(bundle) {
        bundle.onResolve({ filter: /\/_timeline\.js$/ }, () => ({ path: "./run/_timeline.js", external: true }));
      },
    },
  ],
  logLevel: "warning",
});
