import { constants, existsSync } from "node:fs";
import { type FileHandle, lstat, mkdir, open, readlink, realpath, rename, unlink } from "node:fs/promises";
import { randomBytes } from "node:crypto";
import { basename, dirname, join } from "node:path";
import { FsError, FsErrorCode } from "./_errors.js";
import { isInside, type CheckedPath } from "./_paths.js";

const PROC_FD = existsSync("/proc/self/fd");

export interface AtomicWriteResult {
  bytesWritten: number;
  created: boolean;
}

/**
 * Replaces `target.real` with `data` atomically: a temporary file in the same folder, fsync,
 * rename, fsync of the folder. An existing file keeps its mode.
 *
 * The folder is opened once and every later step goes through that handle
 * (`/proc/self/fd/N/...` on Linux), and its real location is checked against the roots after the
 * temporary file exists: a folder swapped for a symlink after `checkPath` cannot redirect the write.
 */
export async function writeAtomic(
  target: CheckedPath,
  roots: readonly string[],
  data: string | Uint8Array | readonly Uint8Array[],
): Promise<AtomicWriteResult> {
  const folder = dirname(target.real);
  const name = basename(target.real);
  await mkdir(folder, { recursive: true });

  let dir: FileHandle;
  try {
    dir = await open(folder, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ELOOP" || code === "ENOTDIR") throw changed(target, folder, roots);
    throw error;
  }
  const base = PROC_FD ? `/proc/self/fd/${dir.fd}` : folder;
  const where = async (): Promise<string> => (PROC_FD ? readlink(base) : realpath(folder));
  const temp = join(base, `.${name}.${randomBytes(6).toString("hex")}.tmp`);
  let tempCreated = false;
  try {
    const opened = await where();
    if (opened !== folder || !roots.some((root) => isInside(opened, root))) throw changed(target, opened, roots);

    let mode: number | undefined;
    let created = true;
    let owner: { uid: number; gid: number } | undefined;
    try {
      // lstat: a link that appeared after the check is replaced by the rename, never followed.
      const existing = await lstat(join(base, name));
      if (existing.isDirectory()) {
        throw new FsError(FsErrorCode.IS_DIRECTORY, `"${target.input}" is a folder; write takes a file path.`, {
          path: target.absolute,
        });
      }
      created = false;
      if (existing.isFile()) {
        mode = existing.mode & 0o7777;
        owner = { uid: existing.uid, gid: existing.gid };
      }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    }

    const file = await open(temp, "wx", mode ?? 0o666);
    tempCreated = true;
    let bytesWritten = 0;
    try {
      const pieces = typeof data === "string" ? [Buffer.from(data, "utf8")] : data instanceof Uint8Array ? [data] : data;
      for (const bytes of pieces) {
        let done = 0;
        while (done < bytes.length) {
          const { bytesWritten: n } = await file.write(bytes, done, bytes.length - done);
          done += n;
        }
        bytesWritten += done;
      }
      // Only a privileged process may give the file away; for others it already has their owner.
      if (owner && (owner.uid !== process.getuid?.() || owner.gid !== process.getgid?.())) {
        await file.chown(owner.uid, owner.gid).catch(() => undefined);
      }
      if (mode !== undefined) await file.chmod(mode);
      await file.sync();
    } finally {
      await file.close();
    }

    // The folder might have been moved while the file was written: check again right before the rename.
    const still = await where();
    if (still !== folder || !roots.some((root) => isInside(still, root))) throw changed(target, still, roots);
    await rename(temp, join(base, name));
    tempCreated = false;
    await dir.sync().catch(() => undefined);
    return { bytesWritten, created };
  } finally {
    if (tempCreated) await unlink(temp).catch(() => undefined);
    await dir.close();
  }
}

function changed(target: CheckedPath, now: string, roots: readonly string[]): FsError {
  return new FsError(
    FsErrorCode.OUTSIDE_ROOTS,
    `Refused: the folder of "${target.input}" changed while writing (it now leads to ${now}, expected ${dirname(target.real)} inside ${roots.join(", ")}). Nothing was written; check the folder for swapped symbolic links.`,
    { path: target.absolute, realPath: now, roots },
  );
}
