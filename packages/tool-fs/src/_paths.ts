import { existsSync, type Stats } from "node:fs";
import { type FileHandle, lstat, open, readdir, readlink, realpath, stat } from "node:fs/promises";
import { homedir } from "node:os";
import { basename, dirname, join, resolve, sep } from "node:path";
import { FsError, FsErrorCode } from "./_errors.js";
import type { FsContext } from "./_options.js";
import { closestNames } from "./_similar.js";

/** A path the model gave, checked against the roots. */
export interface CheckedPath {
  /** As the model wrote it, for messages. */
  input: string;
  /** Resolved against the working directory, `~` expanded; symlinks not followed. */
  absolute: string;
  /** Symlinks followed for the part that exists; inside a root. */
  real: string;
}

export function expandHome(path: string): string {
  if (path === "~") return homedir();
  if (path.startsWith("~/")) return join(homedir(), path.slice(2));
  return path;
}

/** Whether `child` is `root` or below it, segment by segment (`/a` does not contain `/ab`). */
export function isInside(child: string, root: string): boolean {
  if (child === root) return true;
  return child.startsWith(root.endsWith(sep) ? root : root + sep);
}

const MAX_LINK_HOPS = 40;

/**
 * The real path of `path`: symlinks resolved for the deepest part that exists, the rest appended.
 * A dangling symlink is followed to where it points, so a write through it is checked where it lands.
 */
export async function realpathDeep(path: string, hops = 0): Promise<string> {
  try {
    return await realpath(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== "ENOENT" && code !== "ENOTDIR") throw error;
  }
  let info: Stats | undefined;
  try {
    info = await lstat(path);
  } catch {
    info = undefined;
  }
  if (info?.isSymbolicLink()) {
    if (hops >= MAX_LINK_HOPS) {
      throw new FsError(FsErrorCode.INVALID_PATH, `Too many symbolic links while resolving ${path}.`);
    }
    return realpathDeep(resolve(dirname(path), await readlink(path)), hops + 1);
  }
  const parent = dirname(path);
  if (parent === path) return path;
  return join(await realpathDeep(parent, hops), basename(path));
}

function rootsText(roots: readonly string[]): string {
  return roots.length === 1 ? `the root ${roots[0]}` : `the roots ${roots.join(", ")}`;
}

/** Resolves a path the model gave and refuses it unless it lands inside a root. */
export async function checkPath(ctx: FsContext, input: unknown): Promise<CheckedPath> {
  if (typeof input !== "string" || input.length === 0) {
    throw new FsError(FsErrorCode.INVALID_PATH, "The path is empty. Give a file or folder path, relative to the working directory or absolute.");
  }
  if (input.includes("\0")) {
    throw new FsError(
      FsErrorCode.INVALID_PATH,
      `The path ${JSON.stringify(input)} contains a NUL byte, which no file name can hold. Remove it.`,
    );
  }
  const absolute = resolve(ctx.cwd, expandHome(input));
  const roots = await ctx.realRoots();
  const real = await realpathDeep(absolute);
  if (!roots.some((root) => isInside(real, root))) {
    const via = real === absolute ? "" : ` (it leads through a symbolic link to ${real})`;
    throw new FsError(
      FsErrorCode.OUTSIDE_ROOTS,
      `Refused: "${input}" is outside ${rootsText(roots)}${via}. Use a path inside ${roots.length === 1 ? "it" : "one of them"}, or add its folder to the tool-fs "roots" option.`,
      { path: absolute, realPath: real, roots },
    );
  }
  return { input, absolute, real };
}

/** `stat` of a checked path, or a not-found error that suggests close names in the same folder. */
export async function statOrExplain(ctx: FsContext, path: CheckedPath): Promise<Stats> {
  try {
    return await stat(path.real);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  const folder = dirname(path.real);
  let folderExists = true;
  let suggestions: string[] = [];
  try {
    const roots = await ctx.realRoots();
    if (roots.some((root) => isInside(folder, root))) {
      suggestions = closestNames(basename(path.real), await readdir(folder));
    }
  } catch {
    folderExists = false;
  }
  const shown = dirname(path.input) === "." ? suggestions : suggestions.map((name) => join(dirname(path.input), name));
  const hint =
    shown.length > 0
      ? ` Did you mean ${shown.map((name) => `"${name}"`).join(", ")}?`
      : folderExists
        ? ` Use ls on "${dirname(path.input)}" to see what is there.`
        : ` Its folder ${folder} does not exist either.`;
  throw new FsError(FsErrorCode.NOT_FOUND, `"${path.input}" does not exist (${path.absolute}).${hint}`, {
    path: path.absolute,
    suggestions: shown,
  });
}

const PROC_FD = existsSync("/proc/self/fd");

/**
 * Opens a checked file for reading and checks where the opened file really is: a link swapped in
 * after `checkPath` cannot make a read (or the read half of an edit) leave the roots.
 */
export async function openChecked(ctx: FsContext, path: CheckedPath): Promise<FileHandle> {
  const file = await open(path.real, "r");
  try {
    const opened = PROC_FD ? await readlink(`/proc/self/fd/${file.fd}`) : await realpath(path.real);
    const roots = await ctx.realRoots();
    if (!roots.some((root) => isInside(opened, root))) {
      throw new FsError(
        FsErrorCode.OUTSIDE_ROOTS,
        `Refused: "${path.input}" changed while it was opened and now leads to ${opened}, outside ${rootsText(roots)}. Check it for swapped symbolic links.`,
        { path: path.absolute, realPath: opened, roots },
      );
    }
    return file;
  } catch (error) {
    await file.close();
    throw error;
  }
}
