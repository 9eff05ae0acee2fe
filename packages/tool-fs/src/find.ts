import { Type, type Static, type AgentTool, type AgentToolResult } from "@toolhost/core";
import { join } from "node:path";
import { asResult, FsError, FsErrorCode } from "./_errors.js";
import { loadGitignore } from "./_ignore.js";
import { createContext, type FsContext, type FsToolOptions } from "./_options.js";
import { checkPath, isInside, statOrExplain } from "./_paths.js";

export const FindParameters = Type.Object({
  pattern: Type.String({ description: 'A glob, relative to path: "**/*.ts", "src/**/test_*.py", "*.{json,yaml}".' }),
  path: Type.Optional(Type.String({ description: "The folder to search in. Default: the working directory." })),
  limit: Type.Optional(Type.Integer({ minimum: 1, description: "The most paths to return. Default 1000." })),
});

/** `details` of a `find` result. */
export interface FindDetails {
  path: string;
  pattern: string;
  /** Paths shown. */
  matches: number;
  /** Paths that matched. */
  total: number;
  truncated: boolean;
}

const DEFAULT_LIMIT = 1000;

/** The `find` tool: files matching a glob, sorted, skipping what `.gitignore` ignores. */
export function createFindTool(options: FsToolOptions = {}): AgentTool<typeof FindParameters, FindDetails> {
  return findTool(createContext(options));
}

export function findTool(ctx: FsContext): AgentTool<typeof FindParameters, FindDetails> {
  return {
    name: "find",
    label: "Find files",
    description: `Find files by glob pattern (hidden files included, .gitignore respected, symbolic links not followed). Returns paths relative to the searched folder, sorted, up to ${DEFAULT_LIMIT} unless limit says otherwise.`,
    parameters: FindParameters,
    executionMode: "parallel",
    execute: (_id, params, signal) =>
      asResult(signal, params.path ?? ".", () => find(ctx, params, signal)) as Promise<AgentToolResult<FindDetails>>,
  };
}

async function find(ctx: FsContext, params: Static<typeof FindParameters>, signal?: AbortSignal): Promise<AgentToolResult<FindDetails>> {
  const pattern = params.pattern;
  if (pattern.length === 0 || pattern.startsWith("/") || pattern.split("/").includes("..")) {
    throw new FsError(
      FsErrorCode.BAD_PATTERN,
      `The pattern ${JSON.stringify(pattern)} must be a non-empty glob relative to the searched folder, without "/" at the start or ".." parts. To search elsewhere, set path.`,
      { pattern },
    );
  }
  const path = await checkPath(ctx, params.path ?? ".");
  const info = await statOrExplain(ctx, path);
  if (!info.isDirectory()) {
    throw new FsError(FsErrorCode.NOT_DIRECTORY, `"${path.input}" is a file; find searches a folder. Give its folder as path.`, {
      path: path.absolute,
    });
  }
  const roots = await ctx.realRoots();
  const root = roots.find((each) => isInside(path.real, each)) as string;
  const { glob } = await import("tinyglobby");
  const [found, ignored] = await Promise.all([
    glob(pattern, {
      cwd: path.real,
      dot: true,
      followSymbolicLinks: false,
      expandDirectories: false,
      ignore: ["**/.git/**"],
      ...(signal ? { signal } : {}),
    }),
    loadGitignore(path.real, root, signal),
  ]);
  const all = found.filter((file) => !ignored(join(path.real, file))).sort();
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
  let text = all.length === 0 ? `No files match ${JSON.stringify(pattern)} in ${JSON.stringify(path.input)}.` : shown.join("\n");
  if (truncated) {
    const why = shown.length >= limit ? `limit ${limit}` : `the ${ctx.maxTotalSize}-byte output limit (maxTotalSize)`;
    text += `\n\n[Showing ${shown.length} of ${all.length} paths (${why}). Narrow the pattern or raise limit.]`;
  }
  return {
    content: [{ type: "text", text }],
    details: { path: path.absolute, pattern, matches: shown.length, total: all.length, truncated },
  };
}
