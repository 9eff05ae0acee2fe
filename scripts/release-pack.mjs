// `pnpm release:pack [folder]`: packs every published package of the workspace (not the private
// examples) into one folder, as the registry would serve them (pnpm pack turns `workspace:` ranges
// into versions), so a project outside the workspace can install them before they are published:
//   npm i -D /path/to/release/toolhost-*.tgz
// Run after `pnpm build` (the root script does both). Prints each tarball's path, one a line.
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(fileURLToPath(new URL("..", import.meta.url)));
const out = resolve(process.argv[2] ?? join(root, "release"));
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });

const packages = readdirSync(join(root, "packages"), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => join(root, "packages", entry.name))
  .filter((dir) => {
    const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
    return manifest.private !== true;
  });

for (const dir of packages) {
  const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
  for (const file of manifest.files ?? []) {
    try {
      readdirSync(join(dir, file));
    } catch {
      throw new Error(`${manifest.name}: ${file}/ is missing. Run "pnpm build" first (pnpm release:pack does).`);
    }
  }
  execFileSync("pnpm", ["pack", "--pack-destination", out], { cwd: dir, stdio: ["ignore", "ignore", "inherit"] });
}
for (const name of readdirSync(out).sort()) process.stdout.write(`${join(out, name)}\n`);
