import type { AnyAgentTool } from "@toolhost/core";
import { createContext, type FsContext } from "./_context.js";
import type { FsToolOptions } from "./options.js";
import { editTool } from "./edit.js";
import { findTool } from "./find.js";
import { grepTool } from "./grep.js";
import { lsTool } from "./ls.js";
import { readTool } from "./read.js";
import { writeTool } from "./write.js";

/** All six file tools (read, write, edit, ls, find, grep), sharing one set of options. */
export function createFsTools(options: FsToolOptions = {}): AnyAgentTool[] {
  return toolsOf(createContext(options));
}

export function toolsOf(ctx: FsContext): AnyAgentTool[] {
  return [readTool(ctx), writeTool(ctx), editTool(ctx), lsTool(ctx), findTool(ctx), grepTool(ctx)];
}
