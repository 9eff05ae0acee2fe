import { ErrorCode, ToolhostError, messageOf } from "./errors.js";
import { preview, snapshot } from "./preview.js";
import { toolError } from "./results.js";
import type { PipelineScope } from "./_scope.js";
import { callTap, isThenable, onlyTap } from "./_taps.js";
import { formatProblems } from "./validate.js";
import type { AgentToolResult, AnyAgentTool, ToolCall, ToolCallContext, ValidationProblem } from "./types/index.js";

/*
 * Stages resolve and prepare: the call's tool, its arguments transformed and validated, and what
 * it will touch declared. A hook that only the kernel taps is called directly.
 */

/** Arguments bigger or deeper than this are cut in the `details` of an invalid-arguments result. */
const ARGUMENT_LIMITS = { depth: 32, nodes: 10_000, string: 10_000 };
/** Names of calls are echoed up to this length. */
const MAX_NAME = 200;

/** A call's name for a message, cut. */
export function nameOf(call: ToolCall): string {
  return call.name.length > MAX_NAME ? `${call.name.slice(0, MAX_NAME)}…` : call.name;
}

/**
 * Stage resolve: the call's tool, or the result that ends the call. Synchronous when the registry
 * answers alone (the common case: it saves a batch of promises).
 */
export function resolveTool(scope: PipelineScope, call: ToolCall): AnyAgentTool | AgentToolResult | Promise<AnyAgentTool | AgentToolResult> {
  const hook = scope.hooks.resolveTool;
  try {
    const only = onlyTap(hook);
    const found = only ? callTap(only, [call]) : hook.promise(call);
    if (!isThenable(found)) return toolOf(scope, call, found);
    return Promise.resolve(found).then(
      (tool) => toolOf(scope, call, tool),
      (error: unknown) => resolveFailed(call, error),
    );
  } catch (error) {
    return resolveFailed(call, error);
  }
}

/** What `resolveTool` found: a tool, nothing (not found), or something else (a tap's bug). */
function toolOf(scope: PipelineScope, call: ToolCall, found: unknown): AnyAgentTool | AgentToolResult {
  if (found === undefined || found === null) return notFound(scope, call);
  if (typeof found === "object" && typeof (found as AnyAgentTool).execute === "function") return found as AnyAgentTool;
  return resolveFailed(call, `a resolveTool tap returned ${preview(found, 200)}, not a tool`);
}

function resolveFailed(call: ToolCall, error: unknown): AgentToolResult {
  return toolError(ErrorCode.TOOL_RESOLVE_FAILED, `Could not find the tool of call "${nameOf(call)}": ${messageOf(error)}`);
}

function notFound(scope: PipelineScope, call: ToolCall): AgentToolResult {
  const names = scope.tools.map((tool) => tool.name);
  const available = names.length > 0 ? `Available tools: ${names.join(", ")}.` : "No tools are registered.";
  return toolError(ErrorCode.TOOL_NOT_FOUND, `Tool "${nameOf(call)}" not found. ${available}`, {
    toolName: nameOf(call),
    availableTools: names,
  });
}

/**
 * Stage prepare: arguments transformed, validated, and what the call will touch declared. Each
 * step is synchronous when only the kernel taps its hook (the common case), so a call pays for a
 * promise only where a tap or the tool's `access` makes one.
 */
export function prepare(scope: PipelineScope, ctx: ToolCallContext): Ended | Promise<Ended> {
  const prepared = prepareArguments(scope, ctx);
  if (isThenable(prepared)) return prepared.then((ended) => ended ?? validateAndDeclare(scope, ctx));
  return prepared ?? validateAndDeclare(scope, ctx);
}

type Ended = AgentToolResult | undefined;

function validateAndDeclare(scope: PipelineScope, ctx: ToolCallContext): Ended | Promise<Ended> {
  const checked = validate(scope, ctx);
  if (isThenable(checked)) return checked.then((ended) => ended ?? (ctx.tool.access ? declareAccess(scope, ctx) : undefined));
  return checked ?? (ctx.tool.access ? declareAccess(scope, ctx) : undefined);
}

function prepareArguments(scope: PipelineScope, ctx: ToolCallContext): Ended | Promise<Ended> {
  const { toolCall: call } = ctx;
  const hook = scope.hooks.prepareArguments;
  // The call's context is the taps' PrepareContext too: it has the call, the tool and the tool context.
  try {
    const only = onlyTap(hook);
    const args = only ? callTap(only, [call.arguments, ctx]) : hook.promise(call.arguments, ctx);
    const fallback = only ? call.arguments : undefined;
    if (!isThenable(args)) {
      ctx.args = args ?? fallback;
      return undefined;
    }
    return Promise.resolve(args).then(
      (value) => {
        ctx.args = value ?? fallback;
        return undefined;
      },
      (error: unknown) => prepareFailed(call, error),
    );
  } catch (error) {
    return prepareFailed(call, error);
  }
}

function prepareFailed(call: ToolCall, error: unknown): AgentToolResult {
  // A tool that refuses its arguments while preparing them (an unknown name) says so as invalid arguments.
  const refusal = invalidArguments(error);
  if (refusal) return toolError(ErrorCode.INVALID_ARGUMENTS, `Invalid arguments for tool "${nameOf(call)}": ${refusal}\nArguments received: ${preview(call.arguments)}`);
  const text = `Could not prepare the arguments of "${nameOf(call)}": ${messageOf(error)}\nArguments received: ${preview(call.arguments)}`;
  return toolError(ErrorCode.PREPARE_FAILED, text);
}

/** The message of an `INVALID_ARGUMENTS` ToolhostError thrown in prepare (perhaps wrapped by a tap's name). */
function invalidArguments(error: unknown): string | undefined {
  let found: string | undefined;
  for (let current = error, depth = 0; current instanceof Error && depth < 5; current = current.cause, depth++) {
    if (current instanceof ToolhostError && current.code === ErrorCode.INVALID_ARGUMENTS) found = current.message;
  }
  return found;
}

function validate(scope: PipelineScope, ctx: ToolCallContext): Ended | Promise<Ended> {
  const hook = scope.hooks.validateArguments;
  try {
    const only = onlyTap(hook);
    const found = only ? callTap(only, [ctx.args, ctx]) : hook.promise(ctx.args, ctx);
    if (!isThenable(found)) return problemsResult(ctx, found as ValidationProblem[] | undefined);
    return Promise.resolve(found).then(
      (problems) => problemsResult(ctx, problems as ValidationProblem[] | undefined),
      (error: unknown) => validationFailed(ctx.toolCall, error),
    );
  } catch (error) {
    return validationFailed(ctx.toolCall, error);
  }
}

function validationFailed(call: ToolCall, error: unknown): AgentToolResult {
  return toolError(ErrorCode.VALIDATION_FAILED, `Could not validate the arguments of "${nameOf(call)}": ${messageOf(error)}`);
}

function problemsResult(ctx: ToolCallContext, problems: ValidationProblem[] | undefined): Ended {
  if (!problems || problems.length === 0) return undefined;
  const text = `Invalid arguments for tool "${nameOf(ctx.toolCall)}":\n${formatProblems(problems)}\nArguments received: ${preview(ctx.args)}`;
  return toolError(ErrorCode.INVALID_ARGUMENTS, text, { problems, arguments: snapshot(ctx.args, ARGUMENT_LIMITS) });
}

async function declareAccess(scope: PipelineScope, ctx: ToolCallContext): Promise<AgentToolResult | undefined> {
  try {
    const access = await ctx.tool.access?.(ctx.args, { cwd: scope.cwd, workspace: scope.workspace });
    if (access) ctx.access = access;
    return undefined;
  } catch (error) {
    // The tool refused the call before anything ran: a refusal, as the policy's are (`refused`).
    if (error instanceof ToolhostError) return toolError(error.code, messageOf(error), { ...snapshot(error.details ?? {}, ARGUMENT_LIMITS) as object, refused: true });
    const text = `Could not tell what "${nameOf(ctx.toolCall)}" would touch, so the call was refused: ${messageOf(error)}`;
    return toolError(ErrorCode.ACCESS_FAILED, text);
  }
}
