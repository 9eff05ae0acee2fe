import type { FileHandle } from "node:fs/promises";
import { capped, echo } from "./_echo.js";
import { FsError } from "./_errors.js";
import type { CheckedPath } from "./_paths.js";
import type { Protected } from "./_protect.js";
import { FsErrorCode } from "./errors.js";

/** Lines longer than this are cut in the output (ripgrep's `--max-columns`, and the Node search alike). */
export const MAX_COLUMNS = 500;

/** What a search engine reads of a call's arguments. */
export interface GrepQuery {
  pattern: string;
  glob?: string | undefined;
  ignoreCase?: boolean | undefined;
  literal?: boolean | undefined;
  context?: number | undefined;
}

/** What is searched: one opened regular file, or a folder with the paths the policy protects. */
export type Source = { file: FileHandle } | { policy: Protected };

/** One search, as both engines (ripgrep, the Node search) take it. */
export interface GrepSearch {
  path: CheckedPath;
  /** The root `path` lies in: ignore files are read up to it. */
  root: string;
  source: Source;
  query: GrepQuery;
  /** Folders to skip below a searched folder, as `.gitignore` lines rank them: below every ignore file. */
  skip: readonly string[];
  out: Collector;
  signal: AbortSignal | undefined;
}

/** What an engine reports besides the lines it added to `out`. */
export interface GrepOutcome {
  /** Files that could not be searched, one line each. */
  warnings: string[];
  /** Skipped folders met, relative to the searched folder with `/`. */
  skipped: string[];
}

/** Collects output lines up to the limits; `add` returns false once full. */
export class Collector {
  readonly lines: string[] = [];
  matches = 0;
  size = 0;
  full: "limit" | "size" | undefined;
  constructor(
    readonly limit: number,
    readonly maxSize: number,
  ) {}

  add(line: string, isMatch: boolean): boolean {
    if (this.full) return false;
    if (isMatch && this.matches >= this.limit) {
      this.full = "limit";
      return false;
    }
    const bytes = Buffer.byteLength(line) + 1;
    if (this.size + bytes > this.maxSize) {
      this.full = "size";
      return false;
    }
    this.lines.push(line);
    this.size += bytes;
    if (isMatch) this.matches += 1;
    return true;
  }
}

export function badPattern(pattern: string, why: string): FsError {
  return new FsError(FsErrorCode.BAD_PATTERN, `The pattern ${echo(pattern)} is not a valid regular expression: ${capped(why)}. Fix it, or set literal: true to search for the text as it is.`, {
    pattern: capped(pattern),
  });
}

/** A line of output cut at `MAX_COLUMNS`, with a count of the rest. */
export function clip(line: string): string {
  return line.length > MAX_COLUMNS ? `${line.slice(0, MAX_COLUMNS)} [... ${line.length - MAX_COLUMNS} more characters]` : line;
}

/** A grep glob as both engines apply it, relative to the searched folder: one without a slash matches a name at any depth. */
export function globOf(glob: string | undefined): string | undefined {
  if (glob === undefined) return undefined;
  return glob.includes("/") ? glob : `**/${glob}`;
}
