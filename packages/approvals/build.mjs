// tsc writes the .d.ts files; this bundles the two entries (the plugin, `index`, and the page
// server, `page`) with what they share in chunks: a process set to ask through the page loads the
// plugin with every host it makes, and its seven small modules cost ~10 ms of CPU to import one by
// one (bench/approvals). What only an ask needs (the HTTP client, the preview's diff) stays a chunk
// of its own, imported at the first ask. The page's own files (HTML, script, style) are copied
// beside the bundles and served as they are, with no inline script (the page's CSP forbids it).
import { cpSync, readdirSync, rmSync, statSync } from "node:fs";
import { build } from "esbuild";

const dist = new URL("./dist/", import.meta.url);
for (const name of readdirSync(dist)) {
  const entry = new URL(name, dist);
  if (/\.js(\.map)?$/.test(name) && statSync(entry).isFile()) rmSync(entry);
}
await build({
  entryPoints: { index: "src/index.ts", page: "src/page.ts" },
  outdir: "dist",
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  sourcemap: true,
  packages: "external",
  logLevel: "warning",
});
cpSync("src/page/assets", "dist/assets", { recursive: true });
