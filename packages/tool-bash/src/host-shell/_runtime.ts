import { createHash } from "node:crypto";
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { isAbsolute, join } from "node:path";
import { isInside } from "@toolhost/core";

/**
 * Files another host's command line opens after this process may have exited (the hook's process
 * ends before the agent host runs the command): bwrap's arguments, the seccomp filter, an empty
 * file to cover with. They live in a folder of this user's alone, `$XDG_RUNTIME_DIR/toolhost`
 * (else `<tmp>/toolhost-<uid>`): made 0700, and used only when it is a folder (not a link) of
 * this uid that no one else may enter (else a fresh `mkdtemp` folder beside it). Each file is named by its content's digest, so that one
 * written for an earlier command serves the next with the same content, and is never rewritten.
 * A folder the sandbox lets a call write is refused: no call can change what the host runs next.
 */

/** Files not used for this long are removed (a command the host still holds after that fails to open its file, and says so). */
const KEEP_MS = 24 * 60 * 60 * 1000;

let folder: string | undefined;
let pruned = false;

/** The folder, made and checked once per process. */
export function runtimeFolder(): string {
  if (folder !== undefined) return folder;
  const xdg = process.env.XDG_RUNTIME_DIR;
  const uid = process.getuid?.() ?? 0;
  const path = xdg !== undefined && isAbsolute(xdg) && ownFolder(xdg, uid) ? join(xdg, "toolhost") : join(tmpdir(), `toolhost-${uid}`);
  try {
    mkdirSync(path, { mode: 0o700 });
  } catch {
    // There already (checked below), or not to be made here (then the fresh folder fails as well, saying why).
  }
  // Someone else's (made before us, to be trusted): a fresh folder of this process's, which it leaves for the commands.
  folder = ownFolder(path, uid) ? path : mkdtempSync(`${path}-`);
  return folder;
}

/** The path of a file in the runtime folder holding `content` (written now unless there already), checked to lie outside `writable`. */
export function lastingFile(content: Buffer, kind: string, writable: readonly string[]): string {
  const where = runtimeFolder();
  if (writable.some((root) => isInside(where, root))) {
    throw new Error(`toolhost's runtime folder ${where} lies in a folder the sandbox lets commands write: set XDG_RUNTIME_DIR to a private folder outside them`);
  }
  if (!pruned) prune(where);
  const path = join(where, `${createHash("sha256").update(content).digest("hex").slice(0, 32)}.${kind}`);
  const now = new Date();
  try {
    const info = lstatSync(path);
    if (info.isFile() && info.size === content.length) {
      utimesSync(path, now, now);
      return path;
    }
    rmSync(path, { force: true });
  } catch {
    // Not there yet.
  }
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, content, { mode: 0o400 });
  renameSync(temporary, path);
  return path;
}

function ownFolder(path: string, uid: number): boolean {
  try {
    const info = lstatSync(path);
    return info.isDirectory() && info.uid === uid && (info.mode & 0o077) === 0;
  } catch {
    return false;
  }
}

/** Removes the files not used for `KEEP_MS` (once per process). */
function prune(where: string): void {
  pruned = true;
  const before = Date.now() - KEEP_MS;
  try {
    for (const name of readdirSync(where)) {
      const path = join(where, name);
      const info = lstatSync(path, { throwIfNoEntry: false });
      if (info && info.mtimeMs < before) rmSync(path, { force: true });
    }
  } catch {
    // Kept for another time.
  }
}
