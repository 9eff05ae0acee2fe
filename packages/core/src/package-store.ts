import { createHash } from "node:crypto";
import { closeSync, fstatSync, lstatSync, openSync, readFileSync, readSync, readdirSync, realpathSync, type Stats } from "node:fs";
import { homedir } from "node:os";
import { dirname, join, resolve } from "node:path";

/*
 * Package stores: pnpm links the files of `node_modules/.pnpm` to its content-addressed store
 * (`<store>/v10/files/ab/<the rest of the SHA-512 of the content, in hex>`, `-exec` for an
 * executable). Such a file has a name outside any project, so a tool that refuses hard links with a
 * name it cannot see (tool-fs's read, tool-bash's sandbox) would refuse every pnpm project. A file
 * proven to be a store copy is public package content and may be shown (not written: a write
 * changes the store). The proof is here, in one place, for every tool.
 */

/** What a proof needs of a file: its `lstat` (of the name the tool found, or of the handle it opened). */
export type StoreCopyStat = Pick<Stats, "dev" | "ino" | "size" | "nlink" | "ctimeMs" | "isFile">;

/** Proofs kept per process, by identity (device, inode, size, change time: a write changes the time). */
const MAX_PROOFS = 262_144;
const proofs = new Map<string, boolean>();
/** A store's version folders, looked up again after this long (a new pnpm version makes a new one). */
const FOLDERS_MS = 10_000;
const folderCache = new Map<string, { at: number; files: Array<{ path: string; dev: number }> }>();
const trustCache = new Map<string, { at: number; trusted: boolean }>();
/** Bytes read at a time while hashing. */
const CHUNK = 1024 * 1024;

/**
 * The store folders pnpm uses by default for this user and for root, and `extra` (a project's
 * `storeDir`, see `projectStoreFolder`): `$PNPM_HOME/store`, `$XDG_DATA_HOME/pnpm/store`
 * (`~/.local/share/pnpm/store`), `~/.cache/pnpm`, `/root/.local/share/pnpm/store`. Each is trusted
 * only when a proof finds it owned by this user or root and writable by no one else.
 */
export function packageStoreFolders(env: Record<string, string | undefined> = process.env, extra: readonly string[] = []): string[] {
  const home = env.HOME ?? homedir();
  const data = env.XDG_DATA_HOME ?? join(home, ".local", "share");
  const cache = env.XDG_CACHE_HOME ?? join(home, ".cache");
  const folders = [
    ...(env.PNPM_HOME ? [join(env.PNPM_HOME, "store")] : []),
    join(data, "pnpm", "store"),
    join(cache, "pnpm"),
    "/root/.local/share/pnpm/store",
    ...extra,
  ];
  return [...new Set(folders.map((folder) => resolve(folder)))];
}

/**
 * The `storeDir` a pnpm project's `node_modules/.modules.yaml` names, or undefined. The file is the
 * project's (anyone who can write the project can write it): a store it names is trusted only as
 * `isPackageStoreCopy` checks every store.
 */
export function projectStoreFolder(project: string): string | undefined {
  let text: string;
  try {
    text = readFileSync(join(project, "node_modules", ".modules.yaml"), "utf8");
  } catch {
    return undefined;
  }
  const match = /^\s*"?storeDir"?\s*:\s*"?([^"\n]+?)"?\s*,?\s*$/m.exec(text);
  return match?.[1] !== undefined && match[1].startsWith("/") ? match[1] : undefined;
}

/**
 * Whether `path` (whose `lstat` is `stat`) is a copy in a package store: a regular file with more
 * than one name, one of them `<store>/v*∕files/<2 hex>/<126 hex>[-exec]` in one of `stores`, where
 * the hex is the SHA-512 of the file's content and that name is the same file (device and inode),
 * and the store's folders, up to `/`, are owned by this user or root and writable by no one else.
 * Costs nothing for a file on no store's device; else the first time a hash of the content (about
 * 1 ms per MB), then a map look-up while the file's identity and change time stay the same.
 */
export function isPackageStoreCopy(path: string, stat: StoreCopyStat, stores: readonly string[] = packageStoreFolders()): boolean {
  return checkPackageStoreCopy(path, stat, stores) === "copy";
}

/**
 * `isPackageStoreCopy` within a budget of bytes to hash (decreased by what it hashes): "copy",
 * "not", or "unchecked" when proving it would hash more than is left (a tool that checks many
 * files per call bounds the cost of its first call; the proofs made stay known).
 */
export function checkPackageStoreCopy(path: string, stat: StoreCopyStat, stores: readonly string[], budget: { bytes: number } = { bytes: Number.POSITIVE_INFINITY }): "copy" | "not" | "unchecked" {
  if (!stat.isFile() || stat.nlink < 2) return "not";
  const candidates = stores.flatMap(filesFolders).filter((folder) => folder.dev === stat.dev);
  if (candidates.length === 0) return "not";
  const key = `${stat.dev}:${stat.ino}:${stat.size}:${stat.ctimeMs}:${candidates.map((folder) => folder.path).join("\0")}`;
  const known = proofs.get(key);
  if (known !== undefined) return known ? "copy" : "not";
  if (stat.size > budget.bytes) return "unchecked";
  budget.bytes -= stat.size;
  const proven = prove(path, stat, candidates);
  if (proofs.size >= MAX_PROOFS) proofs.clear();
  proofs.set(key, proven);
  return proven ? "copy" : "not";
}

function prove(path: string, stat: StoreCopyStat, candidates: ReadonlyArray<{ path: string }>): boolean {
  const hex = sha512Of(path, stat);
  if (hex === undefined) return false;
  for (const { path: files } of candidates) {
    for (const name of [hex.slice(2), `${hex.slice(2)}-exec`]) {
      const stored = join(files, hex.slice(0, 2), name);
      const found = lstatSync(stored, { throwIfNoEntry: false });
      if (found?.isFile() && found.dev === stat.dev && found.ino === stat.ino && trustedFolders(dirname(stored))) return true;
    }
  }
  return false;
}

/** The SHA-512 of the file's content in hex, read from a handle that is still the file `stat` describes; undefined otherwise. */
function sha512Of(path: string, stat: StoreCopyStat): string | undefined {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch {
    return undefined;
  }
  try {
    const opened = fstatSync(fd);
    if (!opened.isFile() || opened.dev !== stat.dev || opened.ino !== stat.ino) return undefined;
    const hash = createHash("sha512");
    const buffer = Buffer.allocUnsafe(CHUNK);
    for (let read = readSync(fd, buffer, 0, CHUNK, null); read > 0; read = readSync(fd, buffer, 0, CHUNK, null)) hash.update(buffer.subarray(0, read));
    return hash.digest("hex");
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** The `files` folders of a store (`<store>/files`, or `<store>/v*∕files`), with their devices; looked up again every few seconds. */
function filesFolders(store: string): Array<{ path: string; dev: number }> {
  const now = Date.now();
  const cached = folderCache.get(store);
  if (cached && now - cached.at < FOLDERS_MS) return cached.files;
  const files: Array<{ path: string; dev: number }> = [];
  const add = (folder: string): void => {
    const found = lstatSync(join(folder, "files"), { throwIfNoEntry: false });
    if (found?.isDirectory()) files.push({ path: join(folder, "files"), dev: found.dev });
  };
  let real: string | undefined;
  try {
    real = realpathSync(store);
  } catch {
    real = undefined;
  }
  if (real !== undefined) {
    add(real);
    try {
      for (const entry of readdirSync(real, { withFileTypes: true })) if (entry.isDirectory() && /^v\d+$/.test(entry.name)) add(join(real, entry.name));
    } catch {
      // Not a folder: no store.
    }
  }
  folderCache.set(store, { at: now, files });
  return files;
}

/**
 * Whether a folder and each above it is owned by this user or root and writable by no one else
 * (no one else can have put a file there); root's sticky folders (`/tmp`) pass: no one else can
 * rename or remove what is in them.
 */
function trustedFolders(folder: string): boolean {
  const now = Date.now();
  const cached = trustCache.get(folder);
  if (cached && now - cached.at < FOLDERS_MS) return cached.trusted;
  const uid = process.getuid?.() ?? 0;
  let trusted = true;
  for (let at = folder; ; at = dirname(at)) {
    const found = lstatSync(at, { throwIfNoEntry: false });
    const othersWrite = (found?.mode ?? 0) & 0o022;
    const stickyOfRoot = found?.uid === 0 && ((found?.mode ?? 0) & 0o1000) !== 0;
    if (!found?.isDirectory() || (found.uid !== uid && found.uid !== 0) || (othersWrite !== 0 && !stickyOfRoot)) {
      trusted = false;
      break;
    }
    if (at === dirname(at)) break;
  }
  if (trustCache.size >= 4096) trustCache.clear();
  trustCache.set(folder, { at: now, trusted });
  return trusted;
}
