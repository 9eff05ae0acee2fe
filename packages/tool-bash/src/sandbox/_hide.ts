import { type Stats, chmodSync, lstatSync, mkdirSync, mkdtempSync, realpathSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type PolicyService, isInside, messageOf } from "@toolhost/core";
import { withCommas } from "../_numbers.js";
import { walkFolders } from "./_walk.js";

/** The policy could not say what to hide, or a path cannot be hidden: the call is refused. */
export class SandboxSetupError extends Error {}

/** A directory walk for hard links stops here: a tree this big cannot be searched per call. */
const MAX_WALK = 100_000;

/** What the policy protects for a call's roots. */
export interface Protected {
  denyRead: string[];
  denyWrite: string[];
  /** Denied to read outside the roots. */
  outside: string[];
  unbounded: string[];
}

/** Asks the policy what it denies under each root and elsewhere; a failure refuses the call (fail closed). */
export async function askPolicy(policy: PolicyService | undefined, roots: readonly string[]): Promise<Protected> {
  const found: Protected = { denyRead: [], denyWrite: [], outside: [], unbounded: [] };
  if (!policy) return found;
  for (const root of roots) {
    let paths: Awaited<ReturnType<PolicyService["protectedPaths"]>>;
    try {
      paths = await policy.protectedPaths(root, { confined: true });
    } catch (error) {
      throw new SandboxSetupError(`the policy could not list the paths it protects under ${root}: ${messageOf(error)}`);
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
      throw new SandboxSetupError(`the policy could not list the paths it denies to read outside ${roots.join(", ")}: ${messageOf(error)}`);
    }
  }
  return found;
}

/** The paths to hide, less those inside a hidden folder (its empty copy covers them). */
export function outermostHidden(paths: readonly string[]): string[] {
  const folders = paths.filter((path) => statIf(path)?.isDirectory());
  return paths.filter((path) => !folders.some((folder) => folder !== path && isInside(path, folder)));
}

/**
 * Other names of files to hide (hard links): those found under the roots are hidden too. A file
 * with more links than are found has a name outside them: where that name is visible in the
 * sandbox (`elsewhereVisible`: the host root shows all of /) the call is refused, since no mount
 * can hide it; under the minimal root such a name is not mounted, so it cannot be reached.
 */
export function hardLinksOf(paths: readonly string[], roots: readonly string[], elsewhereVisible: boolean): string[] {
  const wanted = new Map<string, { path: string; links: number }>();
  for (const path of paths) {
    const stat = lstatIf(path);
    if (stat?.isFile() && stat.nlink > 1) wanted.set(`${stat.dev}:${stat.ino}`, { path, links: stat.nlink });
  }
  if (wanted.size === 0) return [];
  const found = new Map<string, string[]>();
  const complete = walkFolders(roots, MAX_WALK, (path, entry) => {
    if (entry.isDirectory()) return true;
    if (!entry.isFile()) return false;
    const stat = lstatIf(path);
    const key = stat && `${stat.dev}:${stat.ino}`;
    if (key && wanted.has(key)) found.set(key, [...(found.get(key) ?? []), path]);
    return false;
  });
  if (!complete) {
    throw new SandboxSetupError(`a file the policy denies to read has hard links, and ${roots.join(", ")} is too big to search for them (over ${withCommas(MAX_WALK)} entries). Remove the extra links.`);
  }
  const links: string[] = [];
  for (const [key, { path, links: count }] of wanted) {
    const names = unique(found.get(key) ?? []);
    if (names.length < count && elsewhereVisible) {
      throw new SandboxSetupError(`${path}, which the policy denies to read, has ${count} hard links and only ${names.length} are under ${roots.join(", ")}; the others cannot be hidden. Remove the other links.`);
    }
    links.push(...names);
  }
  return links;
}

let placeholders: { file: string; dir: string } | undefined;

/** An empty read-only file and folder, made once per process, removed when it exits. */
export function emptyPlaceholders(): { file: string; dir: string } {
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
export function outermost(paths: readonly string[]): string[] {
  const all = unique(paths);
  return all.filter((path) => !all.some((other) => other !== path && isInside(path, other)));
}

export function unique<T>(values: readonly T[]): T[] {
  return [...new Set(values)];
}

export function lstatIf(path: string): Stats | undefined {
  return lstatSync(path, { throwIfNoEntry: false });
}

export function statIf(path: string): Stats | undefined {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}

export function exists(path: string): boolean {
  return lstatIf(path) !== undefined;
}
