import { dirname, join, relative, sep } from "node:path";
import { isInside } from "@toolhost/core";
import type { Ignore } from "ignore";
import { readRegularFile } from "./_paths.js";
import { walk } from "./_walk.js";

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
  const { default: ignore } = await import("ignore");
  const below = await walk({ cwd: base, pattern: "**/.gitignore", expandDirectories: true, ...(signal ? { signal } : {}) });
  const files = [...folders.map((folder) => join(folder, ".gitignore")), ...below.map((file) => join(base, file))];
  const rules: { folder: string; rules: Ignore }[] = [];
  for (const file of files) {
    let text: string;
    try {
      const bytes = await readRegularFile(file);
      if (bytes === undefined) continue;
      text = bytes.toString("utf8");
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
