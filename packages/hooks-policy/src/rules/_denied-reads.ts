import { realpathSync } from "node:fs";
import { resolve } from "node:path";
import { type DeniedReads, isInside, ToolhostError } from "@toolhost/core";
import picomatch from "picomatch";
import { globsOf, type PathAnchors } from "../paths/_paths.js";
import { MAX_WALK_DEPTH, MAX_WALK_ENTRIES, TreeGuard } from "../paths/_protected.js";
import { type CompiledRule, isWhole } from "./_rules.js";

/**
 * One absolute glob of a deny-read pattern, as a sandbox can cover it: the folder or file its
 * wildcard-free prefix names, hidden whole (`rest` empty or `**`), or searched for what the glob
 * names (any other `rest`: a bounded walk).
 */
interface Cover {
  pattern: string;
  prefix: string;
  /** Undefined: the prefix is hidden whole. */
  glob: ((path: string) => boolean) | undefined;
  /** The searches of the prefix, per real path and roots (each re-checks its folders' times when asked again). */
  walks: Map<string, TreeGuard>;
}

/** How the deny-read rules of a tool turn into what a sandbox covers. */
export interface ReadCovers {
  covers: Cover[];
  /** Patterns (or `every read (<id>)`) no list of paths can cover. */
  unbounded: string[];
  /** Whether any rule denies reads at all (none: a confinement hides nothing, and needs to). */
  any: boolean;
}

/** Characters that make a glob segment a wildcard (picomatch's, extglobs included); `\x` escapes. */
const WILD = /(?<!\\)[*?[\]{}()!+@]/;

/**
 * Sorts the rules that deny reading into covers and what cannot be covered: a name at any depth
 * (`.env`, `*.pem`), a wildcard in the first folder of an absolute path (`/*\/.ssh/**`), a rule
 * that denies every read. `rules`: the deny rules that apply to a confined call of the tool.
 */
export function readCovers(rules: readonly CompiledRule[], anchors: PathAnchors): ReadCovers {
  const covers: Cover[] = [];
  const unbounded: string[] = [];
  for (const rule of rules) {
    const pattern = rule.rule.path;
    if (pattern === undefined) {
      if (isWhole(rule)) unbounded.push(`every read (${rule.id})`);
      continue;
    }
    for (const glob of globsOf(pattern, anchors)) {
      // A sandbox mounts a /proc of its own processes (and its own /dev): what a pattern names there is theirs.
      if (/^\/(proc|dev)\//.test(glob)) continue;
      const cover = coverOf(pattern, glob);
      if (cover) covers.push(cover);
      else if (!unbounded.includes(pattern)) unbounded.push(pattern);
    }
  }
  return { covers, unbounded, any: rules.some((rule) => rule.rule.path !== undefined || isWhole(rule)) };
}

function coverOf(pattern: string, glob: string): Cover | undefined {
  if (!glob.startsWith("/")) return undefined;
  const segments = glob.split("/").slice(1);
  const literal: string[] = [];
  for (const segment of segments) {
    if (WILD.test(segment)) break;
    literal.push(segment.replace(/\\(.)/g, "$1"));
  }
  if (literal.length === 0 || literal.every((segment) => segment === "")) return undefined;
  const rest = segments.slice(literal.length).join("/");
  const prefix = resolve(`/${literal.join("/")}`);
  if (prefix === "/") return undefined;
  if (rest === "" || rest === "**") return { pattern, prefix, glob: undefined, walks: new Map() };
  // Compiled at the first walk that needs it: most calls never walk (a host's first call paid ~8 ms for all).
  let matches: ((path: string) => boolean) | undefined;
  return { pattern, prefix, glob: (path) => (matches ??= picomatch(glob, { dot: true }))(path), walks: new Map() };
}

/** Searches kept per cover: a root or a real path seldom changes, so few are ever made. */
const MAX_WALKS = 16;

/**
 * The existing paths a sandbox covers so that a call cannot read what the covers name outside
 * `roots` (under a root, `protectedPaths(root)` lists them). Throws a `ToolhostError` when a walk
 * is too large, or when a path to hide holds a root (it cannot be hidden without the root).
 */
export async function deniedReadsOf(plan: ReadCovers, roots: readonly string[], code: string): Promise<DeniedReads> {
  const realRoots = roots.map((root) => realIf(root) ?? resolve(root));
  const inRoot = (path: string) => realRoots.some((root) => isInside(path, root)) || roots.some((root) => isInside(path, resolve(root)));
  const paths: string[] = [];
  for (const cover of plan.covers) {
    const real = realIf(cover.prefix);
    if (real === undefined || (inRoot(cover.prefix) && inRoot(real))) continue;
    if (cover.glob === undefined) {
      paths.push(real);
      continue;
    }
    for (const found of await search(cover, real, realRoots, code)) {
      const target = realIf(found);
      if (target !== undefined && !inRoot(target)) paths.push(target);
    }
  }
  for (const path of paths) {
    const held = realRoots.find((root) => isInside(root, path));
    if (held !== undefined) {
      throw new ToolhostError(
        code,
        `The policy denies reading ${path}, which holds ${held}, a folder commands run in: a sandbox cannot hide it without hiding that folder. Narrow the deny rule, or work in a folder outside it.`,
      );
    }
  }
  return { paths: [...new Set(paths)], unbounded: [...plan.unbounded] };
}

/** What a cover's glob names under its prefix (walked as its real path, matched under both names). */
async function search(cover: Cover, real: string, roots: readonly string[], code: string): Promise<string[]> {
  const key = `${real}\0${roots.join("\0")}`;
  const walks = cover.walks;
  let walk = walks.get(key);
  if (!walk) {
    const glob = cover.glob as (path: string) => boolean;
    const named = (path: string) => glob(path) || glob(cover.prefix + path.slice(real.length));
    walk = new TreeGuard(named, 0, false, (folder) => roots.some((root) => root === folder), true);
    if (walks.size >= MAX_WALKS) walks.delete(walks.keys().next().value as string);
    walks.set(key, walk);
  }
  const found = await walk.findAsync(real);
  if (!found.complete) {
    throw new ToolhostError(
      code,
      `The policy denies reading ${cover.pattern}, and ${real} is too large to search for what it names (over ${MAX_WALK_ENTRIES.toLocaleString("en-US")} entries or ${MAX_WALK_DEPTH} levels), so a sandbox cannot hide it. Write the rule with fewer wildcards.`,
    );
  }
  return found.paths;
}

function realIf(path: string): string | undefined {
  try {
    return realpathSync.native(path);
  } catch {
    return undefined;
  }
}
