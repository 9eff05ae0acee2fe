import { type Stats, lstatSync, readFileSync } from "node:fs";
import { checkPackageStoreCopy, packageStoreFolders, projectStoreFolder } from "@toolhost/core";
import { bytesText, withCommas } from "../_numbers.js";
import { emptyPlaceholders } from "./_hide.js";
import { walkFolders } from "./_walk.js";

/** A scan of the writable folders is reused this long: a new hard link to a file outside can only be made outside the sandbox. */
const RESCAN_MS = 60_000;
/** A tree bigger than this is not scanned: its hard links are not known. */
const MAX_ENTRIES = 200_000;
/** Files of other names covered with an empty file, at most: beyond, one mount each costs too much, and they are declared. */
const MAX_HIDDEN = 256;
/** Bytes a call hashes at most to prove store copies (about 0.2 s here); the rest are proven by the next calls. */
const HASH_BUDGET = 128 * 1024 ** 2;

/**
 * Files in the writable folders that have a name elsewhere (a hard link: pnpm's store, `cp -l`):
 * the same file, so a write through the writable name changes it under the other name too, which
 * no mount can prevent. `files` counts them; `complete` is false when the folders were too big to
 * scan, so that any file may be one.
 */
export interface HardLinks {
  files: number;
  /** A few of them, for the message. */
  examples: string[];
  complete: boolean;
  /** Where the file systems holding the other names are mounted: what a write through such a file can reach. */
  reach: string[];
  /** How long the scan took, in ms. */
  scanMs: number;
  /**
   * Of those files, the ones not proven to be package-store copies (pnpm's, see core's
   * `isPackageStoreCopy`): what they show belongs to a file the call may not read, so the sandbox
   * covers each with an empty file. Empty when `declaredOnly` says why they are not covered.
   */
  hidden: string[];
  /** How many are proven store copies: public package content, shown (a write still reaches the store). */
  storeCopies: number;
  /** Set when the files are declared instead of hidden: the folders were too big to scan, too many to cover, or not yet all proven. */
  declaredOnly: string | undefined;
  /** How many are not proven yet (over a call's budget): the next call goes on. */
  unproven: number;
}

/** A file of the writable folders with a name elsewhere, as the scan found it. */
interface Outside {
  path: string;
  stat: Stats;
}

/** The hard-link scan of one tool's writable folders: made at its first sandboxed call, again when older than a minute. */
export class HardLinkScan {
  #last: { at: number; key: string; found: HardLinks; outside: Outside[] } | undefined;

  current(folders: readonly string[]): HardLinks {
    const key = folders.join("\0");
    const last = this.#last;
    if (last && last.key === key && performance.now() - last.at < RESCAN_MS) {
      // Proofs not made yet (over one call's budget) go on at the next call.
      if (last.found.unproven > 0) last.found = { ...last.found, ...classify(last.outside, folders) };
      return last.found;
    }
    const { found, outside } = scan(folders);
    this.#last = { at: performance.now(), key, found, outside };
    return found;
  }
}

type Classes = Pick<HardLinks, "hidden" | "storeCopies" | "declaredOnly" | "unproven">;

/**
 * Which files with names elsewhere the sandbox covers: each not proven a store copy, unless that
 * would take more than `MAX_HIDDEN` mounts, or some could not be proven within this call's budget
 * (then all are declared, and the result's notes say so).
 */
function classify(outside: readonly Outside[], folders: readonly string[]): Classes {
  const stores = packageStoreFolders(process.env, folders.map(projectStoreFolder).filter((folder): folder is string => folder !== undefined));
  const budget = { bytes: HASH_BUDGET };
  const hidden: string[] = [];
  let storeCopies = 0;
  let unchecked = 0;
  for (const { path, stat } of outside) {
    const proof = checkPackageStoreCopy(path, stat, stores, budget);
    if (proof === "copy") storeCopies += 1;
    else if (proof === "not") hidden.push(path);
    else unchecked += 1;
  }
  if (unchecked > 0) {
    const why = `${withCommas(unchecked)} of them are not yet proven to be package-store copies (a call hashes at most ${bytesText(HASH_BUDGET)}; the next calls go on)`;
    return { hidden: [], storeCopies, declaredOnly: why, unproven: unchecked };
  }
  if (hidden.length > MAX_HIDDEN) return { hidden: [], storeCopies, declaredOnly: `${withCommas(hidden.length)} of them are no package-store copies, more than the ${MAX_HIDDEN} the sandbox covers`, unproven: 0 };
  return { hidden, storeCopies, declaredOnly: undefined, unproven: 0 };
}

function scan(folders: readonly string[]): { found: HardLinks; outside: Outside[] } {
  const started = performance.now();
  // dev:ino → the file's link count, and how many of its names were seen inside the folders.
  const linked = new Map<string, { links: number; seen: number; path: string; dev: number; stat: Stats; names: string[] }>();
  const complete = walkFolders(folders, MAX_ENTRIES, (path, entry) => {
    if (entry.isDirectory()) return true;
    if (!entry.isFile()) return false;
    const stat = lstatSync(path, { throwIfNoEntry: false });
    if (!stat || stat.nlink < 2) return false;
    const id = `${stat.dev}:${stat.ino}`;
    const known = linked.get(id);
    if (known) {
      known.seen += 1;
      known.names.push(path);
    } else linked.set(id, { links: stat.nlink, seen: 1, path, dev: stat.dev, stat, names: [path] });
    return false;
  });
  const outside = [...linked.values()].filter((file) => file.seen < file.links);
  const devices = new Set(outside.map((file) => file.dev));
  if (!complete) for (const folder of folders) devices.add(lstatSync(folder, { throwIfNoEntry: false })?.dev ?? -1);
  // Every name of such a file in the folders is covered (or shown) alike.
  const named = outside.flatMap((file) => file.names.map((name) => ({ path: name, stat: file.stat })));
  const classes: Classes = !complete
    ? { hidden: [], storeCopies: 0, declaredOnly: `the writable folders hold over ${withCommas(MAX_ENTRIES)} entries, too many to look for hard links`, unproven: 0 }
    : classify(named, folders);
  const found: HardLinks = {
    files: outside.length,
    examples: outside.slice(0, 3).map((file) => file.path),
    complete,
    reach: mountPointsOf(devices),
    scanMs: Math.round(performance.now() - started),
    ...classes,
  };
  return { found, outside: named };
}

/** The mount points of the file systems with these device numbers (every mount of one is a way to its files). */
function mountPointsOf(devices: ReadonlySet<number>): string[] {
  if (devices.size === 0) return [];
  const wanted = new Set([...devices].map(majorMinor));
  let table: string;
  try {
    table = readFileSync("/proc/self/mountinfo", "utf8");
  } catch {
    return ["/"];
  }
  const points = new Set<string>();
  for (const line of table.split("\n")) {
    const fields = line.split(" ");
    if (fields[2] !== undefined && wanted.has(fields[2]) && fields[4] !== undefined) points.add(fields[4].replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(Number.parseInt(octal, 8))));
  }
  // A mount point inside another of the same list adds nothing.
  const all = [...points].sort((a, b) => a.length - b.length);
  return all.filter((point, at) => !all.slice(0, at).some((outer) => outer === "/" || point.startsWith(`${outer}/`)));
}

/** `major:minor` of a device number, as mountinfo writes it (glibc's encoding of dev_t). */
function majorMinor(dev: number): string {
  const value = BigInt(dev);
  const major = ((value >> 8n) & 0xfffn) | ((value >> 32n) & ~0xfffn);
  const minor = (value & 0xffn) | ((value >> 12n) & ~0xffn);
  return `${major}:${minor}`;
}

/** bwrap's arguments that cover each file of `hidden` with an empty read-only file. */
export function coverLinked(found: HardLinks | undefined): string[] {
  if (!found || found.hidden.length === 0) return [];
  const empty = emptyPlaceholders();
  return found.hidden.flatMap((path) => ["--ro-bind", empty.file, path]);
}
