import { Type, type AgentTool, type AgentToolResult, type Static, isInside } from "@toolhost/core";
import { both } from "./_access.js";
import { type Args, refuse, rename } from "./_arguments.js";
import { createContext, type FsContext } from "./_context.js";
import { capped, echo } from "./_echo.js";
import { Collector, globOf, type GrepOutcome, type GrepSearch, type Source } from "./_grep.js";
import { withNode } from "./_grep-node.js";
import { withRipgrep } from "./_grep-rg.js";
import { reportSkipped } from "./_ignore.js";
import { openChecked } from "./_open.js";
import { type CheckedPath, locate } from "./_paths.js";
import { leftOutNote, type Protected, protectedIn } from "./_protect.js";
import { ripgrepPath } from "./_ripgrep.js";
import { type FsCall, fsTool } from "./_tool.js";
import { checkPatternSize, compileGlob } from "./_walk.js";
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
    includeSkipped: Type.Optional(
      Type.Boolean({ description: "Also search the dependency and cache folders skipped by default (node_modules, .venv, …)." }),
    ),
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
  /** Folders skipped as dependencies or caches (relative to `path`, at most 100), where `glob` could have matched. */
  skippedFolders?: string[];
}

const DEFAULT_LIMIT = 100;

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
    description: `Search file contents for a regular expression (or plain text with literal). Hidden files included, .gitignore respected, node_modules and other dependency or cache folders skipped unless includeSkipped, binary files skipped. Prints "path:line:text" per match ("path-line-text" for context lines), up to ${DEFAULT_LIMIT} matches unless limit says otherwise.`,
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

async function grep(ctx: FsContext, params: GrepParams, call: FsCall): Promise<AgentToolResult<GrepDetails>> {
  checkPatterns(params);
  const { path, info, note } = await locate(ctx, params.path ?? ".");
  if (note) call.notes.push(note);
  const limit = params.limit ?? DEFAULT_LIMIT;
  const out = new Collector(limit, ctx.maxTotalSize);
  const rg = ctx.ripgrep ? await ripgrepPath() : undefined;
  const isFolder = info.isDirectory();
  const policy = isFolder ? await protectedIn(ctx, path) : undefined;
  // A single file is opened here, non-blocking, and must be a regular file: a FIFO never hangs the search.
  const single = isFolder ? undefined : await openChecked(ctx, path, "grep");
  let outcome: GrepOutcome;
  try {
    const source: Source = single ? { file: single.file } : { policy: policy as Protected };
    const search = await searchOf(ctx, path, source, params, out, call.signal);
    outcome = rg ? await withRipgrep(rg, search) : await withNode(search);
  } finally {
    await single?.file.close();
  }
  const details: GrepDetails = { path: path.absolute, pattern: capped(params.pattern), matches: out.matches, truncated: out.full !== undefined, engine: rg ? "ripgrep" : "node" };
  const skipped = reportSkipped(outcome.skipped, globOf(params.glob));
  if (skipped) {
    call.notes.push(skipped.note);
    details.skippedFolders = skipped.folders;
  }
  if (policy && policy.count > 0) {
    call.notes.push(leftOutNote(policy.count));
    details.leftOutByPolicy = policy.count;
  }
  return { content: [{ type: "text", text: textOf(params, path, out, outcome.warnings, ctx.maxTotalSize) }], details };
}

async function searchOf(
  ctx: FsContext,
  path: CheckedPath,
  source: Source,
  params: GrepParams,
  out: Collector,
  signal: AbortSignal | undefined,
): Promise<GrepSearch> {
  const roots = await ctx.realRoots();
  const root = roots.find((each) => isInside(path.real, each)) as string;
  return { path, root, source, query: params, skip: params.includeSkipped ? [] : ctx.skipFolders, out, signal };
}

/** The result's text: the lines, or that nothing matched; why it stopped; what could not be searched. */
function textOf(params: GrepParams, path: CheckedPath, out: Collector, warnings: readonly string[], maxTotalSize: number): string {
  let text = out.lines.length === 0 ? `No matches for ${echo(params.pattern)} in ${echo(path.input)}.` : out.lines.join("\n");
  if (out.full !== undefined) {
    const why = out.full === "limit" ? `limit ${out.limit}` : `the ${maxTotalSize}-byte output limit (maxTotalSize)`;
    text += `\n\n[Stopped after ${out.matches} matching lines (${why}). Narrow the pattern, set glob or path, or raise limit.]`;
  }
  if (warnings.length > 0) text += `\n\n[Some files could not be searched:\n${warnings.slice(0, 10).join("\n")}]`;
  return text;
}
