import { realpath } from "node:fs/promises";
import { isInside } from "@toolhost/core";
import type { FsContext } from "./_context.js";
import { echo } from "./_echo.js";
import { FsError } from "./_errors.js";
import type { CheckedPath } from "./_paths.js";
import { FsErrorCode } from "./errors.js";

/** The paths under a tree that the policy denies to read, and a count of what was left out for them. */
export interface Protected {
  /** Whether an absolute path (as walked: under the tree's real path) is denied, or under a denied path. */
  denies(absolute: string): boolean;
  /** Records a path left out, once per path. */
  leaveOut(shown: string): void;
  /** How many paths were left out. */
  readonly count: number;
}

const nothing: Protected = { denies: () => false, leaveOut: () => undefined, count: 0 };

/**
 * Asks the `policy` service (when there is one) which paths under `tree` it denies to read. This
 * is the tool's side of a `readTrees` declaration: the policy may allow the tree because the tool
 * leaves those paths out. A policy that fails makes the call fail: never show what it might deny.
 */
export async function protectedIn(ctx: FsContext, tree: CheckedPath): Promise<Protected> {
  const policy = ctx.policy();
  if (!policy) return nothing;
  let denied: string[];
  try {
    const trees = tree.real === tree.absolute ? [tree.absolute] : [tree.absolute, tree.real];
    denied = (await Promise.all(trees.map((each) => policy.protectedPaths(each)))).flatMap((paths) => paths.denyRead);
  } catch (error) {
    throw new FsError(
      FsErrorCode.POLICY_FAILED,
      `Refused: the policy could not say which paths under ${echo(tree.input)} it protects (${String((error as Error)?.message ?? error).slice(0, 200)}), so nothing is shown.`,
      { path: tree.absolute },
    );
  }
  if (denied.length === 0) return nothing;
  // The walk sees real paths: compare with each denied path as given and as it really is.
  const all = new Set<string>();
  for (const path of denied) {
    all.add(path);
    all.add(await realpath(path).catch(() => path));
  }
  const list = [...all];
  const left = new Set<string>();
  return {
    denies: (absolute) => list.some((path) => isInside(absolute, path)),
    leaveOut: (shown) => void left.add(shown),
    get count() {
      return left.size;
    },
  };
}

/** The sentence a result ends with when the policy left paths out. */
export function leftOutNote(count: number): string {
  return `[${count} path${count === 1 ? " was" : "s were"} left out by the policy (they may not be read).]`;
}
