import { lstatSync, renameSync, rmSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";
import { CONTROL_FILES, type ControlFile, isInside } from "@toolhost/core";
import { existingReal, outermost } from "./_hide.js";

/**
 * The control files (core's `CONTROL_FILES`: what decides later calls, or what another program
 * runs later outside any sandbox) a call could write: those that exist are mounted read-only; the
 * names of those that do not are watched, and what the call created at one is moved aside after it.
 */
export interface ControlFiles {
  /** Existing control files and folders inside the writable folders, at their real paths: mounted read-only. */
  readOnly: string[];
  /** Every place watched, with what was there before the call (`undefined`: nothing). */
  watched: Array<{ path: string; file: ControlFile; before: string | undefined }>;
}

/** A control file the call created (or replaced: a symlink it swapped), moved aside after the call. */
export interface QuarantinedFile {
  path: string;
  /** Where it is now; undefined when it could not be moved, and was removed instead (`removed`), or neither. */
  movedTo: string | undefined;
  removed?: boolean;
  /** Who reads it (core's list). */
  why: string;
}

/**
 * Where the control files of a call's writable folders are looked for: at the top of each, and in
 * each folder from there down to where the call runs (toolhost's config is searched upward from
 * where a host starts, an agent host reads its settings where it starts); the home folder's own
 * when a writable folder holds it, and an absolute one inside a writable folder. A few `lstat`s
 * per folder: a control file deeper in the tree is not one any program reads by itself.
 */
export function controlFilesOf(writable: readonly string[], cwd: string, home: string | undefined): ControlFiles {
  const places: Array<{ path: string; file: ControlFile }> = [];
  const anywhere = CONTROL_FILES.filter((file) => file.where === "anywhere");
  const realCwd = existingReal(cwd) ?? cwd;
  for (const root of writable) {
    for (const folder of foldersDown(root, realCwd)) for (const file of anywhere) places.push({ path: join(folder, file.path), file });
  }
  const realHome = home !== undefined ? existingReal(home) : undefined;
  for (const file of CONTROL_FILES) {
    if (file.where === "home" && realHome !== undefined) places.push({ path: join(realHome, file.path), file });
    if (file.where === "absolute") places.push({ path: file.path, file });
  }
  const inWritable = (path: string): boolean => writable.some((root) => isInside(path, root));
  const readOnly: string[] = [];
  const watched: ControlFiles["watched"] = [];
  const seen = new Set<string>();
  for (const place of places) {
    if (seen.has(place.path) || !inWritable(place.path)) continue;
    seen.add(place.path);
    const before = identityOf(place.path);
    // At its real path (a mount follows links); a link leading out of the writable folders is read-only
    // there already, but the link itself can be replaced: it is watched, as a place where none is.
    const real = before !== undefined ? existingReal(place.path) : undefined;
    if (real !== undefined && inWritable(real)) readOnly.push(real);
    else watched.push({ ...place, before });
  }
  // One mount of a folder covers what is inside it (`.git` covers `.git/hooks`).
  return { readOnly: outermost(readOnly), watched };
}

/** `root` and each folder below it down to `cwd`, when the call runs inside it. */
function foldersDown(root: string, cwd: string): string[] {
  const folders = [root];
  if (cwd === root || !isInside(cwd, root)) return folders;
  let folder = root;
  for (const segment of relative(root, cwd).split(sep)) {
    folder = join(folder, segment);
    folders.push(folder);
  }
  return folders;
}

/**
 * What stands at a path, without following a link, or undefined when nothing does: its inode
 * with its kind, birth and change times (a file removed and another made may reuse the inode).
 */
function identityOf(path: string): string | undefined {
  const stat = lstatSync(path, { throwIfNoEntry: false, bigint: true });
  return stat ? `${stat.dev}:${stat.ino}:${stat.mode}:${stat.birthtimeNs}:${stat.ctimeNs}` : undefined;
}

/**
 * After the call (its processes gone): each watched place where something new stands (created,
 * or put in place of what was there, such as a symlink the call swapped) is renamed aside, to
 * `<name>.toolhost-quarantine-<time>`, so that no program reads it; returns what was moved.
 */
export function quarantineCreated(control: ControlFiles, now = new Date()): QuarantinedFile[] {
  const moved: QuarantinedFile[] = [];
  const stamp = now.toISOString().replace(/[-:]/g, "").replace(/\.\d+Z$/, "Z");
  for (const { path, file, before } of control.watched) {
    const after = identityOf(path);
    if (after === undefined || after === before) continue;
    // A place inside one already moved went with it.
    if (moved.some((done) => isInside(path, done.path))) continue;
    const movedTo = moveAside(path, stamp);
    moved.push({ path, movedTo, why: file.why, ...(movedTo === undefined && { removed: remove(path) }) });
  }
  return moved;
}

function remove(path: string): boolean {
  try {
    rmSync(path, { recursive: true, force: true });
    return true;
  } catch {
    return false;
  }
}

function moveAside(path: string, stamp: string): string | undefined {
  for (let attempt = 0; attempt < 100; attempt += 1) {
    const target = join(dirname(path), `${path.slice(dirname(path).length + 1)}.toolhost-quarantine-${stamp}${attempt > 0 ? `-${attempt}` : ""}`);
    if (lstatSync(target, { throwIfNoEntry: false }) !== undefined) continue;
    try {
      renameSync(path, target);
      return target;
    } catch {
      return undefined;
    }
  }
  return undefined;
}
