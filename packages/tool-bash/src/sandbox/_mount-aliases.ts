import { lstatSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { isInside } from "@toolhost/core";

/** One line of /proc/self/mountinfo: which folder of which file system is mounted where. */
interface Mount {
  device: string;
  /** The folder of the file system that is mounted. */
  root: string;
  /** Where it is mounted. */
  point: string;
}

/**
 * The other names a bind mount gives the paths (`mount --bind / /mnt/host` shows `/root/.ssh` as
 * `/mnt/host/root/.ssh` too): for each path, where the same folder of the same file system is
 * also mounted. A sandbox that hides a path hides these as well. Empty when the table cannot be read.
 */
export function mountAliases(paths: readonly string[], table = readTable()): string[] {
  if (paths.length === 0 || table.length === 0) return [];
  const aliases: string[] = [];
  for (const path of paths) {
    const home = mountOf(path, table);
    if (!home) continue;
    const inFs = join(home.root, path.slice(home.point.length));
    for (const other of table) {
      if (other === home || other.device !== home.device || !isInside(inFs, other.root)) continue;
      const alias = join(other.point, inFs.slice(other.root.length));
      if (alias !== path && lstatSync(alias, { throwIfNoEntry: false }) !== undefined) aliases.push(alias);
    }
  }
  return [...new Set(aliases)];
}

/** The mount a path is on: the deepest mount point holding it, the last mounted there. */
function mountOf(path: string, table: readonly Mount[]): Mount | undefined {
  let found: Mount | undefined;
  for (const mount of table) {
    if (isInside(path, mount.point) && (!found || mount.point.length >= found.point.length)) found = mount;
  }
  return found;
}

/** Parses mountinfo (see proc(5)); paths have spaces, tabs, newlines and backslashes as octal escapes. */
export function parseMountInfo(text: string): Mount[] {
  const mounts: Mount[] = [];
  for (const line of text.split("\n")) {
    const fields = line.split(" ");
    if (fields.length < 5) continue;
    mounts.push({ device: fields[2] as string, root: unescape(fields[3] as string), point: unescape(fields[4] as string) });
  }
  return mounts;
}

function readTable(): Mount[] {
  try {
    return parseMountInfo(readFileSync("/proc/self/mountinfo", "utf8"));
  } catch {
    return [];
  }
}

function unescape(field: string): string {
  return field.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(Number.parseInt(octal, 8)));
}

