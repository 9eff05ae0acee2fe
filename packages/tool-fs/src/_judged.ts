import type { Stats } from "node:fs";
import { lstat } from "node:fs/promises";
import { echo } from "./_echo.js";
import { FsError } from "./_errors.js";
import type { CheckedPath } from "./_paths.js";
import { FsErrorCode } from "./errors.js";

/** Which file a name is: its device and inode (`lstat`, no link followed). */
export interface FileIdentity {
  dev: number;
  ino: number;
}

/**
 * A call's path as it was when the call was judged (the tool's `access`, right before the policy):
 * where its links led, and which file was there (absent: none). The run compares the path it opens
 * with this, so a link or a file swapped in while the call waited for a policy or a person is
 * refused, not followed: what was judged is what runs.
 */
export interface JudgedPath {
  real: string;
  identity: FileIdentity | undefined;
  /** For an edit: the file's new content as the call declared it (an approver's diff), to run only that. */
  content?: string;
}

/** Keyed by the call's arguments: the kernel hands `execute` the object it handed `access`. */
const judged = new WeakMap<object, JudgedPath>();

export function identityOf(info: Stats): FileIdentity {
  return { dev: info.dev, ino: info.ino };
}

/** What is at `path` now, without following a link; undefined when nothing is. */
async function lstatAt(path: string): Promise<Stats | undefined> {
  try {
    return await lstat(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return undefined;
    throw error;
  }
}

/** Records what a call's path is as it is judged, and returns what is there (`lstat`: the one system call it costs). */
export async function recordJudged(params: object, path: CheckedPath, content?: string): Promise<Stats | undefined> {
  const info = await lstatAt(path.real);
  judged.set(params, { real: path.real, identity: info && identityOf(info), ...(content !== undefined && { content }) });
  return info;
}

/**
 * What `access` recorded for these arguments, taken once (a second run of the same object is not
 * the judged one). Undefined when the tool runs without a harness (its `execute` called by code).
 */
export function takeJudged(params: object): JudgedPath | undefined {
  const found = judged.get(params);
  judged.delete(params);
  return found;
}

function same(a: FileIdentity | undefined, b: FileIdentity | undefined): boolean {
  return a === undefined ? b === undefined : b !== undefined && a.dev === b.dev && a.ino === b.ino;
}

/** The refusal for a path that is not what was judged. */
export function changedSinceJudged(path: CheckedPath, how: string): FsError {
  return new FsError(
    FsErrorCode.CHANGED,
    `Refused: ${echo(path.input)} changed after the call was judged (${how}); nothing was read or written. Call again, so that what it is now is judged.`,
    { path: path.absolute },
  );
}

/** Throws unless `path` still leads where it did when judged (its links resolve to the same real path). */
export function checkLeadsAsJudged(path: CheckedPath, judgedPath: JudgedPath | undefined): void {
  if (judgedPath !== undefined && judgedPath.real !== path.real) {
    throw changedSinceJudged(path, `it led to ${judgedPath.real}, and now leads to ${path.real}`);
  }
}

/** Throws unless the file found (`now`, by `fstat` of the opened handle or `lstat` of the name) is the one judged. */
export function checkSameFile(path: CheckedPath, judgedPath: JudgedPath | undefined, now: FileIdentity | undefined): void {
  if (judgedPath === undefined || same(judgedPath.identity, now)) return;
  const how =
    judgedPath.identity === undefined
      ? "it did not exist then, and a file is there now"
      : now === undefined
        ? "the file judged is gone"
        : "another file is at that name now";
  throw changedSinceJudged(path, how);
}
