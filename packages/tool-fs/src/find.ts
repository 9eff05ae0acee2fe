import { join } from "node:path";
import { Type, type AgentTool, type AgentToolResult, type Static, isInside } from "@toolhost/core";
import { both } from "./_access.js";
import { rename } from "./_arguments.js";
import { createContext, type FsContext } from "./_context.js";
import { echo } from "./_echo.js";
import { FsError } from "./_errors.js";
import { excluder } from "./_exclude.js";
import { Ignores, reportSkipped } from "./_ignore.js";
import { type CheckedPath, locate } from "./_paths.js";
import { leftOutNote, type Protected, protectedIn } from "./_protect.js";
import { type FsCall, fsTool } from "./_tool.js";
import { compileGlob, walk } from "./_walk.js";
import { FsErrorCode } from "./errors.js";
import type { FsToolOptions } from "./options.js";

export const FindParameters = Type.Object(
  {
    pattern: Type.String({ description: 'A glob, relative to path: "**/*.ts", "src/**/test_*.py", "*.{json,yaml}".' }),
    path: Type.Optional(Type.String({ description: "The folder to search in. Default: the working directory." })),
    limit: Type.Optional(Type.Integer({ minimum: 1, description: "The most paths to return. Default 1000." })),
    exclude: Type.Optional(
      Type.Array(Type.String(), { maxItems: 100, description: 'Globs of paths or names to leave out, e.g. ["node_modules", "**/*.min.js"].' }),
    ),
    includeSkipped: Type.Optional(
      Type.Boolean({ description: "Also search the dependency and cache folders skipped by default (node_modules, .venv, …)." }),
    ),
  },
  { additionalProperties: false },
);

/** `details` of a `find` result. */
export interface FindDetails {
  path: string;
  pattern: string;
  /** Paths shown. */
  matches: number;
  /** Paths that matched. */
  total: number;
  truncated: boolean;
  /** Matching paths the policy denies to read, left out. */
  leftOutByPolicy?: number;
  /** Folders skipped as dependencies or caches (relative to `path`, at most 100), where the pattern could have matched. */
  skippedFolders?: string[];
}

const DEFAULT_LIMIT = 1000;

/** The `find` tool: files matching a glob, sorted, skipping what `.gitignore` ignores. */
export function createFindTool(options: FsToolOptions = {}): AgentTool<typeof FindParameters, FindDetails> {
  return findTool(createContext(options));
}

export function findTool(ctx: FsContext): AgentTool<typeof FindParameters, FindDetails> {
  return fsTool(ctx, {
    name: "find",
    label: "Find files",
    description: `Find files by glob pattern (hidden files included, .gitignore respected, node_modules and other dependency or cache folders skipped unless includeSkipped, symbolic links not followed). Returns paths relative to the searched folder, sorted, up to ${DEFAULT_LIMIT} unless limit says otherwise.`,
    parameters: FindParameters,
    executionMode: "parallel",
    annotations: { readOnly: true, idempotent: true },
    aliases: ["excludePatterns"],
    dialect(args) {
      rename(args, "excludePatterns", "exclude"); // MCP filesystem
      return args;
    },
    target: (params) => params.path ?? ".",
    access: async (ctx, params) => {
      checkPattern(params.pattern);
      excluder(params.exclude);
      return { readTrees: both((await locate(ctx, params.path ?? ".")).path) };
    },
    run: find,
  });
}

function checkPattern(pattern: string): void {
  if (pattern.length === 0 || pattern.startsWith("/") || pattern.split("/").includes("..")) {
    throw new FsError(
      FsErrorCode.BAD_PATTERN,
      `The pattern ${echo(pattern)} must be a non-empty glob relative to the searched folder, without "/" at the start or ".." parts. To search elsewhere, set path.`,
      { pattern: pattern.slice(0, 200) },
    );
  }
  compileGlob(pattern);
}

async function find(ctx: FsContext, params: Static<typeof FindParameters>, call: FsCall): Promise<AgentToolResult<FindDetails>> {
  const pattern = params.pattern;
  checkPattern(pattern);
  const excluded = excluder(params.exclude);
  const { path, info, note } = await locate(ctx, params.path ?? ".");
  if (note) call.notes.push(note);
  if (!info.isDirectory()) {
    throw new FsError(FsErrorCode.NOT_DIRECTORY, `${echo(path.input)} is a file; find searches a folder. Give its folder as path.`, {
      path: path.absolute,
    });
  }
  const { all, policy, ignores } = await matching(ctx, path, params, excluded, call.signal);
  const limit = params.limit ?? DEFAULT_LIMIT;
  const shown = firstFitting(all, limit, ctx.maxTotalSize);
  const truncated = shown.length < all.length;
  let text = all.length === 0 ? `No files match ${echo(pattern)} in ${echo(path.input)}.` : shown.join("\n");
  if (truncated) {
    const why = shown.length >= limit ? `limit ${limit}` : `the ${ctx.maxTotalSize}-byte output limit (maxTotalSize)`;
    text += `\n\n[Showing ${shown.length} of ${all.length} paths (${why}). Narrow the pattern or raise limit.]`;
  }
  const details: FindDetails = { path: path.absolute, pattern, matches: shown.length, total: all.length, truncated };
  const skipped = reportSkipped(ignores.skipped, pattern);
  if (skipped) {
    call.notes.push(skipped.note);
    details.skippedFolders = skipped.folders;
  }
  if (policy.count > 0) {
    call.notes.push(leftOutNote(policy.count));
    details.leftOutByPolicy = policy.count;
  }
  return { content: [{ type: "text", text }], details };
}

/** The files below `path` matching the pattern, sorted: what ignore files, `exclude` and the policy leave out taken out. */
async function matching(
  ctx: FsContext,
  path: CheckedPath,
  params: Static<typeof FindParameters>,
  excluded: (relative: string) => boolean,
  signal: AbortSignal | undefined,
): Promise<{ all: string[]; policy: Protected; ignores: Ignores }> {
  const roots = await ctx.realRoots();
  const root = roots.find((each) => isInside(path.real, each)) as string;
  const ignores = await Ignores.below(path.real, root, params.includeSkipped ? [] : ctx.skipFolders);
  const [found, policy] = await Promise.all([
    walk({ cwd: path.real, pattern: params.pattern, filter: ignores, ...(signal ? { signal } : {}) }),
    protectedIn(ctx, path),
  ]);
  const all: string[] = [];
  for (const file of found) {
    if (excluded(file)) continue;
    if (policy.denies(join(path.real, file))) {
      policy.leaveOut(file);
      continue;
    }
    all.push(file);
  }
  return { all: all.sort(), policy, ignores };
}

/** The first paths that fit `limit` and `maxSize` bytes of output (a newline each). */
function firstFitting(all: readonly string[], limit: number, maxSize: number): string[] {
  const shown: string[] = [];
  let size = 0;
  for (const file of all) {
    const bytes = Buffer.byteLength(file) + 1;
    if (shown.length >= limit || size + bytes > maxSize) break;
    shown.push(file);
    size += bytes;
  }
  return shown;
}
