import { ErrorCode, ToolhostError, messageOf } from "./errors.js";
import type { AnyAgentHarness } from "./harness.js";
import { preview, snapshot } from "./preview.js";
import { redactArgs, redactUpdate } from "./_redact.js";
import { checkedResult, toolError } from "./results.js";
import { partialResultOf, stopReasonOf, stoppedResult } from "./_stop.js";
import { TapError, callTap, type FullTap } from "./_taps.js";
import { formatProblems } from "./_validate.js";
import type {
  AfterToolCallResult,
  AgentToolResult,
  AgentToolUpdate,
  AnyAgentTool,
  ApprovalResult,
  BeforeToolCallResult,
  PrepareContext,
  ToolCall,
  ToolCallContext,
  ValidationProblem,
} from "./types.js";

/*
 * One call through the pipeline, stage by stage, as in docs/design.md:
 *
 *   stage      hooks                                             the call can end here with
 *   resolve    resolveTool (for the whole batch, first)          TOOL_NOT_FOUND, TOOL_RESOLVE_FAILED
 *   prepare    prepareArguments, validateArguments, tool.access  PREPARE_FAILED, VALIDATION_FAILED, INVALID_ARGUMENTS, ACCESS_FAILED
 *   authorize  beforeToolCall, approve                           BLOCKED, POLICY_FAILED, NOT_APPROVED
 *   execute    executeToolCall or tool.execute (toolUpdate)      TOOL_FAILED, INVALID_RESULT, ABORTED, TIMED_OUT
 *   finalize   afterToolCall                                     AFTER_HOOK_FAILED, INVALID_RESULT
 *
 * Each stage returns a result that ends the call, or undefined to go on. Abort, time-out and
 * redaction wrap the whole call (_schedule.ts). No stage rejects: every failure is a result.
 */

/** Arguments bigger or deeper than this are cut in the `details` of an invalid-arguments result. */
const ARGUMENT_LIMITS = { depth: 32, nodes: 10_000, string: 10_000 };
/** Names of calls are echoed up to this length. */
const MAX_NAME = 200;

type Harness = AnyAgentHarness;
type Context = ToolCallContext<unknown>;

/** Stages prepare to finalize of one call. Never rejects. */
export async function runCall(harness: Harness, call: ToolCall, tool: AnyAgentTool, signal: AbortSignal): Promise<AgentToolResult> {
  const ctx: Context = { toolCall: call, tool, args: call.arguments, context: harness.toolContext };
  try {
    return (
      (await prepare(harness, ctx)) ??
      (await authorize(harness, ctx, signal)) ??
      (await finalize(harness, ctx, await execute(harness, ctx, signal), signal))
    );
  } catch (error) {
    return toolError(ErrorCode.INTERNAL, `toolhost failed on the call of "${nameOf(call)}" (a bug of toolhost): ${messageOf(error)}`);
  }
}

/** Stage resolve: the call's tool, or the result that ends the call. */
export async function resolveTool(harness: Harness, call: ToolCall): Promise<AnyAgentTool | AgentToolResult> {
  const hook = harness.hooks.resolveTool;
  try {
    const only = onlyTap(hook);
    const tool = (only ? await callTap(only, [call]) : await hook.promise(call)) as AnyAgentTool | undefined;
    if (tool) return tool;
  } catch (error) {
    return toolError(ErrorCode.TOOL_RESOLVE_FAILED, `Could not find the tool of call "${nameOf(call)}": ${messageOf(error)}`);
  }
  const names = harness.tools.map((tool) => tool.name);
  const available = names.length > 0 ? `Available tools: ${names.join(", ")}.` : "No tools are registered.";
  return toolError(ErrorCode.TOOL_NOT_FOUND, `Tool "${nameOf(call)}" not found. ${available}`, {
    toolName: nameOf(call),
    availableTools: names,
  });
}

/** Stage prepare: arguments transformed, validated, and what the call will touch declared. */
async function prepare(harness: Harness, ctx: Context): Promise<AgentToolResult | undefined> {
  const { toolCall: call, tool } = ctx;
  const { prepareArguments, validateArguments } = harness.hooks;
  const given: PrepareContext<unknown> = { toolCall: call, tool, context: ctx.context };
  try {
    const only = onlyTap(prepareArguments);
    ctx.args = only ? ((await callTap(only, [call.arguments, given])) ?? call.arguments) : await prepareArguments.promise(call.arguments, given);
  } catch (error) {
    const text = `Could not prepare the arguments of "${nameOf(call)}": ${messageOf(error)}\nArguments received: ${preview(call.arguments)}`;
    return toolError(ErrorCode.PREPARE_FAILED, text);
  }
  let problems: ValidationProblem[] | undefined;
  try {
    const only = onlyTap(validateArguments);
    problems = (only ? await callTap(only, [ctx.args, given]) : await validateArguments.promise(ctx.args, given)) as ValidationProblem[] | undefined;
  } catch (error) {
    return toolError(ErrorCode.VALIDATION_FAILED, `Could not validate the arguments of "${nameOf(call)}": ${messageOf(error)}`);
  }
  if (problems && problems.length > 0) {
    const text = `Invalid arguments for tool "${nameOf(call)}":\n${formatProblems(problems)}\nArguments received: ${preview(ctx.args)}`;
    return toolError(ErrorCode.INVALID_ARGUMENTS, text, { problems, arguments: snapshot(ctx.args, ARGUMENT_LIMITS) });
  }
  return tool.access ? declareAccess(harness, ctx) : undefined;
}

async function declareAccess(harness: Harness, ctx: Context): Promise<AgentToolResult | undefined> {
  try {
    const access = await ctx.tool.access?.(ctx.args, { cwd: harness.cwd, workspace: harness.workspace });
    if (access) ctx.access = access;
    return undefined;
  } catch (error) {
    if (error instanceof ToolhostError) return toolError(error.code, messageOf(error));
    const text = `Could not tell what "${nameOf(ctx.toolCall)}" would touch, so the call was refused: ${messageOf(error)}`;
    return toolError(ErrorCode.ACCESS_FAILED, text);
  }
}

/** Stage authorize: `beforeToolCall` decides; an `ask` goes to `approve`. */
async function authorize(harness: Harness, ctx: Context, signal: AbortSignal): Promise<AgentToolResult | undefined> {
  let decision: BeforeToolCallResult | undefined;
  try {
    decision = await decide(harness.hooks.beforeToolCall.taps, ctx, signal);
  } catch (error) {
    const text = `Blocked: the check before "${nameOf(ctx.toolCall)}" failed, so the call was refused. ${messageOf(error)}`;
    return toolError(ErrorCode.POLICY_FAILED, text, { blockedBy: error instanceof TapError ? error.tapName : undefined });
  }
  if (decision === undefined) return undefined;
  if ("block" in decision) {
    return toolError(ErrorCode.BLOCKED, `Blocked by ${decision.blockedBy}: ${decision.reason}`, {
      ...decision.details,
      blockedBy: decision.blockedBy,
      reason: decision.reason,
    });
  }
  return approve(harness, ctx, decision, signal);
}

/**
 * `beforeToolCall`, tap by tap: the first `block` or `ask` answer decides, named after its tap
 * unless it names who decided. Any other answer lets the next tap judge.
 */
async function decide(taps: readonly FullTap[], ctx: Context, signal: AbortSignal): Promise<BeforeToolCallResult | undefined> {
  for (const tap of taps) {
    let answer = callTap(tap, [ctx, signal]) as BeforeToolCallResult | Promise<BeforeToolCallResult | undefined> | undefined;
    if (isThenable(answer)) answer = await answer;
    if (answer === null || typeof answer !== "object") continue;
    const reason = typeof answer.reason === "string" ? answer.reason : "no reason given";
    if ("block" in answer && answer.block === true) return { ...answer, reason, blockedBy: answer.blockedBy ?? tap.name };
    if ("ask" in answer && answer.ask === true) return { ...answer, reason, askedBy: answer.askedBy ?? tap.name };
  }
  return undefined;
}

/** Asks the `approve` hook; the refusal, or undefined when approved. */
async function approve(
  harness: Harness,
  ctx: Context,
  decision: Extract<BeforeToolCallResult, { ask: true }>,
  signal: AbortSignal,
): Promise<AgentToolResult | undefined> {
  const askedBy = decision.askedBy ?? "beforeToolCall";
  let answer: ApprovalResult | undefined;
  try {
    answer = await harness.hooks.approve.promise({ ...ctx, reason: decision.reason, askedBy }, signal);
  } catch (error) {
    answer = { approved: false, reason: `asking for approval failed: ${messageOf(error)}` };
  }
  if (answer?.approved === true) return undefined;
  const why =
    answer === undefined || answer === null
      ? "no one could approve it (no approver is attached: run in a terminal, or tap the approve hook)"
      : (answer.reason ?? "it was not approved");
  const text = `Not run: ${nameOf(ctx.toolCall)} needs approval (${decision.reason}), and ${why}.`;
  return toolError(ErrorCode.NOT_APPROVED, text, {
    ...decision.details,
    blockedBy: askedBy,
    reason: decision.reason,
    approval: answer ?? null,
  });
}

/** Stage execute: an `executeToolCall` tap stands in for the tool, or the tool runs. */
async function execute(harness: Harness, ctx: Context, signal: AbortSignal): Promise<AgentToolResult> {
  const { toolCall: call, tool } = ctx;
  const hook = harness.hooks.executeToolCall;
  let result: unknown;
  try {
    if (hook.taps.length > 0) result = await hook.promise(ctx, signal);
    result ??= await tool.execute(call.id, ctx.args, signal, updates(harness, ctx, signal), ctx.context);
  } catch (error) {
    if (signal.aborted) return stoppedResult(nameOf(call), stopReasonOf(signal), partialResultOf(error));
    return toolError(ErrorCode.TOOL_FAILED, `Tool "${nameOf(call)}" failed: ${messageOf(error)}`, { error: messageOf(error) });
  }
  return checkedResult(result) ?? toolError(ErrorCode.INVALID_RESULT, `Tool "${nameOf(call)}" returned ${preview(result, 200)}, not a result with a content array of text and image blocks; this is a bug in the tool.`);
}

/** The `onUpdate` of one call: each update, redacted, to `toolUpdate` and as an event; none after the call is stopped. */
function updates(harness: Harness, ctx: Context, signal: AbortSignal): (update: AgentToolUpdate) => void {
  const { hooks } = harness;
  const { id, name } = ctx.toolCall;
  return (partialResult) => {
    if (signal.aborted) return;
    const update = redactUpdate(hooks.redact, partialResult);
    if (update === undefined) return;
    try {
      hooks.toolUpdate.call(update, ctx);
    } catch (error) {
      process.emitWarning(`A toolhost toolUpdate tap threw: ${messageOf(error)}`);
    }
    harness.emit({ type: "tool_execution_update", toolCallId: id, toolName: name, args: redactArgs(hooks.redact, ctx.args), partialResult: update });
  };
}

/**
 * Stage finalize: `afterToolCall`, tap by tap. Each tap sees the result as the taps before it left
 * it and returns the fields it replaces (or nothing); the fields are merged here. A tap that throws
 * withholds the result (fail closed: a redactor that breaks must not let the text through).
 */
async function finalize(harness: Harness, ctx: Context, first: AgentToolResult, signal: AbortSignal): Promise<AgentToolResult> {
  const { taps } = harness.hooks.afterToolCall;
  let result = first;
  for (const tap of taps) {
    let fields: AfterToolCallResult | undefined;
    try {
      const answer = callTap(tap, [result, ctx, signal]);
      fields = (isThenable(answer) ? await answer : answer) as AfterToolCallResult | undefined;
    } catch (error) {
      const text = `The result of "${nameOf(ctx.toolCall)}" was withheld because a check after the call failed: ${messageOf(error)}`;
      return toolError(ErrorCode.AFTER_HOOK_FAILED, text, { failedTap: error instanceof TapError ? error.tapName : tap.name });
    }
    if (fields === undefined || fields === null) continue;
    const merged = typeof fields === "object" ? checkedResult({ ...result, ...fields }) : undefined;
    if (merged === undefined) {
      const text = `afterToolCall tap "${tap.name}" returned ${preview(fields, 200)}, not the fields of a result to replace; the result is withheld.`;
      return toolError(ErrorCode.AFTER_HOOK_FAILED, text, { failedTap: tap.name });
    }
    result = merged;
  }
  return result;
}

/** When a hook has only its kernel tap and no one intercepts it, that tap, to call directly (tapable's promise chain costs more than the tap). */
function onlyTap(hook: { taps: FullTap[]; interceptors: unknown[] }): FullTap | undefined {
  return hook.taps.length === 1 && hook.interceptors.length === 1 ? hook.taps[0] : undefined;
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return value !== null && typeof value === "object" && typeof (value as PromiseLike<unknown>).then === "function";
}

/** A call's name for a message, cut. */
export function nameOf(call: ToolCall): string {
  return call.name.length > MAX_NAME ? `${call.name.slice(0, MAX_NAME)}…` : call.name;
}
