import { Type, type AgentTool, type AgentToolResult, type Static } from "@toolhost/core";
import { both } from "./_access.js";
import { rename } from "./_arguments.js";
import { writeAtomic } from "./_atomic.js";
import { createContext, type FsContext } from "./_context.js";
import { checkLeadsAsJudged, recordJudged, takeJudged } from "./_judged.js";
import { checkHardLinks } from "./_links.js";
import { withPathLock } from "./_lock.js";
import { checkPath } from "./_paths.js";
import { fsTool } from "./_tool.js";
import type { FsToolOptions } from "./options.js";

export const WriteParameters = Type.Object(
  {
    path: Type.String({ description: "The file to write, relative to the working directory or absolute. Missing folders are created." }),
    content: Type.String({ description: "The whole new content of the file." }),
  },
  { additionalProperties: false },
);

/** `details` of a `write` result. */
export interface WriteDetails {
  path: string;
  bytesWritten: number;
  /** Whether the file did not exist before. */
  created: boolean;
}

/** The `write` tool: replaces a file atomically, creating folders, keeping an existing file's mode. */
export function createWriteTool(options: FsToolOptions = {}): AgentTool<typeof WriteParameters, WriteDetails> {
  return writeTool(createContext(options));
}

export function writeTool(ctx: FsContext): AgentTool<typeof WriteParameters, WriteDetails> {
  return fsTool(ctx, {
    name: "write",
    label: "Write file",
    description:
      "Create or replace a file with the given content (atomically: readers see the old or the new file, never a mix). Creates missing folders. To change part of a file, use edit.",
    parameters: WriteParameters,
    executionMode: "sequential",
    annotations: { readOnly: false, destructive: true, idempotent: true },
    aliases: ["file_path"],
    dialect(args) {
      rename(args, "file_path", "path"); // Claude Code
      return args;
    },
    target: (params) => params.path,
    access: async (ctx, params) => {
      const path = await checkPath(ctx, params.path);
      const existing = await recordJudged(params, path);
      if (existing?.isFile()) await checkHardLinks(ctx, path, existing, "write");
      // The new content, for an approver's diff (core's ToolAccess.contents); it is the arguments' own string, not a copy.
      return { writes: both(path), contents: [{ path: path.absolute, content: params.content }] };
    },
    run: write,
  });
}

async function write(ctx: FsContext, params: Static<typeof WriteParameters>): Promise<AgentToolResult<WriteDetails>> {
  const judged = takeJudged(params);
  const path = await checkPath(ctx, params.path);
  checkLeadsAsJudged(path, judged);
  const roots = await ctx.realRoots();
  const { bytesWritten, created } = await withPathLock(path.real, () =>
    writeAtomic(path, roots, params.content, {
      overwriteReadOnly: ctx.overwriteReadOnly,
      ...(judged && { judged }),
      checkFile: (info) => checkHardLinks(ctx, path, info, "write"),
    }),
  );
  return {
    content: [{ type: "text", text: `✓ Wrote ${bytesWritten} bytes to ${path.input}` }],
    details: { path: path.absolute, bytesWritten, created },
  };
}
