import picomatch from "picomatch";
import { compileGlob } from "./_walk.js";

/** The most `exclude` globs a call may give. */
const MAX_EXCLUDES = 100;

/**
 * A test for the `exclude` globs of `ls` and `find`: a path is left out when a glob matches it or
 * its last name (`node_modules`, `*.log`), as the MCP filesystem server's `excludePatterns` do.
 */
export function excluder(globs: readonly string[] | undefined): (relative: string) => boolean {
  if (!globs || globs.length === 0) return () => false;
  for (const glob of globs.slice(0, MAX_EXCLUDES)) compileGlob(glob, "exclude glob");
  const match = picomatch(globs.slice(0, MAX_EXCLUDES) as string[], { dot: true, posix: true });
  return (relative) => {
    if (match(relative)) return true;
    const parts = relative.split("/");
    return parts.some((_, i) => match(parts.slice(0, i + 1).join("/")) || match(parts[i] as string));
  };
}
