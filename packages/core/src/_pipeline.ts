import { ErrorCode, ToolhostError, describeError, messageOf } from "./errors.js";
import type { AnyAgentHarness } from "./harness.js";
import { preview, snapshot } from "./preview.js";
import { redactArgs, redactUpdate } from "./_redact.js";
import { checkedResult, toolError } from "./results.js";
import { partialResultOf, stopReasonOf, stoppedResult } from "./_stop.js";
import { callTap, named, type FullTap } from "./_taps.js";
import { formatProblems } from "./_validate.js";
import type {
  AfterToolCallResult,
  AgentToolResult,
  AgentToolUpdate,
  AnyAgentTool,
  ApprovalResult,
  BeforeToolCallResult,
  ToolCall,
  ToolAccess,
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

/** A call taken through stages resolve and prepare only: its tool, arguments and access, or the result that would end it. */
export type PreparedToolCall =
  | { ok: true; tool: AnyAgentTool; args: unknown; access?: ToolAccess }
  | { ok: false; result: AgentToolResult };

/**
 * Stages resolve and prepare of one call, without asking anyone or running it: what a policy's
 * `explain` must judge (the arguments after the tool's `prepareArguments` and the taps, validated,
 * and the access the tool declares for them). Never rejects.
 */
export async function prepareCall(harness: Harness, call: ToolCall): Promise<PreparedToolCall> {
  try {
    const found = await resolveTool(harness, call);
    if (!("execute" in found)) return { ok: false, result: found };
    const ctx: Context = { toolCall: call, tool: found, args: call.arguments, context: harness.toolContext };
    const ended = await prepare(harness, ctx);
    if (ended) return { ok: false, result: ended };
    return { ok: true, tool: found, args: ctx.args, ...(ctx.access && { access: ctx.access }) };
  } catch (error) {
    return { ok: false, result: toolError(ErrorCode.INTERNAL, `toolhost failed on preparing the call of "${nameOf(call)}" (a bug of toolhost): ${messageOf(error)}`) };
  }
}

/**
 * Stage resolve: the call's tool, or the result that ends the call. Synchronous when the registry
 * answers alone (the common case: it saves a batch of promises).
 */
export function resolveTool(harness: Harness, call: ToolCall): AnyAgentTool | AgentToolResult | Promise<AnyAgentTool | AgentToolResult> {
  const hook = harness.hooks.resolveTool;
  try {
    const only = onlyTap(hook);
    const found = only ? callTap(only, call) : hook.promise(call);
    if (!isThenable(found)) return toolOf(harness, call, found);
    return Promise.resolve(found).then(
      (tool) => toolOf(harness, call, tool),
      (error: unknown) => resolveFailed(call, error),
    );
  } catch (error) {
    return resolveFailed(call, error);
  }
}

/** What `resolveTool` found: a tool, nothing (not found), or something else (a tap's bug). */
function toolOf(harness: Harness, call: ToolCall, found: unknown): AnyAgentTool | AgentToolResult {
  if (found === undefined || found === null) return notFound(harness, call);
  if (typeof found === "object" && typeof (found as AnyAgentTool).execute === "function") return found as AnyAgentTool;
  return resolveFailed(call, `a resolveTool tap returned ${preview(found, 200)}, not a tool`);
}

function resolveFailed(call: ToolCall, error: unknown): AgentToolResult {
  return toolError(ErrorCode.TOOL_RESOLVE_FAILED, `Could not find the tool of call "${nameOf(call)}": ${messageOf(error)}`);
}

function notFound(harness: Harness, call: ToolCall): AgentToolResult {
  const names = harness.tools.map((tool) => tool.name);
  const available = names.length > 0 ? `Available tools: ${names.join(", ")}.` : "No tools are registered.";
  return toolError(ErrorCode.TOOL_NOT_FOUND, `Tool "${nameOf(call)}" not found. ${available}`, {
    toolName: nameOf(call),
    availableTools: names,
  });
}

/** The message of an `INVALID_ARGUMENTS` ToolhostError thrown in prepare (perhaps wrapped by a tap's name). */
function invalidArguments(error: unknown): string | undefined {
  let found: string | undefined;
  for (let current = error, depth = 0; current instanceof Error && depth < 5; current = current.cause, depth++) {
    if (current instanceof ToolhostError && current.code === ErrorCode.INVALID_ARGUMENTS) found = current.message;
  }
  return found;
}

/** Stage prepare: arguments transformed, validated, and what the call will touch declared. */
async function prepare(harness: Harness, ctx: Context): Promise<AgentToolResult | undefined> {
  const { toolCall: call } = ctx;
  const { prepareArguments, validateArguments } = harness.hooks;
  // The call's context is the taps' PrepareContext too: it has the call, the tool and the tool context.
  try {
    const only = onlyTap(prepareArguments);
    const args = only ? callTap(only, call.arguments, ctx) : prepareArguments.promise(call.arguments, ctx);
    ctx.args = (isThenable(args) ? await args : args) ?? (only ? call.arguments : undefined);
  } catch (error) {
    // A tool that refuses its arguments while preparing them (an unknown name) says so as invalid arguments.
    const refusal = invalidArguments(error);
    if (refusal) return toolError(ErrorCode.INVALID_ARGUMENTS, `Invalid arguments for tool "${nameOf(call)}": ${refusal}\nArguments received: ${preview(call.arguments)}`);
    const text = `Could not prepare the arguments of "${nameOf(call)}": ${messageOf(error)}\nArguments received: ${preview(call.arguments)}`;
    return toolError(ErrorCode.PREPARE_FAILED, text);
  }
  let problems: ValidationProblem[] | undefined;
  try {
    const only = onlyTap(validateArguments);
    const found = only ? callTap(only, ctx.args, ctx) : validateArguments.promise(ctx.args, ctx);
    problems = (isThenable(found) ? await found : found) as ValidationProblem[] | undefined;
  } catch (error) {
    return toolError(ErrorCode.VALIDATION_FAILED, `Could not validate the arguments of "${nameOf(call)}": ${messageOf(error)}`);
  }
  if (problems && problems.length > 0) {
    const text = `Invalid arguments for tool "${nameOf(call)}":\n${formatProblems(problems)}\nArguments received: ${preview(ctx.args)}`;
    return toolError(ErrorCode.INVALID_ARGUMENTS, text, { problems, arguments: snapshot(ctx.args, ARGUMENT_LIMITS) });
  }
  return ctx.tool.access ? declareAccess(harness, ctx) : undefined;
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

/**
 * Stage authorize: `beforeToolCall`, tap by tap. The first `block` or `ask` answer decides, named
 * after its tap unless it names who decided; any other answer lets the next tap judge. An `ask`
 * goes to `approve`. A tap that throws refuses the call (fail closed).
 */
async function authorize(harness: Harness, ctx: Context, signal: AbortSignal): Promise<AgentToolResult | undefined> {
  for (const tap of harness.hooks.beforeToolCall.taps) {
    let answer: unknown;
    try {
      answer = callTap(tap, ctx, signal);
      if (isThenable(answer)) answer = await answer;
    } catch (error) {
      const text = `Blocked: the check before "${nameOf(ctx.toolCall)}" failed, so the call was refused. ${messageOf(named(error, tap.name, "beforeToolCall"))}`;
      return toolError(ErrorCode.POLICY_FAILED, text, { blockedBy: tap.name });
    }
    if (answer === null || typeof answer !== "object") continue;
    const given = answer as BeforeToolCallResult;
    const reason = typeof given.reason === "string" ? given.reason : "no reason given";
    if ("block" in given && given.block === true) {
      const blockedBy = given.blockedBy ?? tap.name;
      return toolError(ErrorCode.BLOCKED, `Blocked by ${blockedBy}: ${reason}`, { ...given.details, blockedBy, reason });
    }
    if ("ask" in given && given.ask === true) return approve(harness, ctx, { ...given, reason, askedBy: given.askedBy ?? tap.name }, signal);
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
    answer = await harness.hooks.approve.promise(
      { ...ctx, reason: decision.reason, askedBy, ...(decision.details && { details: decision.details }) },
      signal,
    );
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
    return toolError(ErrorCode.TOOL_FAILED, `Tool "${nameOf(call)}" failed: ${failure(error)}`, { error: messageOf(error) });
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
      const answer = callTap(tap, result, ctx, signal);
      fields = (isThenable(answer) ? await answer : answer) as AfterToolCallResult | undefined;
    } catch (error) {
      const text = `The result of "${nameOf(ctx.toolCall)}" was withheld because a check after the call failed: ${messageOf(named(error, tap.name, "afterToolCall"))}`;
      return toolError(ErrorCode.AFTER_HOOK_FAILED, text, { failedTap: tap.name });
    }
    if (fields === undefined || fields === null || fields === result) continue;
    const merged = mergeFields(result, fields);
    if (merged === undefined) {
      const text = `afterToolCall tap "${tap.name}" returned ${preview(fields, 200)}, not the fields of a result to replace; the result is withheld.`;
      return toolError(ErrorCode.AFTER_HOOK_FAILED, text, { failedTap: tap.name });
    }
    result = merged;
  }
  return result;
}

/** The result with the fields an afterToolCall tap replaces; undefined when they are not fields of a result. */
function mergeFields(result: AgentToolResult, fields: unknown): AgentToolResult | undefined {
  try {
    return typeof fields === "object" ? checkedResult({ ...result, ...fields }) : undefined;
  } catch {
    return undefined;
  }
}

/** When a hook has only its kernel tap and no one intercepts it, that tap, to call directly (tapable's promise chain costs more than the tap). */
function onlyTap(hook: { taps: FullTap[]; interceptors: unknown[] }): FullTap | undefined {
  return hook.taps.length === 1 && hook.interceptors.length === 1 ? hook.taps[0] : undefined;
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return value !== null && typeof value === "object" && typeof (value as PromiseLike<unknown>).then === "function";
}

/** What a tool threw, with its causes ("fetch failed: connect ECONNREFUSED …"), bounded and never throwing. */
function failure(error: unknown): string {
  try {
    const text = describeError(error);
    return text.length > 2_000 ? `${text.slice(0, 2_000)}… (${text.length - 2_000} more characters)` : text;
  } catch {
    return messageOf(error);
  }
}

/** A call's name for a message, cut. */
export function nameOf(call: ToolCall): string {
  return call.name.length > MAX_NAME ? `${call.name.slice(0, MAX_NAME)}…` : call.name;
}
