import { join, sep } from "node:path";
import { isInside } from "@toolhost/core";
import { type ControlFiles, controlFilesOf } from "./_control-files.js";
import { type HardLinks, coverLinked } from "./_hard-links.js";
import { SandboxSetupError, askPolicy, emptyPlaceholders, existingReal, exists, hardLinksOf, outermost, outermostHidden, statIf, unique } from "./_hide.js";
import { isolationArgs, procArgs } from "./_kernel.js";
import { mountAliases } from "./_mount-aliases.js";
import { readableDenied } from "./_readable-hidden.js";
import { systemView } from "./_system.js";
import type { SandboxSettings, SandboxUse } from "./_use.js";
import { withCommas } from "../_numbers.js";

export { SandboxSetupError } from "./_hide.js";

const TMP = "/tmp";

/** The mounts of one call, and what they mean, for its details, its notes and its confinement. */
export interface SandboxPlan {
  /** bwrap's arguments before `--`. */
  args: string[];
  root: SandboxSettings["root"];
  network: SandboxSettings["network"];
  writable: string[];
  /** What of the host it can read: the system folders and the folders added (minimal root), or `/` (host root). */
  readable: string[];
  /** Paths inside the writable folders that stay read-only: `.git`, and what the policy denies to write. */
  readOnly: string[];
  /** Paths the policy denies to read, and (minimal root) /etc's secret files: they read as empty. */
  hidden: string[];
  /** The policy's deny-read patterns no mount can cover (a name at any depth outside the writable folders). */
  unbounded: string[];
  /** Minimal root: files of the writable folders with a name elsewhere, when there are any. */
  hardLinks: HardLinks | undefined;
  /** The control files of the writable folders: those that exist are in `readOnly`; where none is, what the call creates is moved aside after it. */
  controlFiles: ControlFiles;
}

/** Where one call stands: its folder, its shell, and what must stay visible though it lies under /tmp (the full-output folder). */
export interface CallPlace {
  cwd: string;
  /** Programs the sandbox runs by path (the shell, prlimit): visible wherever they are. */
  programs: readonly string[];
  visible: readonly string[];
}

type BwrapUse = Extract<SandboxUse, { kind: "bwrap" }>;

/**
 * The mounts for one call, in the order bwrap applies them (a later mount covers an earlier): the
 * root (the system folders, or all of `/`), a fresh /dev, /proc and /tmp, (minimal) an empty home,
 * the readable and writable folders from the outermost in, `.git` and the policy's write-denied
 * paths read-only again, then every path to hide covered by an empty file or folder.
 */
export async function planSandbox(use: BwrapUse, place: CallPlace): Promise<SandboxPlan> {
  const { settings } = use;
  const minimal = settings.root === "minimal";
  const writable = unique(settings.writable.map(existingReal).filter(isDefined));
  const roots = outermost([existingReal(settings.workspace) ?? settings.workspace, ...writable]);
  const policyPaths = await askPolicy(use.policy(), roots);
  const args = minimal ? [...systemView().args] : ["--ro-bind", "/", "/"];
  args.push("--dev", "/dev", ...procArgs(emptyPlaceholders().file), ...tmpfs(TMP, settings));
  const folders = visibleFolders(settings, place, writable);
  if (minimal) args.push(...homeMount(settings, folders));
  for (const { path, write } of byDepth(folders)) args.push(write ? "--bind" : "--ro-bind", path, path);
  if (minimal) args.push(...lexicalNames([place.cwd, settings.workspace, ...settings.writable], folders));
  const controlFiles = controlFilesOf(writable, place.cwd, settings.home);
  const readOnly = outermost([...readOnlyInside(writable, policyPaths.denyWrite), ...controlFiles.readOnly]);
  for (const path of readOnly) args.push("--ro-bind", path, path);
  const hardLinks = minimal ? checkHardLinks(use, writable) : undefined;
  args.push(...coverLinked(hardLinks));
  const readableRoots = minimal ? folders.filter((f) => !f.system && !f.write).map((f) => f.path) : [];
  const elsewhere = await readableDenied(minimal ? use.policy() : undefined, readableRoots, minimal);
  const denyRead = [...policyPaths.denyRead, ...elsewhere.denyRead];
  const hidden = coverHidden(args, { ...policyPaths, denyRead, roots: minimal ? [...roots, ...readableRoots] : roots }, folders, minimal);
  // The minimal root's own folders (mount points, parents of the home folder) take no write either.
  if (minimal) args.push("--remount-ro", "/");
  args.push("--unshare-pid", ...isolationArgs(), "--die-with-parent", "--new-session", "--cap-drop", "ALL");
  if (minimal) args.push("--unshare-ipc");
  if (settings.network === "off") args.push("--unshare-net");
  args.push("--setenv", "TMPDIR", TMP, "--chdir", place.cwd);
  return {
    args,
    root: settings.root,
    network: settings.network,
    writable,
    readable: minimal ? folders.filter((folder) => !folder.write).map((folder) => folder.path) : ["/"],
    readOnly,
    hidden,
    unbounded: [...policyPaths.unbounded, ...elsewhere.unbounded],
    hardLinks,
    controlFiles,
  };
}

/** A folder (or file) the call sees at its own path: read-only, or writable; `system` for the root's own folders. */
interface Visible {
  path: string;
  write: boolean;
  system?: boolean;
}

/** Everything the call sees of the host besides /dev, /proc and its own /tmp. */
function visibleFolders(settings: SandboxSettings, place: CallPlace, writable: readonly string[]): Visible[] {
  const folders: Visible[] = writable.map((path) => ({ path, write: true }));
  const seen = (path: string): boolean => folders.some((folder) => isInside(path, folder.path));
  const add = (path: string | undefined): void => {
    if (path !== undefined && !seen(path)) folders.push({ path, write: false });
  };
  if (settings.root === "minimal") {
    for (const path of systemView().readable) folders.push({ path, write: false, system: true });
    for (const path of settings.readable) add(existingReal(path));
    // What the call needs though nobody named it: where it runs, the programs run by path, the name server's file.
    for (const path of [place.cwd, ...place.programs]) {
      const real = existingReal(path);
      if (real !== undefined && real !== TMP && real !== "/") add(real);
    }
    if (settings.network === "host") add(existingReal("/etc/resolv.conf"));
    for (const path of place.visible) add(existingReal(path));
    return folders;
  }
  // The host root shows everything but /tmp, whose private copy would hide the workspace or the folder of a call there.
  for (const path of [settings.workspace, place.cwd, ...place.visible]) {
    const real = existingReal(path);
    if (real !== undefined && isInside(real, TMP)) add(real);
  }
  return folders;
}

/** The folders in the order to mount them: a folder before what lies inside it, so that the inner mount wins. */
function byDepth(folders: readonly Visible[]): Visible[] {
  const depth = (path: string): number => path.split(sep).length;
  return folders.filter((folder) => !folder.system).sort((a, b) => depth(a.path) - depth(b.path));
}

/** A private tmpfs, as large as the call's memory limit (its pages are memory). */
function tmpfs(path: string, settings: SandboxSettings): string[] {
  const size = settings.limits?.values.memoryBytes;
  return size !== undefined && settings.sizedTmpfs ? ["--size", String(size), "--tmpfs", path] : ["--tmpfs", path];
}

/** Minimal root: the home folder as an empty tmpfs, unless a mounted folder holds it (the workspace is the home). */
function homeMount(settings: SandboxSettings, folders: readonly Visible[]): string[] {
  const home = settings.home;
  if (home === undefined || !home.startsWith(sep) || home === sep) return [];
  if (folders.some((folder) => isInside(home, folder.path))) return [];
  return tmpfs(home, settings);
}

/** Minimal root: a path named through a symlink (`/home/me` → `/data/me`) exists inside at that name too, as a symlink to where it leads. */
function lexicalNames(paths: readonly string[], folders: readonly Visible[]): string[] {
  const args: string[] = [];
  for (const path of unique(paths)) {
    const real = existingReal(path);
    if (real === undefined || real === path || folders.some((folder) => isInside(path, folder.path))) continue;
    args.push("--symlink", real, path);
  }
  return args;
}

/** `.git` at the top of each writable folder (unless listed itself), and what the policy denies to write inside them. */
function readOnlyInside(writable: readonly string[], denyWrite: readonly string[]): string[] {
  const readOnly: string[] = [];
  for (const root of writable) {
    const git = join(root, ".git");
    if (exists(git) && !writable.some((path) => isInside(path, git))) readOnly.push(git);
  }
  // At its real path (a symlink leading out of the writable folders needs nothing: it is read-only there).
  for (const path of denyWrite.map(existingReal)) {
    if (path !== undefined && writable.some((root) => isInside(path, root))) readOnly.push(path);
  }
  return unique(readOnly);
}

/**
 * Covers what to hide (the policy's denied paths, their hard links, their other names through bind
 * mounts; under the minimal root /etc's secrets), where the call can see it; returns what it covered.
 */
function coverHidden(args: string[], paths: { denyRead: string[]; outside: string[]; roots: string[] }, folders: readonly Visible[], minimal: boolean): string[] {
  const secrets = minimal ? systemView().secrets : [];
  const named = [...paths.denyRead, ...paths.outside, ...secrets];
  // Each at its real path: a mount follows symlinks anyway, and bwrap cannot mount on an absolute
  // symlink (it resolves it outside the new root).
  const denied = unique([...named, ...hardLinksOf(named, paths.roots, !minimal)].map(existingReal).filter(isDefined));
  const visible = (path: string): boolean =>
    minimal ? folders.some((folder) => isInside(path, folder.path)) : !isInside(path, TMP) || folders.some((folder) => isInside(path, folder.path));
  const hide = outermostHidden(unique([...denied, ...(denied.length > 0 ? mountAliases(denied) : [])]).filter(visible));
  const hidden: string[] = [];
  const empty = hide.length > 0 ? emptyPlaceholders() : undefined;
  for (const path of hide) {
    const stat = statIf(path);
    if (!stat || !empty) continue;
    hidden.push(path);
    args.push("--ro-bind", stat.isDirectory() ? empty.dir : empty.file, path);
  }
  return hidden;
}

/** Minimal root: the writable folders' files with names elsewhere; refused when the option says so. */
function checkHardLinks(use: BwrapUse, writable: readonly string[]): HardLinks | undefined {
  const found = use.hardLinkScan.current(writable);
  if (found.files === 0 && found.complete) return undefined;
  if (use.settings.hardLinks === "refuse") {
    const what = found.complete
      ? `${withCommas(found.files)} files in ${writable.join(", ")} also have a name outside them (hard links${found.examples.length > 0 ? `, e.g. ${found.examples.join(", ")}` : ""})`
      : `${writable.join(", ")} hold too many entries to check for hard links`;
    throw new SandboxSetupError(
      `${what}: a write through such a file would change it under its other names too, and no mount can prevent that. Make them copies (pnpm: \`pnpm config set package-import-method copy\`, then \`pnpm install\`), or set the bash tool's "hardLinks" option to "declare".`,
    );
  }
  return found;
}

function isDefined<T>(value: T | undefined): value is T {
  return value !== undefined;
}
