import { spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import picomatch from "picomatch";
import { capped, echo } from "./_echo.js";
import { FsError } from "./_errors.js";
import { badPattern, globOf, type GrepOutcome, type GrepQuery, type GrepSearch, MAX_COLUMNS } from "./_grep.js";
import { skipLines } from "./_ignore.js";
import { FsErrorCode } from "./errors.js";

/** Runs ripgrep on one search: its matches go to `search.out`, what it could not search and the folders it skipped come back. */
export async function withRipgrep(rg: string, search: GrepSearch): Promise<GrepOutcome> {
  const isFolder = "policy" in search.source;
  return withSkipFile(isFolder ? search.skip : [], async (skipFile) => {
    const errors = new RipgrepErrors(skipFile);
    const output = new RipgrepOutput(search, isFolder);
    const { code, stopped } = await runRipgrep(rg, ripgrepArgs(search.query, isFolder, skipFile), {
      cwd: isFolder ? search.path.real : undefined,
      stdin: "file" in search.source ? search.source.file.fd : "ignore",
      signal: search.signal,
      onLine: (line) => output.take(line),
      onErrorLine: (line) => errors.add(line),
    });
    if (!stopped && code === 2 && search.out.lines.length === 0) errors.throwBadPattern(search.query);
    return { warnings: code === 2 ? errors.warnings : [], skipped: errors.skipped };
  });
}

/**
 * ripgrep's arguments: null-separated names, line numbers, no config, hidden files, no `.git`, and
 * only the ignore files the Node search reads too (no global or `.git/info/exclude` ones). The
 * skipped folders come as an ignore file of the lowest rank; `--debug` makes ripgrep name each
 * folder it skips for it. The glob is no `--glob`: ripgrep lets a glob that matches a folder
 * override every ignore file (`**` would search what `.gitignore` ignores). Its last part goes as
 * a file type, which selects file names and overrides nothing; the whole glob is applied to the
 * paths ripgrep prints (`RipgrepOutput`).
 */
function ripgrepArgs(query: GrepQuery, isFolder: boolean, skipFile: string | undefined): string[] {
  const args = [
    "--no-config",
    "--line-number",
    "--with-filename",
    "--no-heading",
    "--null",
    "--color=never",
    "--hidden",
    "--no-require-git",
    "--no-ignore-global",
    "--no-ignore-exclude",
    "--glob=!.git",
    `--max-columns=${MAX_COLUMNS}`,
    "--max-columns-preview",
  ];
  if (skipFile !== undefined) args.push(`--ignore-file=${skipFile}`, "--debug");
  if (query.ignoreCase) args.push("--ignore-case");
  if (query.literal) args.push("--fixed-strings");
  if (query.context) args.push(`--context=${query.context}`);
  const names = isFolder ? nameGlobOf(query.glob) : undefined;
  if (names !== undefined) args.push(`--type-add=toolhost:${names}`, "--type=toolhost");
  // A single file is searched from the handle opened and checked before (as rg's standard input).
  args.push("--regexp", query.pattern, "--", isFolder ? "." : "-");
  return args;
}

/** The skipped folders written as an ignore file for ripgrep (in a fresh temporary folder, removed after), or none. */
async function withSkipFile<T>(folders: readonly string[], body: (file: string | undefined) => Promise<T>): Promise<T> {
  if (folders.length === 0) return body(undefined);
  const dir = await mkdtemp(join(tmpdir(), "toolhost-rg-"));
  try {
    const file = join(dir, "skip");
    await writeFile(file, `${skipLines(folders)}\n`);
    return await body(file);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The glob's last part, for ripgrep to select file names by (a file type); none when it selects every name. */
function nameGlobOf(glob: string | undefined): string | undefined {
  if (glob === undefined) return undefined;
  const last = glob.slice(glob.lastIndexOf("/") + 1);
  // A brace may hold a slash (`{src,lib}/*.ts`): then the last part is not a name's glob alone.
  // ripgrep's type definitions (`name:glob`) take no colon in the glob.
  if (last === "**" || last === "*" || last.includes(":") || (glob.includes("{") && glob.includes("/"))) return undefined;
  return last;
}

/**
 * Takes ripgrep's output, `path\0line:text` (a match) and `path\0line-text` (context), into the
 * collector: paths the glob does not match and those the policy protects left out, a `--` between
 * groups of lines kept only when lines follow it.
 */
class RipgrepOutput {
  readonly #search: GrepSearch;
  readonly #isFolder: boolean;
  readonly #glob: ((path: string) => boolean) | undefined;
  #separator = false;

  constructor(search: GrepSearch, isFolder: boolean) {
    this.#search = search;
    this.#isFolder = isFolder;
    const glob = isFolder ? globOf(search.query.glob) : undefined;
    this.#glob = glob === undefined ? undefined : picomatch(glob, { dot: true });
  }

  /** One line of output; false once the collector is full. */
  take(line: string): boolean {
    const { out, path, source } = this.#search;
    if (line === "--") {
      this.#separator = out.lines.length > 0;
      return true;
    }
    const nul = line.indexOf("\0");
    let file = nul === -1 ? "" : line.slice(0, nul);
    if (file.startsWith("./")) file = file.slice(2);
    else if (!this.#isFolder) file = path.input;
    if (this.#glob && !this.#glob(file)) return true;
    if ("policy" in source && source.policy.denies(join(path.real, file))) {
      source.policy.leaveOut(file);
      return true;
    }
    const after = line.slice(nul + 1);
    const m = /^(\d+)([:-])/.exec(after);
    if (!m) return true;
    if (this.#separator) {
      this.#separator = false;
      if (!out.add("--", false)) return false;
    }
    return out.add(`${file}${m[2]}${m[1]}${m[2]}${after.slice(m[0].length)}`, m[2] === ":");
  }
}

interface RunOptions {
  cwd: string | undefined;
  stdin: number | "ignore";
  signal: AbortSignal | undefined;
  /** Each line of the output; false stops ripgrep. Throwing fails the search. */
  onLine(line: string): boolean;
  onErrorLine(line: string): void;
}

/** Runs rg, its output and errors line by line; resolves when it has ended (stopped: killed because `onLine` had enough). */
function runRipgrep(rg: string, args: string[], options: RunOptions): Promise<{ code: number | null; stopped: boolean }> {
  const { signal } = options;
  return new Promise((resolve, reject) => {
    const child = spawn(rg, args, { cwd: options.cwd, stdio: [options.stdin, "pipe", "pipe"] });
    let stopped = false;
    let failure: unknown;
    const stop = (): void => {
      if (stopped) return;
      stopped = true;
      child.kill("SIGKILL");
    };
    signal?.addEventListener("abort", stop, { once: true });
    const output = new Lines((line) => {
      if (!stopped && !options.onLine(line)) stop();
    });
    const errors = new Lines(options.onErrorLine);
    (child.stdout as NodeJS.ReadableStream).setEncoding("utf8").on("data", (chunk: string) => {
      if (stopped) return;
      // An exception here would escape the call as an uncaught one: it fails the call instead.
      try {
        output.push(chunk);
      } catch (error) {
        failure ??= error;
        stop();
      }
    });
    (child.stderr as NodeJS.ReadableStream).setEncoding("utf8").on("data", (chunk: string) => errors.push(chunk));
    child.on("error", (error) => {
      signal?.removeEventListener("abort", stop);
      if ((error as NodeJS.ErrnoException).code === "E2BIG") {
        reject(new FsError(FsErrorCode.BAD_PATTERN, `The pattern or glob is too long to pass to ripgrep. Use a shorter one.`, {}));
      } else reject(error);
    });
    child.on("close", (code) => {
      signal?.removeEventListener("abort", stop);
      if (signal?.aborted) return reject(signal.reason ?? new Error("aborted"));
      if (failure !== undefined) return reject(failure);
      try {
        if (!stopped) output.end();
      } catch (error) {
        return reject(error);
      }
      errors.end();
      resolve({ code, stopped });
    });
  });
}

/** Text cut into lines as it arrives; the last, unfinished one waits for the next chunk or `end`. */
class Lines {
  #rest = "";
  constructor(readonly each: (line: string) => void) {}

  push(chunk: string): void {
    const lines = (this.#rest + chunk).split("\n");
    this.#rest = lines.pop() ?? "";
    for (const line of lines) this.each(line);
  }

  end(): void {
    if (this.#rest.length > 0) this.each(this.#rest);
    this.#rest = "";
  }
}

/** ripgrep's standard error: its log lines (the skipped folders read from them), and the rest, kept as warnings up to 64 KiB. */
class RipgrepErrors {
  readonly warnings: string[] = [];
  #size = 0;
  readonly #skipped = new Set<string>();
  /** How a `--debug` line names the skip file as the reason an entry was ignored. */
  readonly #because: string | undefined;

  constructor(skipFile: string | undefined) {
    this.#because = skipFile === undefined ? undefined : `: Ignore(IgnoreMatch(Gitignore(Glob { from: Some(${JSON.stringify(skipFile)})`;
  }

  add(line: string): void {
    if (/^rg: (DEBUG|TRACE)\|/.test(line)) return this.#logLine(line);
    if (line.length === 0 || this.#size >= 64 * 1024) return;
    this.warnings.push(line);
    this.#size += line.length + 1;
  }

  /** `rg: DEBUG|ignore::walk|…: ignoring ./a/node_modules: Ignore(IgnoreMatch(Gitignore(Glob { from: Some("<skip file>"), …` */
  #logLine(line: string): void {
    if (this.#because === undefined) return;
    const at = line.indexOf(": ignoring ");
    const end = line.lastIndexOf(this.#because);
    if (at === -1 || end <= at) return;
    const path = line.slice(at + ": ignoring ".length, end);
    this.#skipped.add(path.startsWith("./") ? path.slice(2) : path);
  }

  /** The skipped folders ripgrep named, relative to the searched folder, sorted. */
  get skipped(): string[] {
    return [...this.#skipped].sort();
  }

  /** Throws ripgrep's refusal of the pattern or the glob as the error the model sees; nothing when it refused neither. */
  throwBadPattern(query: GrepQuery): void {
    const text = this.warnings.join("\n");
    if (/regex|parse error/i.test(text)) throw badPattern(query.pattern, this.warnings.slice(-3).join(" ").trim());
    if (/glob/i.test(text)) throw new FsError(FsErrorCode.BAD_PATTERN, `The glob ${echo(query.glob ?? "")} is invalid: ${capped(text.trim())}`, {});
  }
}
