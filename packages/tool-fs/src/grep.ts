import { spawn } from "node:child_process";
import { constants } from "node:fs";
import { type FileHandle, open } from "node:fs/promises";
import { join } from "node:path";
import { Type, type AgentTool, type AgentToolResult, type Static, isInside } from "@toolhost/core";
import { both } from "./_access.js";
import { type Args, refuse, rename } from "./_arguments.js";
import { createContext, type FsContext } from "./_context.js";
import { capped, echo } from "./_echo.js";
import { FsError } from "./_errors.js";
import { loadGitignore } from "./_ignore.js";
import { type CheckedPath, locate, openChecked } from "./_paths.js";
import { leftOutNote, type Protected, protectedIn } from "./_protect.js";
import { ripgrepPath } from "./_ripgrep.js";
import { SNIFF_BYTES, sniff } from "./_sniff.js";
import { type FsCall, fsTool } from "./_tool.js";
import { checkPatternSize, compileGlob, walk } from "./_walk.js";
import { FsErrorCode } from "./errors.js";
import type { FsToolOptions } from "./options.js";

export const GrepParameters = Type.Object(
  {
    pattern: Type.String({ description: "A regular expression (or plain text with literal: true)." }),
    path: Type.Optional(Type.String({ description: "The folder or file to search. Default: the working directory." })),
    glob: Type.Optional(Type.String({ description: 'Only files matching this glob, e.g. "*.ts" or "src/**/*.py".' })),
    ignoreCase: Type.Optional(Type.Boolean({ description: "Match regardless of case." })),
    literal: Type.Optional(Type.Boolean({ description: "Treat pattern as plain text, not a regular expression." })),
    context: Type.Optional(Type.Integer({ minimum: 0, maximum: 50, description: "Lines to show before and after each match." })),
    limit: Type.Optional(Type.Integer({ minimum: 1, description: "The most matching lines to return. Default 100." })),
  },
  { additionalProperties: false },
);

/** `details` of a `grep` result. */
export interface GrepDetails {
  path: string;
  pattern: string;
  /** Matching lines shown. */
  matches: number;
  truncated: boolean;
  /** Which search ran: ripgrep, or the plain Node fallback. */
  engine: "ripgrep" | "node";
  /** Files the policy denies to read whose matches were left out. */
  leftOutByPolicy?: number;
}

const DEFAULT_LIMIT = 100;
const MAX_COLUMNS = 500;

/** The `grep` tool: ripgrep when installed, a plain Node search otherwise; `.gitignore` respected. */
export function createGrepTool(options: FsToolOptions = {}): AgentTool<typeof GrepParameters, GrepDetails> {
  return grepTool(createContext(options));
}

export function grepTool(ctx: FsContext): AgentTool<typeof GrepParameters, GrepDetails> {
  // Look for the binary now, in the background, so the first search does not wait for it.
  if (ctx.ripgrep) void ripgrepPath();
  return fsTool(ctx, {
    name: "grep",
    label: "Search files",
    description: `Search file contents for a regular expression (or plain text with literal). Hidden files included, .gitignore respected, binary files skipped. Prints "path:line:text" per match ("path-line-text" for context lines), up to ${DEFAULT_LIMIT} matches unless limit says otherwise.`,
    parameters: GrepParameters,
    executionMode: "parallel",
    annotations: { readOnly: true, idempotent: true },
    aliases: ["-i", "-C", "head_limit", "output_mode", "-n"],
    dialect: claudeCodeGrep,
    target: (params) => params.path ?? ".",
    access: async (ctx, params) => {
      checkPatterns(params);
      const { path, info } = await locate(ctx, params.path ?? ".");
      return info.isDirectory() ? { readTrees: both(path) } : { reads: both(path) };
    },
    run: grep,
  });
}

/** Claude Code's Grep arguments, mapped exactly; what has no equivalent is refused with what to send. */
function claudeCodeGrep(args: Args): Args {
  rename(args, "-i", "ignoreCase");
  rename(args, "-C", "context");
  rename(args, "head_limit", "limit");
  if (args["-n"] === true) delete args["-n"]; // line numbers are always shown
  if (args.output_mode === "content") delete args.output_mode;
  refuse(args, "output_mode", 'grep prints matching lines ("content"); use find for file names.');
  refuse(args, "-A", "Send context: N for lines before and after each match.");
  refuse(args, "-B", "Send context: N for lines before and after each match.");
  refuse(args, "type", 'Send glob instead, e.g. "*.py".');
  if (args.multiline === false) delete args.multiline;
  refuse(args, "multiline", "grep matches one line at a time.");
  return args;
}

function checkPatterns(params: { pattern: string; glob?: string | undefined }): void {
  checkPatternSize(params.pattern, "pattern");
  if (params.glob !== undefined) compileGlob(params.glob, "glob");
}

type GrepParams = Static<typeof GrepParameters>;

/** Collects output lines up to the limits; `add` returns false once full. */
class Collector {
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

async function grep(ctx: FsContext, params: GrepParams, call: FsCall): Promise<AgentToolResult<GrepDetails>> {
  const signal = call.signal;
  checkPatterns(params);
  const { path, info, note } = await locate(ctx, params.path ?? ".");
  if (note) call.notes.push(note);
  const isFolder = info.isDirectory();
  const limit = params.limit ?? DEFAULT_LIMIT;
  const out = new Collector(limit, ctx.maxTotalSize);
  const rg = ctx.ripgrep ? await ripgrepPath() : undefined;
  const policy = isFolder ? await protectedIn(ctx, path) : undefined;
  // A single file is opened here, non-blocking, and must be a regular file: a FIFO never hangs the search.
  const single = isFolder ? undefined : await openChecked(ctx, path, "grep");
  let warnings: string[];
  try {
    const source: Source = single ? { file: single.file } : { policy: policy as Protected };
    if (rg) {
      warnings = await withRipgrep(rg, path, source, params, out, signal);
    } else {
      const roots = await ctx.realRoots();
      const root = roots.find((each) => isInside(path.real, each)) as string;
      warnings = await withNode(path, root, source, params, out, signal);
    }
  } finally {
    await single?.file.close();
  }
  const truncated = out.full !== undefined;
  let text = out.lines.length === 0 ? `No matches for ${echo(params.pattern)} in ${echo(path.input)}.` : out.lines.join("\n");
  if (truncated) {
    const why = out.full === "limit" ? `limit ${limit}` : `the ${ctx.maxTotalSize}-byte output limit (maxTotalSize)`;
    text += `\n\n[Stopped after ${out.matches} matching lines (${why}). Narrow the pattern, set glob or path, or raise limit.]`;
  }
  if (warnings.length > 0) text += `\n\n[Some files could not be searched:\n${warnings.slice(0, 10).join("\n")}]`;
  const details: GrepDetails = { path: path.absolute, pattern: capped(params.pattern), matches: out.matches, truncated, engine: rg ? "ripgrep" : "node" };
  if (policy && policy.count > 0) {
    call.notes.push(leftOutNote(policy.count));
    details.leftOutByPolicy = policy.count;
  }
  return { content: [{ type: "text", text }], details };
}

/** What is searched: one opened regular file, or a folder with the paths the policy protects. */
type Source = { file: FileHandle } | { policy: Protected };

function badPattern(pattern: string, why: string): FsError {
  return new FsError(FsErrorCode.BAD_PATTERN, `The pattern ${echo(pattern)} is not a valid regular expression: ${capped(why)}. Fix it, or set literal: true to search for the text as it is.`, {
    pattern: capped(pattern),
  });
}

/** ripgrep's arguments: null-separated names, line numbers, no config, hidden files, no `.git`. */
function ripgrepArgs(params: GrepParams, isFolder: boolean): string[] {
  const args = [
    "--no-config",
    "--line-number",
    "--with-filename",
    "--no-heading",
    "--null",
    "--color=never",
    "--hidden",
    "--no-require-git",
    "--glob=!.git",
    `--max-columns=${MAX_COLUMNS}`,
    "--max-columns-preview",
  ];
  if (params.ignoreCase) args.push("--ignore-case");
  if (params.literal) args.push("--fixed-strings");
  if (params.context) args.push(`--context=${params.context}`);
  if (params.glob) args.push("--glob", params.glob);
  // A single file is searched from the handle opened and checked before (as rg's standard input).
  args.push("--regexp", params.pattern, "--", isFolder ? "." : "-");
  return args;
}

/** Runs ripgrep, parsing `path\0line:text` (match) and `path\0line-text` (context) lines; stops it when full. */
function withRipgrep(
  rg: string,
  path: CheckedPath,
  source: Source,
  params: GrepParams,
  out: Collector,
  signal?: AbortSignal,
): Promise<string[]> {
  const isFolder = "policy" in source;
  const args = ripgrepArgs(params, isFolder);
  return new Promise((resolve, reject) => {
    const stdin = "file" in source ? source.file.fd : "ignore";
    const child = spawn(rg, args, { cwd: isFolder ? path.real : undefined, stdio: [stdin, "pipe", "pipe"] });
    let stopped = false;
    let failure: unknown;
    let rest = "";
    let stderr = "";
    const stop = (): void => {
      if (!stopped) {
        stopped = true;
        child.kill("SIGKILL");
      }
    };
    const onAbort = (): void => stop();
    signal?.addEventListener("abort", onAbort, { once: true });
    const take = (line: string): void => {
      if (line === "--") {
        if (out.lines.length > 0 && !out.add("--", false)) stop();
        return;
      }
      const nul = line.indexOf("\0");
      let file = nul === -1 ? "" : line.slice(0, nul);
      if (file.startsWith("./")) file = file.slice(2);
      else if (!isFolder) file = path.input;
      if ("policy" in source && source.policy.denies(join(path.real, file))) {
        source.policy.leaveOut(file);
        return;
      }
      const after = line.slice(nul + 1);
      const m = /^(\d+)([:-])/.exec(after);
      if (!m) return;
      const isMatch = m[2] === ":";
      if (!out.add(`${file}${m[2]}${m[1]}${m[2]}${after.slice(m[0].length)}`, isMatch)) stop();
    };
    const stdout = child.stdout as NodeJS.ReadableStream;
    const stderrStream = child.stderr as NodeJS.ReadableStream;
    stdout.setEncoding("utf8");
    stdout.on("data", (chunk: string) => {
      if (stopped) return;
      // An exception here would escape the call as an uncaught one: it fails the call instead.
      try {
        const lines = (rest + chunk).split("\n");
        rest = lines.pop() ?? "";
        for (const line of lines) {
          take(line);
          if (stopped) return;
        }
      } catch (error) {
        failure ??= error;
        stop();
      }
    });
    stderrStream.setEncoding("utf8");
    stderrStream.on("data", (chunk: string) => {
      if (stderr.length < 64 * 1024) stderr += chunk;
    });
    child.on("error", (error) => {
      signal?.removeEventListener("abort", onAbort);
      if ((error as NodeJS.ErrnoException).code === "E2BIG") {
        reject(new FsError(FsErrorCode.BAD_PATTERN, `The pattern or glob is too long to pass to ripgrep. Use a shorter one.`, {}));
      } else reject(error);
    });
    child.on("close", (code) => {
      signal?.removeEventListener("abort", onAbort);
      if (signal?.aborted) return reject(signal.reason ?? new Error("aborted"));
      if (failure !== undefined) return reject(failure);
      if (!stopped && rest.length > 0) {
        try {
          take(rest);
        } catch (error) {
          return reject(error);
        }
      }
      if (!stopped && code === 2 && out.lines.length === 0 && /regex|parse error/i.test(stderr)) {
        return reject(badPattern(params.pattern, stderr.trim().split("\n").slice(-3).join(" ").trim()));
      }
      if (!stopped && code === 2 && out.lines.length === 0 && /glob/i.test(stderr)) {
        return reject(new FsError(FsErrorCode.BAD_PATTERN, `The glob ${echo(params.glob ?? "")} is invalid: ${capped(stderr.trim())}`, {}));
      }
      const warnings = code === 2 ? stderr.trim().split("\n").filter((line) => line.length > 0) : [];
      resolve(warnings);
    });
  });
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

const MAX_NODE_FILE = 64 * 1024 * 1024;

/** The fallback: walks the folder (`.gitignore` respected) and matches each text file's lines in Node. */
async function withNode(
  path: CheckedPath,
  root: string,
  source: Source,
  params: GrepParams,
  out: Collector,
  signal?: AbortSignal,
): Promise<string[]> {
  let regex: RegExp;
  try {
    regex = new RegExp(params.literal ? escapeRegExp(params.pattern) : params.pattern, params.ignoreCase ? "i" : "");
  } catch (error) {
    throw badPattern(params.pattern, (error as Error).message);
  }
  if ("file" in source) {
    const text = await textOf(source.file, MAX_NODE_FILE);
    if (typeof text === "string") matchLines(path.input, text, regex, params.context ?? 0, out);
    return typeof text === "string" || text === undefined ? [] : [`${path.input}: ${text.skipped}`];
  }
  const pattern = params.glob ? (params.glob.includes("/") ? params.glob : `**/${params.glob}`) : "**/*";
  const [found, ignored] = await Promise.all([
    walk({ cwd: path.real, pattern, expandDirectories: true, ...(signal ? { signal } : {}) }),
    loadGitignore(path.real, root, signal),
  ]);
  const files: { absolute: string; shown: string }[] = [];
  for (const file of found) {
    const absolute = join(path.real, file);
    if (ignored(absolute) || !isInside(absolute, path.real)) continue;
    if (source.policy.denies(absolute)) {
      source.policy.leaveOut(file);
      continue;
    }
    files.push({ absolute, shown: file });
  }
  files.sort((a, b) => (a.shown < b.shown ? -1 : 1));
  const warnings: string[] = [];
  for (const file of files) {
    signal?.throwIfAborted();
    if (out.full) break;
    let text: string | { skipped: string } | undefined;
    try {
      const handle = await open(file.absolute, constants.O_RDONLY | constants.O_NONBLOCK);
      try {
        text = await textOf(handle, MAX_NODE_FILE);
      } finally {
        await handle.close();
      }
    } catch (error) {
      warnings.push(`${file.shown}: ${capped((error as Error).message)}`);
      continue;
    }
    if (text === undefined) continue;
    if (typeof text !== "string") {
      warnings.push(`${file.shown}: ${text.skipped}`);
      continue;
    }
    matchLines(file.shown, text, regex, params.context ?? 0, out);
  }
  return warnings;
}

/** The text of an opened file; undefined for a binary or special file; `skipped` for one too large. */
async function textOf(handle: FileHandle, max: number): Promise<string | { skipped: string } | undefined> {
  const info = await handle.stat();
  if (!info.isFile()) return undefined;
  if (info.size > max) return { skipped: `skipped, larger than ${max} bytes (install @vscode/ripgrep to search it)` };
  const head = Buffer.alloc(Math.min(SNIFF_BYTES, info.size));
  await handle.read(head, 0, head.length, 0);
  if (sniff(head).kind !== "text") return undefined;
  return (await handle.readFile()).toString("utf8");
}

/** Adds the matching lines of one file (and their context) to `out`. */
function matchLines(shown: string, text: string, regex: RegExp, context: number, out: Collector): void {
    const lines = text.split("\n");
    if (lines[lines.length - 1] === "") lines.pop();
    let printedUpTo = -1; // index of the last line printed
    let afterUntil = -1;
    for (let i = 0; i < lines.length; i++) {
      const line = (lines[i] as string).replace(/\r$/, "");
      const isMatch = regex.test(line);
      if (!isMatch && i > afterUntil) continue;
      if (isMatch) {
        const from = Math.max(i - context, printedUpTo + 1);
        if (printedUpTo >= 0 && from > printedUpTo + 1 && context > 0) out.add("--", false);
        else if (printedUpTo < 0 && context > 0 && out.lines.length > 0) out.add("--", false);
        for (let k = from; k < i; k++) out.add(`${shown}-${k + 1}-${clip((lines[k] as string).replace(/\r$/, ""))}`, false);
        afterUntil = i + context;
      }
      if (!out.add(`${shown}${isMatch ? ":" : "-"}${i + 1}${isMatch ? ":" : "-"}${clip(line)}`, isMatch)) break;
    printedUpTo = i;
  }
}

function clip(line: string): string {
  return line.length > MAX_COLUMNS ? `${line.slice(0, MAX_COLUMNS)} [... ${line.length - MAX_COLUMNS} more characters]` : line;
}

