import { readdir } from "node:fs/promises";
import { Type, type Static, type AgentTool, type AgentToolResult } from "@toolhost/core";
import { asResult, FsError, FsErrorCode } from "./_errors.js";
import { createContext, type FsContext, type FsToolOptions } from "./_options.js";
import { checkPath, statOrExplain } from "./_paths.js";

export const LsParameters = Type.Object({
  path: Type.Optional(Type.String({ description: "The folder to list. Default: the working directory." })),
  limit: Type.Optional(Type.Integer({ minimum: 1, description: "The most entries to show. Default 500." })),
});

/** `details` of an `ls` result. */
export interface LsDetails {
  path: string;
  /** Entries shown. */
  entries: number;
  /** Entries in the folder. */
  total: number;
  truncated: boolean;
}

const DEFAULT_LIMIT = 500;

/** The `ls` tool: a folder's entries, sorted, folders marked with `/`, capped by `limit` and `maxTotalSize`. */
export function createLsTool(options: FsToolOptions = {}): AgentTool<typeof LsParameters, LsDetails> {
  return lsTool(createContext(options));
}

export function lsTool(ctx: FsContext): AgentTool<typeof LsParameters, LsDetails> {
  return {
    name: "ls",
    label: "List folder",
    description: `List the entries of a folder (hidden ones included), sorted; folders end with "/", symbolic links with "@". Shows up to ${DEFAULT_LIMIT} entries unless limit says otherwise.`,
    parameters: LsParameters,
    executionMode: "parallel",
    execute: (_id, params, signal) =>
      asResult(signal, params.path ?? ".", () => ls(ctx, params)) as Promise<AgentToolResult<LsDetails>>,
  };
}

async function ls(ctx: FsContext, params: Static<typeof LsParameters>): Promise<AgentToolResult<LsDetails>> {
  const path = await checkPath(ctx, params.path ?? ".");
  const info = await statOrExplain(ctx, path);
  if (!info.isDirectory()) {
    throw new FsError(FsErrorCode.NOT_DIRECTORY, `"${path.input}" is a file, not a folder. Use read to see its content.`, {
      path: path.absolute,
    });
  }
  const entries = await readdir(path.real, { withFileTypes: true });
  const names = entries
    .map((entry) => entry.name + (entry.isDirectory() ? "/" : entry.isSymbolicLink() ? "@" : ""))
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const limit = params.limit ?? DEFAULT_LIMIT;
  const shown: string[] = [];
  let size = 0;
  for (const name of names) {
    const bytes = Buffer.byteLength(name) + 1;
    if (shown.length >= limit || size + bytes > ctx.maxTotalSize) break;
    shown.push(name);
    size += bytes;
  }
  const truncated = shown.length < names.length;
  let text = names.length === 0 ? `(${path.input} is empty)` : shown.join("\n");
  if (truncated) {
    const why = shown.length >= limit ? `limit ${limit}` : `the ${ctx.maxTotalSize}-byte output limit (maxTotalSize)`;
    text += `\n\n[Showing ${shown.length} of ${names.length} entries (${why}). Raise limit, or use find with a pattern.]`;
  }
  return {
    content: [{ type: "text", text }],
    details: { path: path.absolute, entries: shown.length, total: names.length, truncated },
  };
}
