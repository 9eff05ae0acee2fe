import { constants, existsSync, type Stats } from "node:fs";
import { type FileHandle, lstat, open, readdir, readlink, realpath, stat } from "node:fs/promises";
import { basename, dirname, isAbsolute, join, relative, resolve } from "node:path";
import { isInside } from "@toolhost/core";
import type { FsContext } from "./_context.js";
import { echo } from "./_echo.js";
import { expandHome } from "./_home.js";
import { FsError } from "./_errors.js";
import { closestNames } from "./_similar.js";
import { FsErrorCode } from "./errors.js";

/** A path the model gave, checked against the roots. */
export interface CheckedPath {
  /** As the model wrote it, for messages (quote it with `echo`). */
  input: string;
  /** Resolved against the working directory, `~` expanded; symlinks not followed. */
  absolute: string;
  /** Symlinks followed for the part that exists; inside a root. */
  real: string;
}

const MAX_LINK_HOPS = 40;
/** Longer than any path Linux or macOS can open (PATH_MAX is 4096 bytes). */
const MAX_PATH_BYTES = 4096;

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
      throw new FsError(FsErrorCode.INVALID_PATH, `Too many symbolic links (or a loop) while resolving ${echo(path)}. Fix the links.`);
    }
    return realpathDeep(resolve(dirname(path), await readlink(path)), hops + 1);
  }
  const parent = dirname(path);
  if (parent === path) return path;
  return join(await realpathDeep(parent, hops), basename(path));
}

export function rootsText(roots: readonly string[]): string {
  return roots.length === 1 ? `the root ${roots[0]}` : `the roots ${roots.join(", ")}`;
}

/** A file-system error met while resolving a path, as the error the model sees. */
export function pathError(error: unknown, input: string): unknown {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === "ELOOP") {
    return new FsError(FsErrorCode.INVALID_PATH, `${echo(input)} loops through symbolic links (or has too many of them). Fix the links, or use the real file's path.`, {
      errno: code,
    });
  }
  if (code === "ENAMETOOLONG") {
    return new FsError(FsErrorCode.INVALID_PATH, `${echo(input)} has a name too long for the file system. Use a shorter name.`, { errno: code });
  }
  if (typeof code === "string") {
    return new FsError(FsErrorCode.IO_ERROR, `File system error ${code} while resolving ${echo(input)}. Check the path's permissions.`, { errno: code });
  }
  return error;
}

/** Resolves a path the model gave and refuses it unless it lands inside a root. */
export async function checkPath(ctx: FsContext, input: unknown): Promise<CheckedPath> {
  if (typeof input !== "string" || input.length === 0) {
    throw new FsError(FsErrorCode.INVALID_PATH, "The path is empty. Give a file or folder path, relative to the working directory or absolute.");
  }
  if (input.includes("\0")) {
    throw new FsError(FsErrorCode.INVALID_PATH, `The path ${echo(input)} contains a NUL byte, which no file name can hold. Remove it.`);
  }
  if (Buffer.byteLength(input) > MAX_PATH_BYTES) {
    throw new FsError(
      FsErrorCode.INVALID_PATH,
      `The path ${echo(input)} is ${Buffer.byteLength(input).toLocaleString("en-US")} bytes long; no file system opens a path longer than ${MAX_PATH_BYTES} bytes. Use a shorter path.`,
    );
  }
  const absolute = resolve(ctx.cwd, expandHome(input));
  const roots = await ctx.realRoots();
  let real: string;
  try {
    real = await realpathDeep(absolute);
  } catch (error) {
    throw pathError(error, input);
  }
  if (!roots.some((root) => isInside(real, root))) {
    const via = real === absolute ? "" : ` (it leads through a symbolic link to ${real})`;
    throw new FsError(
      FsErrorCode.OUTSIDE_ROOTS,
      `Refused: ${echo(input)} is outside ${rootsText(roots)}${via}. Use a path inside ${roots.length === 1 ? "it" : "one of them"}, or add its folder to the tool-fs "roots" option.`,
      { path: absolute, realPath: real, roots },
    );
  }
  return { input, absolute, real };
}

/** An existing path: checked, `stat`ed (links followed), and the name used when the model's differed. */
export interface ExistingPath {
  path: CheckedPath;
  info: Stats;
  /** Set when the model's name did not exist and one that differs only invisibly was used. */
  note?: string;
}

/**
 * Checks a path that must exist. When it does not, a single existing name that differs only in
 * Unicode normalisation, the kind of space or the apostrophe is used instead (and `note` says so);
 * several such names are listed with their code points; otherwise close names are suggested.
 */
export async function locate(ctx: FsContext, input: string): Promise<ExistingPath> {
  const path = await checkPath(ctx, input);
  try {
    return { path, info: await stat(path.real) };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== "ENOENT" && code !== "ENOTDIR") throw pathError(error, input);
  }
  const alike = await lookAlike(path.absolute);
  if (alike.includes(path.absolute)) {
    // It appeared after the stat: it is the file meant, no look-alike.
    return { path, info: await stat(path.real).catch((error: unknown) => Promise.reject(pathError(error, input))) };
  }
  if (alike.length === 1) {
    const found0 = alike[0] as string;
    // Named the way the model named it: relative stays relative.
    const used = isAbsolute(input) || input.startsWith("~") ? found0 : relative(ctx.cwd, found0);
    const found = await checkPath(ctx, used);
    const info = await stat(found.real).catch((error: unknown) => {
      throw pathError(error, used);
    });
    const note = `[${echo(input)} does not exist; used ${echo(used)}, whose name differs only in ${howTheyDiffer(path.absolute, used)}.]`;
    return { path: { ...found, input: used }, info, note };
  }
  if (alike.length > 1) {
    throw new FsError(
      FsErrorCode.NOT_FOUND,
      `${echo(input)} does not exist, and several names differ from it only in invisible characters: ${alike
        .slice(0, 10)
        .map((name) => `${echo(isAbsolute(input) ? name : relative(ctx.cwd, name))} (${codePoints(basename(name))})`)
        .join(", ")}. Use one of them exactly.`,
      { path: path.absolute, missing: path.absolute, suggestions: alike.slice(0, 10) },
    );
  }
  return notFound(ctx, path);
}

const SPACES = /[\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000]/g;
const APOSTROPHES = /[\u2018\u2019\u201b\u02bc\u2032\u00b4\u0060]/g;
const QUOTES = /[\u201c\u201d\u201f\u2033]/g;

/** A name with the differences a model cannot see taken out. */
function looseKey(name: string): string {
  return name.normalize("NFC").replace(SPACES, " ").replace(APOSTROPHES, "'").replace(QUOTES, '"');
}

function codePoints(name: string): string {
  const special = [...new Set([...name].filter((c) => c.codePointAt(0) as number > 0x7e))];
  if (special.length === 0) return "plain ASCII";
  return special.map((c) => `U+${(c.codePointAt(0) as number).toString(16).toUpperCase().padStart(4, "0")}`).join(" ");
}

function howTheyDiffer(typed: string, used: string): string {
  if (typed.normalize("NFC") === used.normalize("NFC")) return "Unicode normalisation (NFC/NFD)";
  return `invisible characters (it has ${codePoints(basename(used))}; you sent ${codePoints(basename(typed))})`;
}

/** Existing paths whose components differ from the missing part of `absolute` only invisibly. */
async function lookAlike(absolute: string): Promise<string[]> {
  let base = absolute;
  const missing: string[] = [];
  while (!existsSync(base)) {
    const parent = dirname(base);
    if (parent === base) return [];
    missing.unshift(basename(base));
    base = parent;
  }
  let found = [base];
  for (const part of missing) {
    const key = looseKey(part);
    const next: string[] = [];
    for (const folder of found) {
      let names: string[];
      try {
        names = await readdir(folder);
      } catch {
        continue;
      }
      for (const name of names) if (looseKey(name) === key) next.push(join(folder, name));
    }
    found = next.slice(0, 20);
    if (found.length === 0) return [];
  }
  return found;
}

async function notFound(ctx: FsContext, path: CheckedPath): Promise<never> {
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
      ? ` Did you mean ${shown.map((name) => echo(name)).join(", ")}?`
      : folderExists
        ? ` Use ls on ${echo(dirname(path.input))} to see what is there.`
        : ` Its folder ${echo(folder)} does not exist either.`;
  throw new FsError(FsErrorCode.NOT_FOUND, `${echo(path.input)} does not exist (${echo(path.absolute)}).${hint}`, {
    path: path.absolute,
    // Core's contract for a refusal because a path does not exist: explanations judge this path.
    missing: path.absolute,
    suggestions: shown,
  });
}

const PROC_FD = existsSync("/proc/self/fd");

/** Where an open handle really is: `/proc/self/fd/N` on Linux, the path's real path elsewhere. */
export async function whereIs(handle: FileHandle, path: string): Promise<string> {
  return PROC_FD ? readlink(`/proc/self/fd/${handle.fd}`) : realpath(path);
}

export function handlePath(handle: FileHandle, path: string): string {
  return PROC_FD ? `/proc/self/fd/${handle.fd}` : path;
}

/** What a non-regular file is, for messages. */
export function kindOf(info: Stats): string {
  if (info.isFIFO()) return "a named pipe (FIFO)";
  if (info.isSocket()) return "a socket";
  if (info.isCharacterDevice()) return "a character device";
  if (info.isBlockDevice()) return "a block device";
  if (info.isDirectory()) return "a folder";
  return "not a regular file";
}

/**
 * The content of `path` if it is a regular file (else undefined), opened non-blocking so a FIFO
 * in its place never holds a thread of the pool.
 */
export async function readRegularFile(path: string): Promise<Buffer | undefined> {
  const file = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    return (await file.stat()).isFile() ? await file.readFile() : undefined;
  } finally {
    await file.close();
  }
}
