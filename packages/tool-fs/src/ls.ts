import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { Type, type AgentTool, type AgentToolResult, type Static } from "@toolhost/core";
import { both } from "./_access.js";
import { rename } from "./_arguments.js";
import { createContext, type FsContext } from "./_context.js";
import { echo } from "./_echo.js";
import { FsError } from "./_errors.js";
import { excluder } from "./_exclude.js";
import { locate } from "./_paths.js";
import { leftOutNote, protectedIn } from "./_protect.js";
import { type FsCall, fsTool } from "./_tool.js";
import { FsErrorCode } from "./errors.js";
import type { FsToolOptions } from "./options.js";

export const LsParameters = Type.Object(
  {
    path: Type.Optional(Type.String({ description: "The folder to list. Default: the working directory." })),
    limit: Type.Optional(Type.Integer({ minimum: 1, description: "The most entries to show. Default 500." })),
    exclude: Type.Optional(
      Type.Array(Type.String(), { maxItems: 100, description: 'Globs of names to leave out, e.g. ["node_modules", "*.log"].' }),
    ),
  },
  { additionalProperties: false },
);

/** `details` of an `ls` result. */
export interface LsDetails {
  path: string;
  /** Entries shown. */
  entries: number;
  /** Entries in the folder (after `exclude` and the policy). */
  total: number;
  truncated: boolean;
  /** Entries the policy denies to read, left out. */
  leftOutByPolicy?: number;
}

const DEFAULT_LIMIT = 500;

/** The `ls` tool: a folder's entries, sorted, folders marked with `/`, capped by `limit` and `maxTotalSize`. */
export function createLsTool(options: FsToolOptions = {}): AgentTool<typeof LsParameters, LsDetails> {
  return lsTool(createContext(options));
}

export function lsTool(ctx: FsContext): AgentTool<typeof LsParameters, LsDetails> {
  return fsTool(ctx, {
    name: "ls",
    label: "List folder",
    description: `List the entries of a folder (hidden ones included), sorted; folders end with "/", symbolic links with "@". Shows up to ${DEFAULT_LIMIT} entries unless limit says otherwise.`,
    parameters: LsParameters,
    executionMode: "parallel",
    annotations: { readOnly: true, idempotent: true },
    aliases: ["ignore", "excludePatterns"],
    dialect(args) {
      rename(args, "ignore", "exclude"); // Claude Code's LS
      rename(args, "excludePatterns", "exclude"); // MCP filesystem
      return args;
    },
    target: (params) => params.path ?? ".",
    access: async (ctx, params) => {
      excluder(params.exclude);
      return { readTrees: both((await locate(ctx, params.path ?? ".")).path) };
    },
    run: ls,
  });
}

async function ls(ctx: FsContext, params: Static<typeof LsParameters>, call: FsCall): Promise<AgentToolResult<LsDetails>> {
  const { path, info, note } = await locate(ctx, params.path ?? ".");
  if (note) call.notes.push(note);
  if (!info.isDirectory()) {
    throw new FsError(FsErrorCode.NOT_DIRECTORY, `${echo(path.input)} is a file, not a folder. Use read to see its content.`, {
      path: path.absolute,
    });
  }
  const excluded = excluder(params.exclude);
  const policy = await protectedIn(ctx, path);
  const entries = await readdir(path.real, { withFileTypes: true });
  const names: string[] = [];
  for (const entry of entries) {
    if (excluded(entry.name)) continue;
    if (policy.denies(join(path.real, entry.name))) {
      policy.leaveOut(entry.name);
      continue;
    }
    names.push(entry.name + (entry.isDirectory() ? "/" : entry.isSymbolicLink() ? "@" : ""));
  }
  names.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
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
  if (policy.count > 0) call.notes.push(leftOutNote(policy.count));
  const details: LsDetails = { path: path.absolute, entries: shown.length, total: names.length, truncated };
  if (policy.count > 0) details.leftOutByPolicy = policy.count;
  return { content: [{ type: "text", text }], details };
}
