import { type ControlFile, controlFileOf } from "@toolhost/core";
import type { PathAnchors } from "../paths/_paths.js";

/*
 * Control files (core's `CONTROL_FILES`): what decides later calls, or what another program runs
 * later outside any sandbox. One list, shared with the sandbox's read-only mounts; a `control: true`
 * rule matches a write to any of them, and an explanation names the one a call touches and why it
 * matters.
 */

/** The control file `path` is or lies under, from every home folder the policy knows (as given, and real). */
export function controlFileAt(path: string, anchors: PathAnchors): ControlFile | undefined {
  let known = remembered.get(anchors);
  if (known === undefined) remembered.set(anchors, (known = new Map()));
  const found = known.get(path);
  if (found !== undefined) return found ?? undefined;
  const file = controlFileIn(path, anchors);
  if (known.size >= MAX_REMEMBERED) known.clear();
  known.set(path, file ?? null);
  return file;
}

function controlFileIn(path: string, anchors: PathAnchors): ControlFile | undefined {
  for (const home of anchors.homes) {
    const found = controlFileOf(path, { home });
    if (found !== undefined) return found;
  }
  return undefined;
}

/**
 * What `controlFileAt` found, by the policy's anchors and the path: a write is asked about again for
 * each of its paths (the `control` rule, the explanation's note, the audit log's check), and the
 * answer depends only on the path and the home folders (core's list, nothing on disk).
 */
const remembered = new WeakMap<PathAnchors, Map<string, ControlFile | null>>();
const MAX_REMEMBERED = 4096;

/** The matcher of a `control: true` rule: a few map look-ups a path, nothing compiled. */
export function controlFileMatcher(anchors: PathAnchors): (path: string) => boolean {
  return (path) => controlFileAt(path, anchors) !== undefined;
}

/** How an explanation names it: `a control file, .git/hooks (git's hooks and config: run by git outside any sandbox)`. */
export function controlFileNote(file: ControlFile): string {
  const where = file.where === "home" ? `~/${file.path}` : file.path;
  return `a control file, ${where} (${file.why})`;
}
