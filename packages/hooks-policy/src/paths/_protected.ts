import { type Dirent, readdirSync, realpathSync, statSync } from "node:fs";
import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { lookupEpoch, recentRealOf } from "./_paths.js";

/** A walk stops after this many entries: a tree larger than this is not known to be free of denied paths. */
export const MAX_WALK_ENTRIES = 200_000;
/** Folders deeper than this under the root are not walked. */
export const MAX_WALK_DEPTH = 64;
const MAX_CACHED_ROOTS = 64;
/** File system requests in flight at once in an asynchronous walk or check. */
const IN_FLIGHT = 64;

/** What a walk of a tree found. */
export interface Found {
  /** The existing paths under the root (the root included) that the matcher names. */
  paths: string[];
  /** False when the walk stopped at a bound: paths past it are not known. */
  complete: boolean;
}

interface Cached {
  found: Found;
  /** When the folders were last found unchanged, and in which generation of look-ups (`forgetLookups`). */
  checked: number;
  epoch: number;
  /** Every folder walked, with its modification time: a new, removed or renamed entry changes it. */
  folders: Map<string, number>;
}

/** A folder's modification time and entries; undefined when it cannot be listed. */
type Listing = { mtimeMs: number; entries: Dirent[] } | undefined;

/**
 * What a walk asks the file system for, a batch at a time: the listings of folders, or the
 * modification times of folders (undefined: gone). The same walk runs synchronously (a bash
 * decision, which is synchronous) or asynchronously (the `protectedPaths` service, which must not
 * hold the event loop while it lists a large tree).
 */
type Request = { list: string[] } | { stat: string[] };
type Answer = Listing[] | Array<number | undefined>;
type Walk = Generator<Request, Found, Answer>;

/**
 * Finds the existing paths under a root that a matcher names (a folder it names is listed and
 * not walked into; a symlink is named by its path or its target, and not followed). Results are
 * kept per root while no walked folder has changed (its mtime), so asking again costs one `stat`
 * per folder instead of a listing and a match per entry.
 */
export class TreeGuard {
  readonly #cache = new Map<string, Cached>();
  /** Asynchronous walks under way, per root: calls side by side share one. */
  readonly #pending = new Map<string, Promise<Found>>();

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
    /** Folders not to walk into (another walk covers them). */
    readonly skip: (folder: string) => boolean = () => false,
    /**
     * Walk into symlinks to folders too (each real folder once): a search for what a sandbox must
     * hide, where `/home/bob` may lead elsewhere and `/home/bob/.ssh` is still a name a command can use.
     */
    readonly followLinks = false,
  ) {}

  /** Walks (or checks) on the calling thread. */
  find(root: string): Found {
    const walk = this.#find(root);
    let step = walk.next();
    while (!step.done) step = walk.next("list" in step.value ? step.value.list.map(listSync) : step.value.stat.map(mtimeSync));
    return step.value;
  }

  /** Walks (or checks) with the file system's requests in the thread pool, a batch at a time. */
  findAsync(root: string): Promise<Found> {
    let pending = this.#pending.get(root);
    if (!pending) {
      pending = this.#drive(root).finally(() => this.#pending.delete(root));
      this.#pending.set(root, pending);
    }
    return pending;
  }

  async #drive(root: string): Promise<Found> {
    const walk = this.#find(root);
    let step = walk.next();
    while (!step.done) step = walk.next("list" in step.value ? await inBatches(step.value.list, list) : await inBatches(step.value.stat, mtime));
    return step.value;
  }

  *#find(root: string): Walk {
    const cached = this.#cache.get(root);
    const now = Date.now();
    if (cached && cached.epoch === lookupEpoch() && now - cached.checked < this.reuseMs) return cached.found;
    if (cached) {
      const folders = [...cached.folders];
      const times = (yield { stat: folders.map(([folder]) => folder) }) as Array<number | undefined>;
      if (folders.every(([, mtimeMs], at) => times[at] === mtimeMs)) {
        cached.checked = now;
        cached.epoch = lookupEpoch();
        return cached.found;
      }
    }
    const walked: Cached = { found: { paths: [], complete: true }, folders: new Map(), checked: now, epoch: lookupEpoch() };
    walked.found = yield* this.#walk(root, walked.folders);
    if (this.#cache.size >= MAX_CACHED_ROOTS) this.#cache.delete(this.#cache.keys().next().value as string);
    this.#cache.set(root, walked);
    return walked.found;
  }

  /** Breadth first, a level of folders per request; records each folder listed with its mtime. */
  *#walk(root: string, folders: Map<string, number>): Walk {
    const paths: string[] = [];
    const seen = new Set<string>();
    if (this.#names(root)) return { paths: [root], complete: true };
    let level = [root];
    let entries = 0;
    for (let depth = 0; level.length > 0; depth += 1) {
      if (depth > MAX_WALK_DEPTH) return { paths, complete: false };
      const listings = (yield { list: level }) as Listing[];
      const next: string[] = [];
      for (const [at, listing] of listings.entries()) {
        if (listing === undefined) continue;
        const folder = level[at] as string;
        folders.set(folder, listing.mtimeMs);
        for (const entry of listing.entries) {
          entries += 1;
          if (entries > MAX_WALK_ENTRIES) return { paths, complete: false };
          const path = join(folder, entry.name);
          if (this.#names(path, entry.isSymbolicLink())) {
            paths.push(path);
            if (this.firstOnly) return { paths, complete: true };
          } else if (entry.isDirectory() && !this.skip(path)) {
            next.push(path);
          } else if (this.followLinks && entry.isSymbolicLink() && !this.skip(path)) {
            const real = linkedFolder(path);
            if (real !== undefined && !seen.has(real) && !this.skip(real)) {
              seen.add(real);
              next.push(path);
            }
          }
        }
      }
      level = next;
    }
    return { paths, complete: true };
  }

  #names(path: string, link = false): boolean {
    if (this.names(path)) return true;
    return link && this.names(recentRealOf(path));
  }
}

/** The real path of the folder a symlink leads to; undefined when it leads to no folder. */
function linkedFolder(path: string): string | undefined {
  try {
    return statSync(path).isDirectory() ? realpathSync(path) : undefined;
  } catch {
    return undefined;
  }
}

function listSync(folder: string): Listing {
  try {
    return { mtimeMs: statSync(folder).mtimeMs, entries: readdirSync(folder, { withFileTypes: true }) };
  } catch {
    return undefined;
  }
}

function mtimeSync(folder: string): number | undefined {
  try {
    return statSync(folder).mtimeMs;
  } catch {
    return undefined;
  }
}

async function list(folder: string): Promise<Listing> {
  try {
    // The time first: an entry added while the folder is listed then changes the time the check compares.
    const { mtimeMs } = await stat(folder);
    return { mtimeMs, entries: await readdir(folder, { withFileTypes: true }) };
  } catch {
    return undefined;
  }
}

async function mtime(folder: string): Promise<number | undefined> {
  return stat(folder).then(
    (info) => info.mtimeMs,
    () => undefined,
  );
}

/** Runs `each` over the items with at most `IN_FLIGHT` at once, answers in the items' order. */
async function inBatches<T, R>(items: T[], each: (item: T) => Promise<R>): Promise<R[]> {
  const answers: R[] = [];
  for (let start = 0; start < items.length; start += IN_FLIGHT) {
    answers.push(...(await Promise.all(items.slice(start, start + IN_FLIGHT).map(each))));
  }
  return answers;
}
