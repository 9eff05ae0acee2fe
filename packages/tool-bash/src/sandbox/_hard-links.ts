import { lstatSync, readFileSync } from "node:fs";
import { walkFolders } from "./_walk.js";

/** A scan of the writable folders is reused this long: a new hard link to a file outside can only be made outside the sandbox. */
const RESCAN_MS = 60_000;
/** A tree bigger than this is not scanned: its hard links are not known. */
const MAX_ENTRIES = 200_000;

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
}

/** The hard-link scan of one tool's writable folders: made at its first sandboxed call, again when older than a minute. */
export class HardLinkScan {
  #last: { at: number; key: string; found: HardLinks } | undefined;

  current(folders: readonly string[]): HardLinks {
    const key = folders.join("\0");
    const last = this.#last;
    if (last && last.key === key && performance.now() - last.at < RESCAN_MS) return last.found;
    const found = scan(folders);
    this.#last = { at: performance.now(), key, found };
    return found;
  }
}

function scan(folders: readonly string[]): HardLinks {
  const started = performance.now();
  // dev:ino → the file's link count, and how many of its names were seen inside the folders.
  const linked = new Map<string, { links: number; seen: number; path: string; dev: number }>();
  const complete = walkFolders(folders, MAX_ENTRIES, (path, entry) => {
    if (entry.isDirectory()) return true;
    if (!entry.isFile()) return false;
    const stat = lstatSync(path, { throwIfNoEntry: false });
    if (!stat || stat.nlink < 2) return false;
    const id = `${stat.dev}:${stat.ino}`;
    const known = linked.get(id);
    if (known) known.seen += 1;
    else linked.set(id, { links: stat.nlink, seen: 1, path, dev: stat.dev });
    return false;
  });
  const outside = [...linked.values()].filter((file) => file.seen < file.links);
  const devices = new Set(outside.map((file) => file.dev));
  if (!complete) for (const folder of folders) devices.add(lstatSync(folder, { throwIfNoEntry: false })?.dev ?? -1);
  return {
    files: outside.length,
    examples: outside.slice(0, 3).map((file) => file.path),
    complete,
    reach: mountPointsOf(devices),
    scanMs: Math.round(performance.now() - started),
  };
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
