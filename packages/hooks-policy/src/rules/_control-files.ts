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
  for (const home of anchors.homes) {
    const found = controlFileOf(path, { home });
    if (found !== undefined) return found;
  }
  return undefined;
}

/** The matcher of a `control: true` rule: a few map look-ups a path, nothing compiled. */
export function controlFileMatcher(anchors: PathAnchors): (path: string) => boolean {
  return (path) => controlFileAt(path, anchors) !== undefined;
}

/** How an explanation names it: `a control file, .git/hooks (git's hooks and config: run by git outside any sandbox)`. */
export function controlFileNote(file: ControlFile): string {
  const where = file.where === "home" ? `~/${file.path}` : file.path;
  return `a control file, ${where} (${file.why})`;
}
