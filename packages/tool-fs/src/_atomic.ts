import { constants, type Stats } from "node:fs";
import { type FileHandle, lstat, mkdir, open, rename, rmdir, unlink } from "node:fs/promises";
import { randomBytes } from "node:crypto";
import { basename, dirname, join } from "node:path";
import { isInside } from "@toolhost/core";
import { echo } from "./_echo.js";
import { FsError } from "./_errors.js";
import { checkSameFile, identityOf, type JudgedPath } from "./_judged.js";
import { type CheckedPath, handlePath, kindOf, whereIs } from "./_paths.js";
import { FsErrorCode } from "./errors.js";

export interface AtomicWriteResult {
  bytesWritten: number;
  created: boolean;
}

export interface AtomicWriteOptions {
  /** Replace a file that has no write permission bit (keeping its mode). Default: refuse. */
  overwriteReadOnly?: boolean;
  /** What the call's path was when it was judged: the file replaced must be that one (or none, if none was). */
  judged?: JudgedPath;
  /** More checks of the regular file being replaced (its names: hard links); throws to refuse. */
  checkFile?: (info: Stats) => Promise<void>;
}

const FOLDER_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;

/**
 * Replaces `target.real` with `data` atomically: a temporary file in the same folder, fsync,
 * rename, fsync of the folder. An existing file keeps its mode; a read-only one is refused unless
 * `overwriteReadOnly`; anything but a regular file (a FIFO, a device) is refused.
 *
 * The folder is reached through held handles, from the deepest folder that exists down, each
 * missing folder created inside its verified parent's handle (`/proc/self/fd/N/name` on Linux);
 * every later step goes through the last handle, whose real location is checked against the roots
 * again before the rename. A folder swapped for a symlink after `checkPath` cannot redirect the
 * write, nor make a folder be created outside the roots.
 */
export async function writeAtomic(
  target: CheckedPath,
  roots: readonly string[],
  data: string | Uint8Array | readonly Uint8Array[],
  options: AtomicWriteOptions = {},
): Promise<AtomicWriteResult> {
  const folder = dirname(target.real);
  const name = basename(target.real);
  const dir = await openFolder(target, folder, roots);
  const base = handlePath(dir, folder);
  const temp = join(base, `.${name}.${randomBytes(6).toString("hex")}.tmp`);
  let tempCreated = false;
  try {
    const existing = await existingFile(target, join(base, name), options);
    const file = await open(temp, "wx", existing?.mode ?? 0o666);
    tempCreated = true;
    let bytesWritten = 0;
    try {
      bytesWritten = await writeAll(file, data);
      // Only a privileged process may give the file away; for others it already has their owner.
      const owner = existing?.owner;
      if (owner && (owner.uid !== process.getuid?.() || owner.gid !== process.getgid?.())) {
        await file.chown(owner.uid, owner.gid).catch(() => undefined);
      }
      if (existing?.mode !== undefined) await file.chmod(existing.mode);
      await file.sync();
    } finally {
      await file.close();
    }
    // The folder might have been moved while the file was written: check again right before the rename.
    await verify(dir, folder, target, roots);
    await rename(temp, join(base, name));
    tempCreated = false;
    await dir.sync().catch(() => undefined);
    return { bytesWritten, created: existing === undefined };
  } finally {
    if (tempCreated) await unlink(temp).catch(() => undefined);
    await dir.close();
  }
}

async function writeAll(file: FileHandle, data: string | Uint8Array | readonly Uint8Array[]): Promise<number> {
  const pieces = typeof data === "string" ? [Buffer.from(data, "utf8")] : data instanceof Uint8Array ? [data] : data;
  let total = 0;
  for (const bytes of pieces) {
    let done = 0;
    while (done < bytes.length) done += (await file.write(bytes, done, bytes.length - done)).bytesWritten;
    total += done;
  }
  return total;
}

/** The file being replaced: its mode and owner to keep; refuses folders, special files and read-only files. */
async function existingFile(
  target: CheckedPath,
  at: string,
  options: AtomicWriteOptions,
): Promise<{ mode?: number; owner?: { uid: number; gid: number } } | undefined> {
  let existing;
  try {
    // lstat: a link that appeared after the check is replaced by the rename, never followed.
    existing = await lstat(at);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    checkSameFile(target, options.judged, undefined);
    return undefined;
  }
  checkSameFile(target, options.judged, identityOf(existing));
  if (existing.isSymbolicLink()) return {};
  if (!existing.isFile()) {
    const code = existing.isDirectory() ? FsErrorCode.IS_DIRECTORY : FsErrorCode.INVALID_PATH;
    throw new FsError(code, `${echo(target.input)} is ${kindOf(existing)}; only regular files can be written. Use another path.`, {
      path: target.absolute,
    });
  }
  const mode = existing.mode & 0o7777;
  if ((mode & 0o222) === 0 && !options.overwriteReadOnly) {
    throw new FsError(
      FsErrorCode.READ_ONLY,
      `${echo(target.input)} is read-only (mode ${mode.toString(8).padStart(4, "0")}); nothing was written. Make it writable first (chmod u+w) if it should change, or set the tool-fs option overwriteReadOnly.`,
      { path: target.absolute, mode },
    );
  }
  await options.checkFile?.(existing);
  return { mode, owner: { uid: existing.uid, gid: existing.gid } };
}

/**
 * A handle on `folder`, creating the folders that are missing one at a time, each inside the held
 * and verified handle of its parent.
 */
async function openFolder(target: CheckedPath, folder: string, roots: readonly string[]): Promise<FileHandle> {
  let at = folder;
  const missing: string[] = [];
  let handle: FileHandle | undefined;
  while (handle === undefined) {
    try {
      handle = await open(at, FOLDER_FLAGS);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ELOOP" || code === "ENOTDIR") throw changed(target, at, roots);
      if (code !== "ENOENT" || dirname(at) === at) throw error;
      missing.unshift(basename(at));
      at = dirname(at);
    }
  }
  try {
    await verify(handle, at, target, roots);
    for (const part of missing) {
      const child = join(at, part);
      let made = false;
      try {
        await mkdir(join(handlePath(handle, at), part));
        made = true;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      }
      let next: FileHandle;
      try {
        next = await open(join(handlePath(handle, at), part), FOLDER_FLAGS);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === "ELOOP" || code === "ENOTDIR" || code === "ENOENT") throw changed(target, child, roots);
        throw error;
      }
      try {
        await verify(next, child, target, roots);
      } catch (error) {
        await next.close();
        // Created, then found moved out of the roots: take it back.
        if (made) await rmdir(join(handlePath(handle, at), part)).catch(() => undefined);
        throw error;
      }
      await handle.close();
      handle = next;
      at = child;
    }
    return handle;
  } catch (error) {
    await handle.close();
    throw error;
  }
}

async function verify(handle: FileHandle, expected: string, target: CheckedPath, roots: readonly string[]): Promise<void> {
  const opened = await whereIs(handle, expected);
  if (opened !== expected || !roots.some((root) => isInside(opened, root))) throw changed(target, opened, roots);
}

function changed(target: CheckedPath, now: string, roots: readonly string[]): FsError {
  return new FsError(
    FsErrorCode.OUTSIDE_ROOTS,
    `Refused: the folder of ${echo(target.input)} changed while writing (it now leads to ${now}, expected ${dirname(target.real)} inside ${roots.join(", ")}). Nothing was written; check the folder for swapped symbolic links.`,
    { path: target.absolute, realPath: now, roots },
  );
}
