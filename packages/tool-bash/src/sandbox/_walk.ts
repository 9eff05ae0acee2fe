import { type Dirent, readdirSync } from "node:fs";
import { join } from "node:path";

/**
 * Walks each folder depth first, `limit` entries at most in all. `visit` sees every entry (its
 * path and kind) and enters a folder when it returns true; a folder that cannot be read is
 * skipped. Returns false when the limit stopped the walk (what was seen is then not all).
 */
export function walkFolders(roots: readonly string[], limit: number, visit: (path: string, entry: Dirent) => boolean | undefined): boolean {
  let seen = 0;
  const walk = (folder: string): boolean => {
    let entries: Dirent[];
    try {
      entries = readdirSync(folder, { withFileTypes: true });
    } catch {
      return true;
    }
    for (const entry of entries) {
      if (++seen > limit) return false;
      const path = join(folder, entry.name);
      if (visit(path, entry) === true && !walk(path)) return false;
    }
    return true;
  };
  return roots.every((root) => walk(root));
}
