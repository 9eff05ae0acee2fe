import { statSync } from "node:fs";
import { findConfigFile, type Host } from "@toolhost/core/config";

/**
 * What a host was made from, as it was at load: `changed()` says whether a load now would give
 * another host. A few synchronous `stat`s, cheap enough to ask before every call.
 */
export interface HostWatch {
  /** What changed since the host was loaded, in words ("/p/org.json changed"), or undefined. */
  changed(): string | undefined;
}

/**
 * Watches `host`, loaded from `cwd` (with `configPath` when the config was named, not searched
 * for). `before` holds states looked at before the host was loaded (`statesOf`), so that a change
 * made while it loaded shows; the other sources are looked at now.
 */
export function watchHost(host: Host, cwd: string, configPath: string | undefined, before: ReadonlyMap<string, string> = new Map()): HostWatch {
  const seen = new Map(host.sources.map((path) => [path, before.get(path) ?? stateOf(path)]));
  return {
    changed() {
      // A named config is not searched for; it is one of the sources.
      if (configPath === undefined) {
        // Up to the config in use only: whether that one still exists, its state below says.
        const found = findConfigFile(cwd, host.configPath);
        if (found !== host.configPath) return found ? `the config search from ${cwd} now finds ${found}` : `${host.configPath} is gone`;
      }
      for (const [path, state] of seen) {
        const now = stateOf(path);
        if (now !== state) return now === MISSING ? `${path} is gone` : `${path} changed`;
      }
      return undefined;
    },
  };
}

/** The states of these files now, for `watchHost`'s `before`. */
export function statesOf(paths: Iterable<string>): Map<string, string> {
  return new Map([...paths].map((path) => [path, stateOf(path)]));
}

const MISSING = "missing";

/**
 * A file's state: its modification and change times, size and inode, or missing. The change time
 * too: a package manager writes files with a fixed modification time (npm's 1985), and a file
 * replaced by one of the same size may get the inode just freed.
 */
function stateOf(path: string): string {
  try {
    const info = statSync(path, { throwIfNoEntry: false });
    return info ? `${info.mtimeMs}:${info.ctimeMs}:${info.size}:${info.ino}` : MISSING;
  } catch (error) {
    return `unreadable: ${(error as NodeJS.ErrnoException).code ?? "error"}`;
  }
}
