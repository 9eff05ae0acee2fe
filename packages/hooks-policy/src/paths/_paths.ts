import { lstatSync, readFileSync, readlinkSync, realpathSync } from "node:fs";
import { homedir, userInfo } from "node:os";
import { dirname, isAbsolute, join, resolve, sep } from "node:path";
import { lazyGlob } from "./_lazy-glob.js";

/** A path as the policy judges it: where it points before and after following symlinks. */
export type NormalizedPath =
  | { ok: true; lexical: string; real: string }
  | { ok: false; reason: string; deny: boolean };

/**
 * `resolve(base, value)` of node:path, without its cost where nothing is to be folded: a value
 * that is absolute and clean is itself, a clean relative one is joined to a clean absolute base
 * (clean: no empty, `.` or `..` segment, no trailing slash); anything else is node's to resolve.
 * A decision resolves each word against each folder, several times over.
 */
export function resolvePath(base: string, value: string): string {
  if (sep === "/" && clean(value)) {
    if (value.charCodeAt(0) === SLASH) return value;
    if (base === "/") return `/${value}`;
    if (base.charCodeAt(0) === SLASH && clean(base)) return `${base}/${value}`;
  }
  return resolve(base, value);
}

const SLASH = 47;
const DOT = 46;

/** A path that resolving leaves as it is: not empty, no empty segment but a leading `/`, no `.` or `..` segment, no trailing slash. */
function clean(path: string): boolean {
  const size = path.length;
  if (size === 0 || path.charCodeAt(size - 1) === SLASH) return false;
  let start = 0;
  for (let i = 0; i <= size; i++) {
    if (i < size && path.charCodeAt(i) !== SLASH) continue;
    const length = i - start;
    if (length === 0 && i !== 0) return false;
    if (length === 1 && path.charCodeAt(start) === DOT) return false;
    if (length === 2 && path.charCodeAt(start) === DOT && path.charCodeAt(start + 1) === DOT) return false;
    start = i + 1;
  }
  return true;
}

/**
 * Normalizes a path argument: refuses NUL bytes, expands `~` (when `tilde`), resolves it against
 * `cwd`, folds `.` and `..`, and follows the symlinks of the part that exists (so `..` after a
 * symlink goes where the system would go).
 */
export function normalizePath(input: string, cwd: string, tilde = true): NormalizedPath {
  if (input.includes("\0")) return { ok: false, reason: "the path contains a NUL byte", deny: true };
  let path = input;
  if (tilde && path.startsWith("~")) {
    const slash = path.indexOf("/");
    const user = slash === -1 ? path.slice(1) : path.slice(1, slash);
    const expanded = user === "" || user === currentUser() ? homedir() + (slash === -1 ? "" : path.slice(slash)) : user === "+" || user === "-" ? undefined : expandTilde(path, homedir(), cwd);
    if (expanded === undefined) return { ok: false, reason: `the home folder of "${user}" (${path}) is not known to the policy`, deny: false };
    path = expanded;
  }
  if (path === "") return { ok: false, reason: "the path is empty", deny: false };
  const lexical = resolvePath(cwd, path);
  const aliased = procAlias(lexical, cwd);
  if (aliased === undefined) return { ok: false, reason: `${path} reaches a file through another process's folder or a descriptor, known only at run time`, deny: false };
  if (aliased !== lexical) return normalizePath(aliased, cwd, false);
  const hasDotDot = path.includes("..") && path.split("/").includes("..");
  return { ok: true, lexical, real: hasDotDot ? walkReal(isAbsolute(path) ? path : `${cwd}${sep}${path}`) : recentRealOf(lexical) };
}

/**
 * Where a folder given to `cd` leads, cheaply: symlinks are left for the path judged later to
 * resolve, except that `..` is walked as the system walks it. Undefined when it cannot be known.
 */
export function folderOf(input: string, cwd: string, tilde = true): string | undefined {
  if (!input.includes("..") || !input.split("/").includes("..")) {
    if (input.includes("\0")) return undefined;
    if (tilde && input.startsWith("~")) {
      const expanded = expandTilde(input, homedir(), cwd);
      return expanded === undefined ? undefined : resolve(expanded);
    }
    return resolve(cwd, input);
  }
  const where = normalizePath(input, cwd, tilde);
  return where.ok ? where.real : undefined;
}

/**
 * Where `cd "$(git rev-parse --show-toplevel)"` goes from `cwd`: the nearest folder above it (or
 * itself) that holds `.git`; outside a repository git prints nothing and `cd ""` stays where it is.
 * Undefined when the host's environment points git elsewhere (`GIT_DIR`, `GIT_WORK_TREE`,
 * `GIT_CEILING_DIRECTORIES`): the folder is then known only at run time.
 */
export function gitTopOf(cwd: string, env: Readonly<Record<string, string | undefined>> = process.env): string | undefined {
  if (env.GIT_DIR !== undefined || env.GIT_WORK_TREE !== undefined || env.GIT_CEILING_DIRECTORIES !== undefined) return undefined;
  return nearestGit(cwd) ?? cwd;
}

/** The nearest folder at or above `start` that holds `.git` (a folder, or a worktree's file), as git's discovery finds it. */
export function nearestGit(start: string): string | undefined {
  for (let folder = start; ; folder = dirname(folder)) {
    if (lstatSync(join(folder, ".git"), { throwIfNoEntry: false }) !== undefined) return folder;
    if (dirname(folder) === folder) return undefined;
  }
}

/**
 * A word's leading tilde as bash expands it: `~` and `~/…` (and `~` of the current user) are
 * `home`, `~+` is `cwd`; another user's `~name` is that user's home as /etc/passwd says, else
 * /home/name (another user's files either way, never the workspace); `~-` (the folder before the
 * last cd) is undefined: known only at run time.
 */
export function expandTilde(value: string, home: string, cwd: string): string | undefined {
  if (!value.startsWith("~")) return value;
  const slash = value.indexOf("/");
  const name = slash === -1 ? value.slice(1) : value.slice(1, slash);
  const rest = slash === -1 ? "" : value.slice(slash);
  if (name === "" || name === currentUser()) return home + rest;
  if (name === "+") return cwd + rest;
  if (name === "-" || !/^[A-Za-z0-9._-]+$/.test(name)) return undefined;
  return homeOf(name) + rest;
}

function homeOf(name: string): string {
  try {
    for (const line of readFileSync("/etc/passwd", "utf8").split("\n")) {
      const fields = line.split(":");
      if (fields[0] === name && fields[5]) return fields[5];
    }
  } catch {
    // no passwd file: the usual place
  }
  return `/home/${name}`;
}

let user: string | undefined;
function currentUser(): string {
  if (user === undefined) {
    try {
      user = userInfo().username;
    } catch {
      user = "";
    }
  }
  return user;
}

/**
 * The real path of the longest existing prefix, with the rest appended. A dangling symlink is
 * followed to where it points (writing through it creates its target).
 */
export function realOf(path: string, hops = 0): string {
  let head = path;
  let tail = "";
  while (lstatSync(head, { throwIfNoEntry: false }) === undefined) {
    const parent = dirname(head);
    if (parent === head) return path;
    const name = head.slice(parent.length + (parent.endsWith(sep) ? 0 : 1));
    tail = tail === "" ? name : join(name, tail);
    head = parent;
  }
  let real: string;
  try {
    real = realpathSync.native(head);
  } catch {
    // A dangling symlink (or a loop): go where it points, a bounded number of times.
    if (hops >= 40) return path;
    try {
      real = realOf(resolve(dirname(head), readlinkSync(head)), hops + 1);
    } catch {
      return path;
    }
  }
  return tail === "" ? real : join(real, tail);
}

/** Follows the path component by component, as the system does, so `link/..` leaves the link's target. */
function walkReal(path: string): string {
  let current: string = sep;
  let exists = true;
  for (const segment of path.split(sep)) {
    if (segment === "" || segment === ".") continue;
    if (segment === "..") {
      current = dirname(current);
      continue;
    }
    current = join(current, segment);
    if (exists) {
      try {
        current = realpathSync(current);
      } catch {
        exists = false;
      }
    }
  }
  return current;
}

/** Where `${workspace}` and `~` point, both as given and with symlinks followed. */
export interface PathAnchors {
  workspaces: string[];
  homes: string[];
}

export function anchorsOf(workspace: string): PathAnchors {
  const home = homedir();
  return { workspaces: unique([workspace, realOf(workspace)]), homes: unique([home, realOf(home)]) };
}

/**
 * Compiles a path pattern (see README): `${workspace}/…` at the workspace, `~/…` at the home
 * folder, `/…` at the root, a pattern without `/` a name at any depth (a folder of that name
 * covers what is inside), any other relative pattern relative to the workspace.
 */
export function compilePathPattern(pattern: string, anchors: PathAnchors): (path: string) => boolean {
  const matchers = globsOf(pattern, anchors).map((glob) => lazyGlob(glob));
  return (path) => matchers.some((matcher) => matcher(path));
}

/** The globs a path pattern stands for (see `compilePathPattern`): absolute, but relative (a globstar, then the name) for a name at any depth; anchors escaped. */
export function globsOf(pattern: string, anchors: PathAnchors): string[] {
  let body = pattern;
  if (body.length > 1 && body.endsWith("/")) body = `${body}**`;
  let globs: string[];
  if (body.startsWith("${workspace}")) {
    const rest = body.slice("${workspace}".length);
    globs = anchors.workspaces.map((base) => escapeGlob(base) + rest);
  } else if (body === "~" || body.startsWith("~/")) {
    globs = anchors.homes.map((base) => escapeGlob(base) + body.slice(1));
  } else if (body.startsWith("/")) {
    globs = [body];
  } else if (!body.includes("/")) {
    globs = [`**/${body}`, `**/${body}/**`];
  } else {
    const rest = body.startsWith("./") ? body.slice(2) : body;
    globs = anchors.workspaces.map((base) => `${escapeGlob(base)}/${rest}`);
  }
  return globs;
}

function escapeGlob(path: string): string {
  return path.replace(/[*?[\]{}()!+@\\]/g, "\\$&");
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}

/**
 * Paths a path pattern matches, made by filling its globs (`*.pem` → `x.pem`): what a glob word
 * of a command (`.e*`, `~/.ssh/*`) is compared with to tell whether it could name such a path.
 * A name pattern (no `/`) is placed in `folder`.
 */
export function samplesOf(pattern: string, anchors: PathAnchors, folder: string): string[] {
  const fill = (glob: string): string =>
    glob
      .replace(/\{([^,}]*)[^}]*\}/g, "$1")
      .replace(/\[!?\^?([^\]])[^\]]*\]/g, "$1")
      .replace(/\*+/g, "x")
      .replace(/\?/g, "x");
  let body = pattern;
  if (body.length > 1 && body.endsWith("/")) body = `${body}x`;
  if (body.startsWith("${workspace}")) return anchors.workspaces.map((base) => base + fill(body.slice("${workspace}".length)));
  if (body === "~" || body.startsWith("~/")) return anchors.homes.map((base) => base + fill(body.slice(1)));
  if (body.startsWith("/")) return [fill(body)];
  if (!body.includes("/")) return [join(folder, fill(body))];
  const rest = body.startsWith("./") ? body.slice(2) : body;
  return anchors.workspaces.map((base) => `${base}/${fill(rest)}`);
}

/** How long a looked-up symlink target is reused, at most. */
export const LINK_TTL_MS = 1000;
const MAX_REMEMBERED = 4096;
const remembered = new Map<string, { real: string | undefined; at: number; epoch: number }>();
const rememberedReal = new Map<string, { real: string; at: number; epoch: number }>();
let epoch = 0;

/**
 * Forgets every look-up made so far (symlink targets, and the trees' checks that reuse them): called
 * before a call is judged to run, so nothing a call before it did (a link made, a folder swapped)
 * is judged from an older look-up. An explanation, which runs nothing, keeps them.
 */
export function forgetLookups(): void {
  epoch += 1;
}

/** The look-ups' generation: a remembered answer of another one is not reused. */
export function lookupEpoch(): number {
  return epoch;
}

/** `realOf`, remembered for a second, until `forgetLookups` (see `existingReal`). */
export function recentRealOf(path: string): string {
  const now = Date.now();
  const found = rememberedReal.get(path);
  if (found && found.epoch === epoch && now - found.at < LINK_TTL_MS) return found.real;
  const real = realOf(path);
  if (rememberedReal.size >= MAX_REMEMBERED) rememberedReal.clear();
  rememberedReal.set(path, { real, at: now, epoch });
  return real;
}

/**
 * Where an existing path leads with symlinks followed (undefined when nothing exists there, so
 * reading it reveals nothing), remembered for a second within one generation of look-ups: a command
 * names the same files again and again, and explaining a transcript judges many calls in a row,
 * and each look-up costs system calls. A call to be run is judged anew (`forgetLookups`): a batch
 * that links a file and then writes through it is judged by the link.
 */
export function existingReal(path: string): string | undefined {
  const now = Date.now();
  const found = remembered.get(path);
  if (found && found.epoch === epoch && now - found.at < LINK_TTL_MS) return found.real;
  let real: string | undefined;
  try {
    real = realpathSync.native(path);
  } catch {
    real = lstatSync(path, { throwIfNoEntry: false }) ? realOf(path) : undefined;
  }
  if (remembered.size >= MAX_REMEMBERED) remembered.clear();
  remembered.set(path, { real, at: now, epoch });
  return real;
}

/**
 * A path through `/proc` to another place, as the command's process would see it:
 * `/proc/self/root/etc/shadow` is `/etc/shadow`, `/proc/self/cwd/.env` is `.env` in `cwd`, the
 * path itself when it goes through no such folder, undefined when where it leads is known only at
 * run time (another process's `cwd`, a file descriptor).
 */
export function procAlias(path: string, cwd: string): string | undefined {
  if (!path.startsWith("/proc/") && !path.startsWith("/dev/fd/")) return path;
  const match = /^\/proc\/(self|thread-self|\d+)(?:\/task\/\d+)?\/(root|cwd|fd\/\d+)(\/.*)?$/.exec(path);
  if (!match) {
    const descriptor = /^\/dev\/fd\/(\d+)(\/.*)?$/.exec(path);
    return descriptor && Number(descriptor[1]) > 2 ? undefined : path;
  }
  const [, process, through, rest = ""] = match;
  if (through === "root") return rest === "" ? "/" : resolve("/", rest.slice(1));
  if (through === "cwd" && (process === "self" || process === "thread-self")) return resolve(cwd, rest.slice(1) || ".");
  return undefined;
}
