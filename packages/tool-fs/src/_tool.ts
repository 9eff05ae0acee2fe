import type {
  AgentTool,
  AgentToolResult,
  ExecutionMode,
  Static,
  TObject,
  ToolAccess,
  ToolAnnotations,
} from "@toolhost/core";
import { type Args, isArgs, rejectUnknown } from "./_arguments.js";
import type { FsContext } from "./_context.js";
import { asResult } from "./_errors.js";

/** What a tool body gets besides its arguments. */
export interface FsCall {
  signal: AbortSignal | undefined;
  /** Lines added to the end of the result's text (e.g. "used the name X you probably meant"). */
  notes: string[];
}

/** One file tool, described once; `fsTool` turns it into an `AgentTool`. */
export interface FsToolSpec<P extends TObject, D> {
  name: string;
  label: string;
  description: string;
  parameters: P;
  executionMode: ExecutionMode;
  annotations: ToolAnnotations;
  /** Other hosts' argument names turned into ours (each tool's README table); the copy may be changed. */
  dialect?: (args: Args) => Args;
  /** Names `dialect` understands, for "did you mean". */
  aliases?: readonly string[];
  /** The path a call is about, for error details. */
  target(params: Static<P>): string | undefined;
  /** What a call touches; throws an `FsError` for a call the tool would refuse (outside the roots, missing). */
  access(ctx: FsContext, params: Static<P>): Promise<ToolAccess>;
  run(ctx: FsContext, params: Static<P>, call: FsCall): Promise<AgentToolResult<D>>;
}

/**
 * Builds a file tool: dialects and unknown arguments in `prepareArguments`, the access
 * declaration, and a body whose errors become error results with a stable code.
 */
export function fsTool<P extends TObject, D>(ctx: FsContext, spec: FsToolSpec<P, D>): AgentTool<P, D> {
  const allowed = Object.keys(spec.parameters.properties);
  return {
    name: spec.name,
    label: spec.label,
    description: spec.description,
    parameters: spec.parameters,
    executionMode: spec.executionMode,
    annotations: spec.annotations,
    prepareArguments(args) {
      if (!isArgs(args)) return args;
      const mapped = spec.dialect ? spec.dialect({ ...args }) : args;
      rejectUnknown(mapped, allowed, spec.aliases ?? []);
      return mapped;
    },
    access: (params) => spec.access(ctx, params),
    async execute(_id, params, signal) {
      const call: FsCall = { signal, notes: [] };
      const result = await asResult(signal, spec.target(params), () => spec.run(ctx, params, call));
      return withNotes(result, call.notes) as AgentToolResult<D>;
    },
  };
}

function withNotes<T>(result: AgentToolResult<T>, notes: readonly string[]): AgentToolResult<T> {
  if (notes.length === 0) return result;
  const first = result.content[0];
  const text = notes.join("\n");
  if (first?.type === "text") {
    return { ...result, content: [{ type: "text", text: `${first.text}\n\n${text}` }, ...result.content.slice(1)] };
  }
  return { ...result, content: [...result.content, { type: "text", text }] };
}
