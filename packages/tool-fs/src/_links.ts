import { type Dirent, lstatSync, readdirSync, type Stats } from "node:fs";
import { join } from "node:path";
import { isPackageStoreCopy, packageStoreFolders, projectStoreFolder } from "@toolhost/core";
import type { FsContext } from "./_context.js";
import { echo } from "./_echo.js";
import { FsError } from "./_errors.js";
import { type CheckedPath, rootsText } from "./_paths.js";
import { FsErrorCode } from "./errors.js";

/*
 * Hard links: a file with several names is one file, so a name inside the roots can show or change
 * a file whose other name lies where the tools may not go. A file whose link count is 1 has no
 * other name (nothing to do); for one with more, the names inside the roots are counted from an
 * index of the roots' multi-linked files (device and inode → names), and the file is refused unless
 * every name is there. The index is made once, at the first such file, by a walk of the roots, and
 * made again only for a file whose links changed after the walk began (link, unlink and rename set
 * the inode's ctime), so its counts are never older than the file they answer for.
 */

/** The tools that only show a file: a proven package-store copy may be shown. */
const SHOWS = new Set(["read", "grep"]);

/** The package stores a proof looks in: pnpm's defaults, and the `storeDir` of a pnpm project at a root. */
function storesOf(roots: readonly string[]): string[] {
  return packageStoreFolders(process.env, roots.map(projectStoreFolder).filter((folder): folder is string => folder !== undefined));
}

/** Entries a walk looks at before it gives up (and multi-linked files are refused). */
const MAX_ENTRIES = 200_000;
/** File times come from the kernel's coarse clock, which may lag the process's by a tick: a margin. */
const CLOCK_MARGIN_MS = 50;

interface LinkIndex {
  /** When the walk began (the process's clock, less the margin). */
  since: number;
  /** `dev:ino` → names found, for files with more than one link; undefined when the walk gave up. */
  names: Map<string, number> | undefined;
}

const indexes = new WeakMap<FsContext, LinkIndex>();

/**
 * Walks the roots (links not followed): folders by identity, so roots inside roots (or a bind
 * mount) count each name once. On the calling thread: a walk of many small system calls costs a
 * fraction of the same walk through the thread pool's promises, and it runs once per process.
 */
function walkRoots(roots: readonly string[]): LinkIndex {
  const since = Date.now() - CLOCK_MARGIN_MS;
  const names = new Map<string, number>();
  const seen = new Set<string>();
  const folders = [...roots];
  let entries = 0;
  for (let folder = folders.pop(); folder !== undefined; folder = folders.pop()) {
    let dirents: Dirent[];
    try {
      dirents = readdirSync(folder, { withFileTypes: true });
    } catch {
      continue;
    }
    entries += dirents.length;
    if (entries > MAX_ENTRIES) return { since, names: undefined };
    for (const dirent of dirents) {
      if (!dirent.isDirectory() && !dirent.isFile()) continue;
      const path = join(folder, dirent.name);
      const info = lstatSync(path, { throwIfNoEntry: false });
      if (info === undefined) continue;
      const key = `${info.dev}:${info.ino}`;
      if (info.isDirectory()) {
        if (!seen.has(key)) folders.push(path);
        seen.add(key);
      } else if (info.isFile() && info.nlink > 1) names.set(key, (names.get(key) ?? 0) + 1);
    }
  }
  return { since, names };
}

async function indexFor(ctx: FsContext, info: Stats): Promise<LinkIndex> {
  const known = indexes.get(ctx);
  if (known !== undefined && info.ctimeMs < known.since) return known;
  const made = walkRoots(await ctx.realRoots());
  indexes.set(ctx, made);
  return made;
}

/**
 * Refuses a regular file (`info`, of the handle the tool opened or the name it replaces) that has a
 * name outside the roots, unless the option `hardLinks: "allow"` says not to look. Costs nothing
 * for a file with one link; for others, a walk of the roots the first time (and after their links
 * change), then a map look-up.
 */
export async function checkHardLinks(ctx: FsContext, path: CheckedPath, info: Stats, tool: string): Promise<void> {
  if (ctx.hardLinks === "allow" || !info.isFile() || info.nlink <= 1) return;
  const roots = await ctx.realRoots();
  const index = await indexFor(ctx, info);
  const inside = index.names?.get(`${info.dev}:${info.ino}`) ?? 0;
  if (index.names !== undefined && inside >= info.nlink) return;
  // Public package content (pnpm's store, proven by core): shown, never changed (a write would change the store).
  if (SHOWS.has(tool) && isPackageStoreCopy(path.real, info, storesOf(roots))) return;
  const why =
    index.names === undefined
      ? `the roots hold over ${MAX_ENTRIES.toLocaleString("en-US")} entries, too many to look for its other names`
      : `${info.nlink - inside} of them ${info.nlink - inside === 1 ? "lies" : "lie"} outside ${rootsText(roots)}`;
  throw new FsError(
    FsErrorCode.HARD_LINK,
    `Refused: ${echo(path.input)} is a file with ${info.nlink} names (hard links), and ${why}; its content belongs to a file the tools may not touch, so ${tool} neither shows nor changes it. Work on a copy of your own (cp it to a new name), add the folder of its other name to the tool-fs "roots" option, or set the tool-fs option hardLinks: "allow".${SHOWS.has(tool) ? "" : " (A package-store copy, such as pnpm's in node_modules, is shown by read but never changed: a change would reach every project that uses it.)"}`,
    { path: path.absolute, links: info.nlink, linksInsideRoots: inside },
  );
}
