import { type Dirent, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { recentRealOf } from "./_paths.js";

/** A walk stops after this many entries: a tree larger than this is not known to be free of denied paths. */
export const MAX_WALK_ENTRIES = 200_000;
/** Folders deeper than this under the root are not walked. */
export const MAX_WALK_DEPTH = 64;
const MAX_CACHED_ROOTS = 64;

/** What a walk of a tree found. */
export interface Found {
  /** The existing paths under the root (the root included) that the matcher names. */
  paths: string[];
  /** False when the walk stopped at a bound: paths past it are not known. */
  complete: boolean;
}

interface Cached {
  found: Found;
  /** When the folders were last found unchanged. */
  checked: number;
  /** Every folder walked, with its modification time: a new, removed or renamed entry changes it. */
  folders: Map<string, number>;
}

/**
 * Finds the existing paths under a root that a matcher names (a folder it names is listed and
 * not walked into; a symlink is named by its path or its target, and not followed). Results are
 * kept per root while no walked folder has changed (its mtime), so asking again costs one `stat`
 * per folder instead of a listing and a match per entry.
 */
export class TreeGuard {
  readonly #cache = new Map<string, Cached>();

  /**
   * `reuseMs`: how long a result is trusted without checking the folders again (0: always
   * checked). Bash decisions reuse it for a second; `protectedPaths`, whose list a tool leaves
   * out of its output, always checks.
   */
  constructor(
    readonly names: (path: string) => boolean,
    readonly reuseMs = 0,
    /** Stop at the first path found: enough to know that a tree holds one (bash decisions). */
    readonly firstOnly = false,
  ) {}

  find(root: string): Found {
    const cached = this.#cache.get(root);
    const now = Date.now();
    if (cached && now - cached.checked < this.reuseMs) return cached.found;
    if (cached && unchanged(cached.folders)) {
      cached.checked = now;
      return cached.found;
    }
    const walked = this.#walk(root);
    if (this.#cache.size >= MAX_CACHED_ROOTS) this.#cache.delete(this.#cache.keys().next().value as string);
    this.#cache.set(root, walked);
    return walked.found;
  }

  #walk(root: string): Cached {
    const paths: string[] = [];
    const folders = new Map<string, number>();
    let entries = 0;
    let complete = true;
    const checked = Date.now();
    if (this.#names(root)) return { found: { paths: [root], complete }, folders, checked };
    const stack: Array<[string, number]> = [[root, 0]];
    while (stack.length > 0) {
      const [folder, depth] = stack.pop() as [string, number];
      let list: Dirent[];
      try {
        folders.set(folder, statSync(folder).mtimeMs);
        list = readdirSync(folder, { withFileTypes: true });
      } catch {
        continue;
      }
      for (const entry of list) {
        entries += 1;
        if (entries > MAX_WALK_ENTRIES) return { found: { paths, complete: false }, folders, checked };
        const path = join(folder, entry.name);
        if (this.#names(path, entry.isSymbolicLink())) {
          paths.push(path);
          if (this.firstOnly) return { found: { paths, complete }, folders, checked };
          continue;
        }
        if (entry.isDirectory()) {
          if (depth + 1 > MAX_WALK_DEPTH) complete = false;
          else stack.push([path, depth + 1]);
        }
      }
    }
    return { found: { paths, complete }, folders, checked };
  }

  #names(path: string, link = false): boolean {
    if (this.names(path)) return true;
    return link && this.names(recentRealOf(path));
  }
}

function unchanged(folders: Map<string, number>): boolean {
  for (const [folder, mtime] of folders) {
    try {
      if (statSync(folder).mtimeMs !== mtime) return false;
    } catch {
      return false;
    }
  }
  return true;
}
