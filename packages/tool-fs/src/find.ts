import { join } from "node:path";
import { Type, type AgentTool, type AgentToolResult, type Static, isInside } from "@toolhost/core";
import { both } from "./_access.js";
import { rename } from "./_arguments.js";
import { createContext, type FsContext } from "./_context.js";
import { echo } from "./_echo.js";
import { FsError } from "./_errors.js";
import { excluder } from "./_exclude.js";
import { loadGitignore } from "./_ignore.js";
import { locate } from "./_paths.js";
import { leftOutNote, protectedIn } from "./_protect.js";
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
    description: `Find files by glob pattern (hidden files included, .gitignore respected, symbolic links not followed). Returns paths relative to the searched folder, sorted, up to ${DEFAULT_LIMIT} unless limit says otherwise.`,
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
  const roots = await ctx.realRoots();
  const root = roots.find((each) => isInside(path.real, each)) as string;
  const signal = call.signal;
  const [found, ignored, policy] = await Promise.all([
    walk({ cwd: path.real, pattern, ...(signal ? { signal } : {}) }),
    loadGitignore(path.real, root, signal),
    protectedIn(ctx, path),
  ]);
  const all: string[] = [];
  for (const file of found) {
    const absolute = join(path.real, file);
    if (ignored(absolute) || excluded(file)) continue;
    if (policy.denies(absolute)) {
      policy.leaveOut(file);
      continue;
    }
    all.push(file);
  }
  all.sort();
  const limit = params.limit ?? DEFAULT_LIMIT;
  const shown: string[] = [];
  let size = 0;
  for (const file of all) {
    const bytes = Buffer.byteLength(file) + 1;
    if (shown.length >= limit || size + bytes > ctx.maxTotalSize) break;
    shown.push(file);
    size += bytes;
  }
  const truncated = shown.length < all.length;
  let text = all.length === 0 ? `No files match ${echo(pattern)} in ${echo(path.input)}.` : shown.join("\n");
  if (truncated) {
    const why = shown.length >= limit ? `limit ${limit}` : `the ${ctx.maxTotalSize}-byte output limit (maxTotalSize)`;
    text += `\n\n[Showing ${shown.length} of ${all.length} paths (${why}). Narrow the pattern or raise limit.]`;
  }
  if (policy.count > 0) call.notes.push(leftOutNote(policy.count));
  const details: FindDetails = { path: path.absolute, pattern, matches: shown.length, total: all.length, truncated };
  if (policy.count > 0) details.leftOutByPolicy = policy.count;
  return { content: [{ type: "text", text }], details };
}
