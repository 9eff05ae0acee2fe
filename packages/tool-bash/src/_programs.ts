import { accessSync, constants, realpathSync, statSync } from "node:fs";
import { delimiter, dirname, join } from "node:path";

/**
 * The folders the host's own helpers (bwrap, nsenter, prlimit, mkfifo, bash) are taken from: the
 * system's, which no sandboxed call can write. Never PATH: `npx`, `npm exec` and `pnpm exec` put
 * `<workspace>/node_modules/.bin` first on it, where a call can plant a `bwrap` or a `mkfifo` that
 * the host would then run as itself, outside any sandbox. `/usr/local/bin` counts only when it is
 * root's and written by no one else (see `isSystemFile`).
 */
export const SYSTEM_FOLDERS = ["/usr/bin", "/bin", "/usr/sbin", "/sbin", "/usr/local/bin"] as const;

const found = new Map<string, string | undefined>();

/**
 * The absolute path of the system's program `name`, found once per process in `SYSTEM_FOLDERS`:
 * an executable file that is, with every folder above it, owned by root and writable by no group
 * or other user (after symlinks: Debian's `/bin` is `usr/bin`). Undefined when there is none.
 */
export function systemProgram(name: string): string | undefined {
  if (found.has(name)) return found.get(name);
  let path: string | undefined;
  for (const folder of SYSTEM_FOLDERS) {
    const candidate = join(folder, name);
    if (isExecutable(candidate) && isSystemFile(candidate)) {
      path = candidate;
      break;
    }
  }
  found.set(name, path);
  return path;
}

/** Whether the file (at its real path) and each folder above it belong to root and let no one else write. */
export function isSystemFile(path: string): boolean {
  let real: string;
  try {
    real = realpathSync(path);
  } catch {
    return false;
  }
  for (let at = real; ; at = dirname(at)) {
    try {
      const info = statSync(at);
      if (info.uid !== 0 || (info.mode & 0o022) !== 0) return false;
    } catch {
      return false;
    }
    if (at === dirname(at)) return true;
  }
}

/** Where the system's programs are looked for, in words, for a message. */
export const SYSTEM_FOLDERS_TEXT = SYSTEM_FOLDERS.join(", ");

/** An executable file named `name` in a folder of `pathVariable`. */
export function findOnPath(name: string, pathVariable: string | undefined): string | undefined {
  for (const folder of (pathVariable ?? "/usr/bin:/bin").split(delimiter)) {
    if (folder.length === 0) continue;
    const path = join(folder, name);
    if (isExecutable(path)) return path;
  }
  return undefined;
}

export function isExecutable(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
