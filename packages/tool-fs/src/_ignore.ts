import { readFile } from "node:fs/promises";
import { dirname, join, relative, sep } from "node:path";
import type { Ignore } from "ignore";
import { isInside } from "./_paths.js";

/**
 * Whether a path under `base` is ignored by a `.gitignore`: those of `base`'s folders up to its
 * root, and those found below `base`. `.git` folders are always ignored.
 */
export async function loadGitignore(
  base: string,
  root: string,
  signal?: AbortSignal,
): Promise<(absolute: string) => boolean> {
  const folders: string[] = [];
  for (let folder = dirname(base); isInside(folder, root) && folder !== base; folder = dirname(folder)) {
    folders.push(folder);
    if (folder === root || dirname(folder) === folder) break;
  }
  const [{ default: ignore }, { glob }] = await Promise.all([import("ignore"), import("tinyglobby")]);
  const below = await glob("**/.gitignore", {
    cwd: base,
    dot: true,
    followSymbolicLinks: false,
    ignore: ["**/.git/**"],
    ...(signal ? { signal } : {}),
  });
  const files = [...folders.map((folder) => join(folder, ".gitignore")), ...below.map((file) => join(base, file))];
  const rules: { folder: string; rules: Ignore }[] = [];
  for (const file of files) {
    let text: string;
    try {
      text = await readFile(file, "utf8");
    } catch {
      continue;
    }
    rules.push({ folder: dirname(file), rules: ignore().add(text) });
  }
  return (absolute) => {
    const fromBase = relative(base, absolute);
    if (fromBase === ".git" || fromBase.startsWith(`.git${sep}`) || fromBase.includes(`${sep}.git${sep}`)) return true;
    for (const { folder, rules: set } of rules) {
      if (!isInside(absolute, folder) || absolute === folder) continue;
      const inFolder = relative(folder, absolute).split(sep).join("/");
      if (set.ignores(inFolder)) return true;
    }
    return false;
  };
}
