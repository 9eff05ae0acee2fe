import { type Dirent, readdir } from "node:fs";
import { sep } from "node:path";
import picomatch from "picomatch";
import { echo } from "./_echo.js";
import { FsError } from "./_errors.js";
import type { WalkFilter } from "./_ignore.js";
import { FsErrorCode } from "./errors.js";

/** The longest glob or regular expression accepted, in bytes: far beyond any real one, far below what breaks a matcher. */
export const MAX_PATTERN_BYTES = 8 * 1024;

/** Refuses a pattern over the size bound, before anything uses it. */
export function checkPatternSize(pattern: string, what: string): void {
  const bytes = Buffer.byteLength(pattern);
  if (bytes > MAX_PATTERN_BYTES) {
    throw new FsError(
      FsErrorCode.BAD_PATTERN,
      `The ${what} ${echo(pattern)} is ${bytes.toLocaleString("en-US")} bytes long, more than the ${MAX_PATTERN_BYTES.toLocaleString("en-US")} allowed. Use a shorter pattern.`,
      { bytes, maxBytes: MAX_PATTERN_BYTES },
    );
  }
}

/**
 * Compiles a glob as the walk will, and runs it, before the walk: a glob picomatch turns into a
 * regular expression the engine refuses (it can throw on first use, not when built) is a
 * `BAD_PATTERN` error here instead of an exception inside the walk.
 */
export function compileGlob(pattern: string, what = "pattern"): void {
  checkPatternSize(pattern, what);
  try {
    const regex = picomatch.makeRe(pattern, { dot: true, posix: true, debug: true });
    for (const sample of ["a", "a/b.c", ".x/y/z.ts"]) regex.test(sample);
    for (const part of pattern.split("/")) {
      const partial = picomatch.makeRe(part, { dot: true, posix: true, debug: true });
      partial.test("a.b");
    }
  } catch (error) {
    throw new FsError(FsErrorCode.BAD_PATTERN, `The ${what} ${echo(pattern)} cannot be used as a glob: ${(error as Error).message.slice(0, 200)}. Simplify it.`, {});
  }
}

export interface WalkOptions {
  cwd: string;
  pattern: string;
  ignore?: string[];
  expandDirectories?: boolean;
  /** Told each folder's entries before the walk sees them: what it leaves out is neither listed nor entered. */
  filter?: WalkFilter;
  signal?: AbortSignal;
}

const isSpecial = (entry: Dirent): boolean => entry.isFIFO() || entry.isSocket() || entry.isCharacterDevice() || entry.isBlockDevice();

/**
 * tinyglobby's walk (symbolic links not followed, hidden files included), guarded: special files
 * (FIFOs, sockets, devices) are never listed, and an exception thrown while the walk handles a
 * folder (tinyglobby calls its matchers there, outside any promise) rejects this call instead of
 * escaping as an uncaught exception that would end the process.
 */
export async function walk(options: WalkOptions): Promise<string[]> {
  const { glob } = await import("tinyglobby");
  const stop = new AbortController();
  const onAbort = (): void => stop.abort(options.signal?.reason);
  options.signal?.addEventListener("abort", onAbort, { once: true });
  let failure: unknown;
  let fail!: (error: unknown) => void;
  const failed = new Promise<never>((_, reject) => {
    fail = (error) => {
      failure ??= error;
      stop.abort(error);
      reject(error);
    };
  });
  failed.catch(() => undefined);
  const guardedReaddir = readdirFor(options.filter, () => failure !== undefined, fail);
  try {
    const found = glob(options.pattern, {
      cwd: options.cwd,
      dot: true,
      followSymbolicLinks: false,
      expandDirectories: options.expandDirectories ?? false,
      ignore: options.ignore ?? ["**/.git/**"],
      signal: stop.signal,
      fs: { readdir: guardedReaddir },
    });
    return await Promise.race([found, failed]);
  } catch (error) {
    if (options.signal?.aborted) throw options.signal.reason ?? error;
    const cause = failure ?? error;
    if (cause instanceof FsError || typeof (cause as NodeJS.ErrnoException)?.code === "string") throw cause;
    throw new FsError(FsErrorCode.BAD_PATTERN, `The walk for ${echo(options.pattern)} failed: ${String((cause as Error)?.message ?? cause).slice(0, 200)}. Simplify the pattern.`, {});
  } finally {
    options.signal?.removeEventListener("abort", onAbort);
  }
}

/**
 * The `readdir` the walk is given: special files left out, the filter asked, and an exception
 * thrown by the walk's own callback (its matchers run there) handed to `fail`; once something has
 * failed, nothing more is answered.
 */
function readdirFor(filter: WalkFilter | undefined, failed: () => boolean, fail: (error: unknown) => void): typeof readdir {
  return ((path: string, opts: unknown, callback: (error: Error | null, entries: Dirent[]) => void) => {
    readdir(path, opts as { withFileTypes: true }, (error, entries) => {
      if (failed()) return;
      const answer = (found: Dirent[]): void => {
        if (failed()) return;
        try {
          callback(error, found);
        } catch (thrown) {
          fail(thrown);
        }
      };
      if (error) return answer(entries);
      const plain = (entries ?? []).filter((entry) => !isSpecial(entry));
      if (!filter) return answer(plain);
      // fdir names folders with a trailing separator.
      filter.entries(path.length > 1 && path.endsWith(sep) ? path.slice(0, -1) : path, plain).then(answer, fail);
    });
  }) as unknown as typeof readdir;
}
