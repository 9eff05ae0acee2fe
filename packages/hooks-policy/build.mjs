// Bundles the plugin into one file, unbash and picomatch included. A policy hook (`toolhost hook
// claude-code`) is a process per tool call, and loading the tsc output (~20 files of ours, unbash's
// ~20, picomatch's CommonJS and yaml's ~90) was most of its cold start: importing the plugin took
// 0.26 s on the bench machine, the bundle 0.04 s. tsc still writes the .d.ts files. YAML is loaded
// only to read a YAML policy file (see _layers.ts); @toolhost/core is the host's copy.
import { readdirSync, rmSync } from "node:fs";
import { build } from "esbuild";

const dist = new URL("./dist/", import.meta.url);
// An older build wrote one .js per source file: leave none of them in the published package.
for (const name of readdirSync(dist)) if (/\.js(\.map)?$/.test(name)) rmSync(new URL(name, dist));
await build({
  entryPoints: { index: "src/index.ts" },
  outdir: "dist",
  bundle: true,
  format: "esm",
  platform: "node",
  target: "node20",
  sourcemap: true,
  external: ["@toolhost/core", "yaml"],
  // Without comments the file is ASCII (a few comments held "—" and "…"): Node decodes and V8
  // scans a one-byte string faster (~3 ms of a hook's start).
  minifyWhitespace: true,
  // Short local names: a quarter less to scan (332 KB -> 246 KB, ~13 M of a hook's ~810 M
  // instructions). A stack trace names the bundle's functions by short names; the source map
  // (node --enable-source-maps) has the real ones.
  minifyIdentifiers: true,
  // picomatch is CommonJS and requires Node built-ins; an ESM bundle needs a `require` for them.
  banner: { js: 'import { createRequire as __createRequire } from "node:module"; const require = __createRequire(import.meta.url);' },
  logLevel: "warning",
});
