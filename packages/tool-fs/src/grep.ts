import { spawn } from "node:child_process";
import { open, stat } from "node:fs/promises";
import { join } from "node:path";
import { Type, type Static, type AgentTool, type AgentToolResult } from "@toolhost/core";
import { asResult, FsError, FsErrorCode } from "./_errors.js";
import { loadGitignore } from "./_ignore.js";
import { createContext, type FsContext, type FsToolOptions } from "./_options.js";
import { checkPath, isInside, statOrExplain, type CheckedPath } from "./_paths.js";
import { ripgrepPath } from "./_ripgrep.js";
import { SNIFF_BYTES, sniff } from "./_sniff.js";

export const GrepParameters = Type.Object({
  pattern: Type.String({ description: "A regular expression (or plain text with literal: true)." }),
  path: Type.Optional(Type.String({ description: "The folder or file to search. Default: the working directory." })),
  glob: Type.Optional(Type.String({ description: 'Only files matching this glob, e.g. "*.ts" or "src/**/*.py".' })),
  ignoreCase: Type.Optional(Type.Boolean({ description: "Match regardless of case." })),
  literal: Type.Optional(Type.Boolean({ description: "Treat pattern as plain text, not a regular expression." })),
  context: Type.Optional(Type.Integer({ minimum: 0, maximum: 50, description: "Lines to show before and after each match." })),
  limit: Type.Optional(Type.Integer({ minimum: 1, description: "The most matching lines to return. Default 100." })),
});

/** `details` of a `grep` result. */
export interface GrepDetails {
  path: string;
  pattern: string;
  /** Matching lines shown. */
  matches: number;
  truncated: boolean;
  /** Which search ran: ripgrep, or the plain Node fallback. */
  engine: "ripgrep" | "node";
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
  return {
    name: "grep",
    label: "Search files",
    description: `Search file contents for a regular expression (or plain text with literal). Hidden files included, .gitignore respected, binary files skipped. Prints "path:line:text" per match ("path-line-text" for context lines), up to ${DEFAULT_LIMIT} matches unless limit says otherwise.`,
    parameters: GrepParameters,
    executionMode: "parallel",
    execute: (_id, params, signal) =>
      asResult(signal, params.path ?? ".", () => grep(ctx, params, signal)) as Promise<AgentToolResult<GrepDetails>>,
  };
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

async function grep(ctx: FsContext, params: GrepParams, signal?: AbortSignal): Promise<AgentToolResult<GrepDetails>> {
  const path = await checkPath(ctx, params.path ?? ".");
  const info = await statOrExplain(ctx, path);
  const limit = params.limit ?? DEFAULT_LIMIT;
  const out = new Collector(limit, ctx.maxTotalSize);
  const rg = ctx.ripgrep ? await ripgrepPath() : undefined;
  let warnings: string[];
  if (rg) {
    warnings = await withRipgrep(rg, path, info.isDirectory(), params, out, signal);
  } else {
    const roots = await ctx.realRoots();
    const root = roots.find((each) => isInside(path.real, each)) as string;
    warnings = await withNode(path, root, info.isDirectory(), params, out, signal);
  }
  const truncated = out.full !== undefined;
  let text =
    out.lines.length === 0 ? `No matches for ${JSON.stringify(params.pattern)} in ${JSON.stringify(path.input)}.` : out.lines.join("\n");
  if (truncated) {
    const why = out.full === "limit" ? `limit ${limit}` : `the ${ctx.maxTotalSize}-byte output limit (maxTotalSize)`;
    text += `\n\n[Stopped after ${out.matches} matching lines (${why}). Narrow the pattern, set glob or path, or raise limit.]`;
  }
  if (warnings.length > 0) text += `\n\n[Some files could not be searched:\n${warnings.slice(0, 10).join("\n")}]`;
  return {
    content: [{ type: "text", text }],
    details: { path: path.absolute, pattern: params.pattern, matches: out.matches, truncated, engine: rg ? "ripgrep" : "node" },
  };
}

function badPattern(pattern: string, why: string): FsError {
  return new FsError(FsErrorCode.BAD_PATTERN, `The pattern ${JSON.stringify(pattern)} is not a valid regular expression: ${why}. Fix it, or set literal: true to search for the text as it is.`, {
    pattern,
  });
}

/** Runs ripgrep, parsing `path\0line:text` (match) and `path\0line-text` (context) lines; stops it when full. */
function withRipgrep(
  rg: string,
  path: CheckedPath,
  isFolder: boolean,
  params: GrepParams,
  out: Collector,
  signal?: AbortSignal,
): Promise<string[]> {
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
  args.push("--regexp", params.pattern, "--", isFolder ? "." : path.real);

  return new Promise((resolve, reject) => {
    const child = spawn(rg, args, { cwd: isFolder ? path.real : undefined, stdio: ["ignore", "pipe", "pipe"] });
    let stopped = false;
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
      const after = line.slice(nul + 1);
      const m = /^(\d+)([:-])/.exec(after);
      if (!m) return;
      const isMatch = m[2] === ":";
      if (!out.add(`${file}${m[2]}${m[1]}${m[2]}${after.slice(m[0].length)}`, isMatch)) stop();
    };
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk: string) => {
      if (stopped) return;
      const lines = (rest + chunk).split("\n");
      rest = lines.pop() ?? "";
      for (const line of lines) {
        take(line);
        if (stopped) return;
      }
    });
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (chunk: string) => {
      if (stderr.length < 64 * 1024) stderr += chunk;
    });
    child.on("error", (error) => {
      signal?.removeEventListener("abort", onAbort);
      reject(error);
    });
    child.on("close", (code) => {
      signal?.removeEventListener("abort", onAbort);
      if (signal?.aborted) return reject(signal.reason ?? new Error("aborted"));
      if (!stopped && rest.length > 0) take(rest);
      if (!stopped && code === 2 && out.lines.length === 0 && /regex|parse error/i.test(stderr)) {
        return reject(badPattern(params.pattern, stderr.trim().split("\n").slice(-3).join(" ").trim()));
      }
      if (!stopped && code === 2 && out.lines.length === 0 && /glob/i.test(stderr)) {
        return reject(new FsError(FsErrorCode.BAD_PATTERN, `The glob ${JSON.stringify(params.glob)} is invalid: ${stderr.trim()}`, { glob: params.glob }));
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
  isFolder: boolean,
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
  let files: { absolute: string; shown: string }[];
  if (isFolder) {
    const pattern = params.glob ? (params.glob.includes("/") ? params.glob : `**/${params.glob}`) : "**/*";
    const { glob: findFiles } = await import("tinyglobby");
    const [found, ignored] = await Promise.all([
      findFiles(pattern, {
        cwd: path.real,
        dot: true,
        followSymbolicLinks: false,
        ignore: ["**/.git/**"],
        ...(signal ? { signal } : {}),
      }),
      loadGitignore(path.real, root, signal),
    ]);
    files = found
      .map((file) => ({ absolute: join(path.real, file), shown: file }))
      .filter((file) => !ignored(file.absolute) && isInside(file.absolute, path.real))
      .sort((a, b) => (a.shown < b.shown ? -1 : 1));
  } else {
    files = [{ absolute: path.real, shown: path.input }];
  }
  const warnings: string[] = [];
  const context = params.context ?? 0;
  for (const file of files) {
    signal?.throwIfAborted();
    if (out.full) break;
    let text: string;
    try {
      const info = await stat(file.absolute);
      if (!info.isFile()) continue;
      if (info.size > MAX_NODE_FILE) {
        warnings.push(`${file.shown}: skipped, larger than ${MAX_NODE_FILE} bytes (install @vscode/ripgrep to search it)`);
        continue;
      }
      const handle = await open(file.absolute, "r");
      try {
        const head = Buffer.alloc(Math.min(SNIFF_BYTES, info.size));
        await handle.read(head, 0, head.length, 0);
        if (sniff(head).kind !== "text") continue;
        text = await handle.readFile("utf8");
      } finally {
        await handle.close();
      }
    } catch (error) {
      warnings.push(`${file.shown}: ${(error as Error).message}`);
      continue;
    }
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
        for (let k = from; k < i; k++) out.add(`${file.shown}-${k + 1}-${clip((lines[k] as string).replace(/\r$/, ""))}`, false);
        afterUntil = i + context;
      }
      if (!out.add(`${file.shown}${isMatch ? ":" : "-"}${i + 1}${isMatch ? ":" : "-"}${clip(line)}`, isMatch)) break;
      printedUpTo = i;
    }
  }
  return warnings;
}

function clip(line: string): string {
  return line.length > MAX_COLUMNS ? `${line.slice(0, MAX_COLUMNS)} [... ${line.length - MAX_COLUMNS} more characters]` : line;
}

