import { mkdirSync, readFileSync, realpathSync, renameSync, statSync, writeFileSync } from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { ToolhostError } from "../errors.js";
import { isInside } from "../paths.js";
import { ConfigErrorCode } from "./errors.js";
import { userConfigDir } from "./owners.js";
import { unsafeFileReason } from "./safety.js";

// The user's trusted folders: where code may come from (a JS/TS config, a plugin by path, the
// packages installed in a project, an MCP server's command). Kept in the user's config folder, so
// trust is per user: another user's list never counts for us.

/** The file that lists the user's trusted folders, in the user's config folder. */
export const TRUST_FILE = "trusted-folders.json";

/** The user's trusted folders, as read. */
export interface TrustedFolders {
  /** The file they are kept in (it need not exist). */
  file: string;
  /** The folders, absolute and real; each trusts itself and everything below it. */
  folders: string[];
  /** Why the file was not read (not JSON, writable by another user): then no folder is trusted. */
  problem?: string;
}

/** The file of the trusted folders: `<user config folder>/trusted-folders.json`. */
export function trustFile(env: NodeJS.ProcessEnv = process.env): string {
  return join(userConfigDir(env), TRUST_FILE);
}

/** Reads the user's trusted folders. Never throws: a file that cannot be used trusts nothing, and says why. */
export function readTrustedFolders(env: NodeJS.ProcessEnv = process.env): TrustedFolders {
  const file = trustFile(env);
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === "ENOENT" ? { file, folders: [] } : { file, folders: [], problem: `${file} could not be read (${code ?? "error"})` };
  }
  const unsafe = unsafeFileReason(file);
  if (unsafe) return { file, folders: [], problem: `${unsafe}, so toolhost does not read the trusted folders it lists` };
  try {
    const value = JSON.parse(text) as { folders?: unknown };
    const folders = Array.isArray(value.folders) ? value.folders.filter((item): item is string => typeof item === "string" && isAbsolute(item)) : [];
    // Kept real by `trustFolder`; a folder written by hand through a link is made real here.
    return { file, folders: folders.map(realOrResolved) };
  } catch (error) {
    return { file, folders: [], problem: `${file} is not valid JSON (${(error as Error).message})` };
  }
}

function realOrResolved(folder: string): string {
  try {
    return realpathSync.native(folder);
  } catch {
    return resolve(folder);
  }
}

/** The trusted folder `folder` (absolute, real) lies in, or undefined when it lies in none. */
export function trustedFolderOf(folder: string, trusted: readonly string[]): string | undefined {
  return trusted.find((each) => isInside(folder, each));
}

/** `folder` as trust records it: absolute and real. Throws TOOLHOST_TRUST_FOLDER when it is not an existing folder. */
export function realFolder(folder: string): string {
  const path = resolve(folder);
  let real: string;
  try {
    real = realpathSync.native(path);
  } catch {
    throw new ToolhostError(ConfigErrorCode.TRUST_FOLDER, `${path} does not exist: give an existing folder to trust.`);
  }
  if (!statSync(real).isDirectory()) throw new ToolhostError(ConfigErrorCode.TRUST_FOLDER, `${real} is not a folder: give the project's folder to trust.`);
  return real;
}

/**
 * Adds `folder` (made absolute and real) to the user's trusted folders; `added` is false when it
 * was trusted already (itself, or a folder above it). Refuses (TOOLHOST_UNSAFE_FILE) a folder that
 * another user can change: its code would still be refused, whoever trusted it.
 */
export function trustFolder(folder: string, env: NodeJS.ProcessEnv = process.env): { folder: string; file: string; added: boolean; coveredBy?: string } {
  const real = realFolder(folder);
  const unsafe = unsafeFileReason(real);
  if (unsafe) {
    throw new ToolhostError(
      ConfigErrorCode.UNSAFE_FILE,
      `${unsafe}: toolhost runs no code that another user can change, trusted or not, so ${real} was not trusted. Work in a folder of your own (or have its owner run toolhost there).`,
    );
  }
  const store = writableStore(env);
  const coveredBy = trustedFolderOf(real, store.folders);
  if (coveredBy !== undefined) return { folder: real, file: store.file, added: false, coveredBy };
  writeStore(store.file, [...store.folders, real]);
  return { folder: real, file: store.file, added: true };
}

/** Removes `folder` from the user's trusted folders; `removed` is false when it was not listed (a folder above it may still trust it: `coveredBy`). */
export function untrustFolder(folder: string, env: NodeJS.ProcessEnv = process.env): { folder: string; file: string; removed: boolean; coveredBy?: string } {
  let real: string;
  try {
    real = realFolder(folder);
  } catch {
    real = resolve(folder);
  }
  const store = writableStore(env);
  const kept = store.folders.filter((each) => each !== real);
  if (kept.length !== store.folders.length) writeStore(store.file, kept);
  const coveredBy = trustedFolderOf(real, kept);
  return { folder: real, file: store.file, removed: kept.length !== store.folders.length, ...(coveredBy !== undefined && { coveredBy }) };
}

/** The list as it is, to change it; a file that cannot be read is not overwritten. */
function writableStore(env: NodeJS.ProcessEnv): TrustedFolders {
  const store = readTrustedFolders(env);
  if (store.problem !== undefined) {
    throw new ToolhostError(ConfigErrorCode.UNSAFE_FILE, `${store.problem}. Fix or remove ${store.file}, then run this again.`);
  }
  return store;
}

/** Writes the list whole or not at all, readable by the user alone. */
function writeStore(file: string, folders: readonly string[]): void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify({ folders }, null, 2)}\n`, { mode: 0o600 });
  renameSync(temporary, file);
}
