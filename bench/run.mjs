// Runs every benchmark (bench/<name>/run.mjs), or those named: `pnpm bench kernel bash`.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const names = process.argv.slice(2);
const all = readdirSync(here, { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && existsSync(join(here, entry.name, "run.mjs")))
  .map((entry) => entry.name)
  .sort();
const unknown = names.filter((name) => !all.includes(name));
if (unknown.length > 0) {
  console.error(`No benchmark named ${unknown.join(", ")}. There are: ${all.join(", ")}.`);
  process.exit(2);
}
let failed = 0;
for (const name of names.length > 0 ? names : all) {
  console.log(`\n## bench/${name}\n`);
  const run = spawnSync(process.execPath, ["--expose-gc", join(here, name, "run.mjs")], { stdio: "inherit" });
  if (run.status !== 0) failed += 1;
}
process.exit(failed > 0 ? 1 : 0);
