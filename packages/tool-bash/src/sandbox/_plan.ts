import { chmodSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { PolicyService } from "@toolhost/core";
import { isInside } from "@toolhost/core";
import { mountAliases } from "./_mount-aliases.js";

/** What a sandboxed call may do, from the tool's options. */
export interface SandboxSettings {
  bwrap: string;
  /** The project folder: always visible, and the root the policy is asked about. */
  workspace: string;
  /** Absolute folders commands may write to (those that do not exist are left out). */
  writable: readonly string[];
  network: "on" | "off";
  /** More folders to keep visible though they lie under /tmp (the full-output files). */
  visible: readonly string[];
}

/** The mounts of one call, and what they mean, for its details and notes. */
export interface SandboxPlan {
  /** bwrap's arguments before `--`. */
  args: string[];
  writable: string[];
  /** Paths inside the writable folders that stay read-only: `.git`, and what the policy denies to write. */
  readOnly: string[];
  /** Paths the policy denies to read, in the writable folders and anywhere else: they read as empty. */
  hidden: string[];
  /** The policy's deny-read patterns no mount can cover (a name at any depth outside the writable folders). */
  unbounded: string[];
  network: "on" | "off";
}

/** The policy could not say what to hide, or a path cannot be hidden: the call is refused. */
export class SandboxSetupError extends Error {}

/** A directory walk for hard links stops here: a tree this big cannot be searched per call. */
const MAX_WALK = 100_000;
const TMP = "/tmp";

/**
 * The mounts for one call, in the order bwrap applies them (a later mount covers an earlier):
 * the whole system read-only, a fresh /dev and /proc, a private /tmp, the writable folders,
 * `.git` and the policy's write-denied paths read-only again, then every read-denied path covered
 * by an empty file or folder.
 */
export async function planSandbox(
  settings: SandboxSettings,
  cwd: string,
  policy: PolicyService | undefined,
): Promise<SandboxPlan> {
  const writable = unique(settings.writable.map(existingReal).filter((path): path is string => path !== undefined));
  const roots = outermost([existingReal(settings.workspace) ?? settings.workspace, ...writable]);
  const { denyRead, denyWrite, outside, unbounded } = await askPolicy(policy, roots);

  const args = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", TMP];
  // What a private /tmp would cover but commands need to see.
  const shown: string[] = [];
  for (const path of unique([settings.workspace, cwd, ...settings.visible].map(existingReal))) {
    if (path !== undefined && isInside(path, TMP)) shown.push(path);
  }
  for (const path of shown) args.push("--ro-bind", path, path);
  for (const path of writable) args.push("--bind", path, path);

  const readOnly: string[] = [];
  for (const root of writable) {
    const git = join(root, ".git");
    if (exists(git) && !writable.some((path) => isInside(path, git))) readOnly.push(git);
  }
  // At its real path (a symlink leading out of the writable folders needs nothing: it is read-only there).
  for (const path of denyWrite.map(existingReal)) {
    if (path !== undefined && writable.some((root) => isInside(path, root))) readOnly.push(path);
  }
  for (const path of unique(readOnly)) args.push("--ro-bind", path, path);

  // In the writable folders and outside them: what the policy denies, under every name a bind
  // mount gives it; what the private /tmp covers already needs nothing.
  const visible = [...shown, ...writable];
  // Each at its real path: a mount follows symlinks anyway, and bwrap cannot mount on an absolute
  // symlink (it resolves it outside the new root).
  const denied = unique([...denyRead, ...hardLinksOf(denyRead, roots), ...outside].map(existingReal).filter((path): path is string => path !== undefined));
  const hide = outermostHidden(
    unique([...denied, ...mountAliases(denied)]).filter((path) => !isInside(path, TMP) || visible.some((shown) => isInside(path, shown))),
  );
  const hidden: string[] = [];
  const empty = hiddenPathsExist(hide) ? emptyPlaceholders() : undefined;
  for (const path of hide) {
    const stat = statIf(path);
    if (!stat || !empty) continue;
    hidden.push(path);
    args.push("--ro-bind", stat.isDirectory() ? empty.dir : empty.file, path);
  }

  args.push("--unshare-pid", "--die-with-parent", "--new-session", "--cap-drop", "ALL");
  if (settings.network === "off") args.push("--unshare-net");
  args.push("--setenv", "TMPDIR", TMP, "--chdir", cwd);
  return { args, writable, readOnly: unique(readOnly), hidden, unbounded, network: settings.network };
}

interface Protected {
  denyRead: string[];
  denyWrite: string[];
  /** Denied to read outside the roots. */
  outside: string[];
  unbounded: string[];
}

async function askPolicy(policy: PolicyService | undefined, roots: readonly string[]): Promise<Protected> {
  const found: Protected = { denyRead: [], denyWrite: [], outside: [], unbounded: [] };
  if (!policy) return found;
  for (const root of roots) {
    let paths: Awaited<ReturnType<PolicyService["protectedPaths"]>>;
    try {
      paths = await policy.protectedPaths(root, { confined: true });
    } catch (error) {
      throw new SandboxSetupError(`the policy could not list the paths it protects under ${root}: ${(error as Error)?.message ?? String(error)}`);
    }
    found.denyRead.push(...paths.denyRead);
    found.denyWrite.push(...paths.denyWrite);
  }
  if (policy.deniedReads) {
    try {
      const elsewhere = await policy.deniedReads({ roots: [...roots], tool: "bash" });
      found.outside.push(...elsewhere.paths);
      found.unbounded.push(...elsewhere.unbounded);
    } catch (error) {
      throw new SandboxSetupError(`the policy could not list the paths it denies to read outside ${roots.join(", ")}: ${(error as Error)?.message ?? String(error)}`);
    }
  }
  return found;
}

/** The paths to hide, less those inside a hidden folder (its empty copy covers them). */
function outermostHidden(paths: readonly string[]): string[] {
  const folders = paths.filter((path) => statIf(path)?.isDirectory());
  return paths.filter((path) => !folders.some((folder) => folder !== path && isInside(path, folder)));
}

/**
 * Other names of read-denied files (hard links): found under the roots, they are hidden too. A
 * file with more links than are found has a name the sandbox cannot cover, so the call is refused.
 */
function hardLinksOf(paths: readonly string[], roots: readonly string[]): string[] {
  const wanted = new Map<string, { path: string; links: number }>();
  for (const path of paths) {
    const stat = lstatIf(path);
    if (stat?.isFile() && stat.nlink > 1) wanted.set(`${stat.dev}:${stat.ino}`, { path, links: stat.nlink });
  }
  if (wanted.size === 0) return [];
  const found = new Map<string, string[]>();
  let walked = 0;
  const walk = (folder: string): void => {
    let entries: import("node:fs").Dirent[];
    try {
      entries = readdirSync(folder, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      if (++walked > MAX_WALK) {
        throw new SandboxSetupError(`a file the policy denies to read has hard links, and ${roots.join(", ")} is too big to search for them (over ${MAX_WALK.toLocaleString("en-US")} entries). Remove the extra links.`);
      }
      const path = join(folder, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile()) {
        const stat = lstatIf(path);
        const key = stat && `${stat.dev}:${stat.ino}`;
        if (key && wanted.has(key)) found.set(key, [...(found.get(key) ?? []), path]);
      }
    }
  };
  for (const root of roots) walk(root);
  const links: string[] = [];
  for (const [key, { path, links: count }] of wanted) {
    const names = unique(found.get(key) ?? []);
    if (names.length < count) {
      throw new SandboxSetupError(`${path}, which the policy denies to read, has ${count} hard links and only ${names.length} are under ${roots.join(", ")}; the others cannot be hidden. Remove the other links.`);
    }
    links.push(...names);
  }
  return links;
}

let placeholders: { file: string; dir: string } | undefined;

/** An empty read-only file and folder, made once per process, removed when it exits. */
function emptyPlaceholders(): { file: string; dir: string } {
  if (placeholders && exists(placeholders.file) && exists(placeholders.dir)) return placeholders;
  const folder = mkdtempSync(join(tmpdir(), "toolhost-bash-empty-"));
  const file = join(folder, "file");
  const dir = join(folder, "dir");
  writeFileSync(file, "", { mode: 0o400 });
  mkdirSync(dir, { mode: 0o500 });
  placeholders = { file, dir };
  process.once("exit", () => {
    try {
      chmodSync(dir, 0o700);
      rmSync(folder, { recursive: true, force: true });
    } catch {
      // Gone already.
    }
  });
  return placeholders;
}

/** The real path of an existing path, else undefined. */
export function existingReal(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}


/** The paths none of the others contain. */
function outermost(paths: readonly string[]): string[] {
  const all = unique(paths);
  return all.filter((path) => !all.some((other) => other !== path && isInside(path, other)));
}

function unique<T>(values: readonly T[]): T[] {
  return [...new Set(values)];
}

function lstatIf(path: string): import("node:fs").Stats | undefined {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}

function statIf(path: string): import("node:fs").Stats | undefined {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}

function hiddenPathsExist(paths: readonly string[]): boolean {
  return paths.some((path) => statIf(path) !== undefined);
}

function exists(path: string): boolean {
  return lstatIf(path) !== undefined;
}

