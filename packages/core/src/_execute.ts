import { ErrorCode, describeError, messageOf } from "./errors.js";
import { type Authorization, authorize } from "./_authorize.js";
import { nameOf } from "./_prepare.js";
import { preview } from "./preview.js";
import { redactArgs, redactUpdate } from "./_redact.js";
import { checkedResult, isContentBlock, textOf, toolError } from "./results.js";
import type { PipelineScope } from "./_scope.js";
import { partialResultOf, stopReasonOf, stoppedResult } from "./_stop.js";
import type {
  AgentToolResult,
  AgentToolUpdate,
  AgentToolUpdateCallback,
  ApprovalOutcome,
  AuthorizeOutcome,
  ExecuteToolCallContext,
  ToolAccess,
  ToolCallContext,
  ToolDecision,
  ToolExecution,
} from "./types/index.js";

/**
 * Stage execute: an `executeToolCall` tap stands in for the tool, or the tool runs. Resolves to
 * the result checked, or to the error result of what it threw; never rejects. (The awaits stay in
 * one async function with the pipeline's: each async frame per call costs a promise and a turn.)
 */
export async function execute(scope: PipelineScope, ctx: ToolCallContext, signal: AbortSignal, authorization: Authorization): Promise<AgentToolResult> {
  try {
    return checked(ctx.toolCall.name, await started(scope, ctx, signal, authorization));
  } catch (error) {
    return executionFailed(ctx, signal, error);
  }
}

/** The tool's (or a stand-in's) answer, as it comes: a promise, or a throw. */
export function started(scope: PipelineScope, ctx: ToolCallContext, signal: AbortSignal, authorization: Authorization): Promise<unknown> {
  const { toolCall: call, tool } = ctx;
  const hook = scope.hooks.executeToolCall;
  const execution = new CallExecution(scope, ctx, signal, authorization);
  if (hook.taps.length === 0) return tool.execute(call.id, ctx.args, signal, execution.onUpdate, ctx.context, execution);
  (ctx as ExecuteToolCallContext).execution = execution;
  return hook.promise(ctx as ExecuteToolCallContext, signal).then((standIn) => standIn ?? tool.execute(call.id, ctx.args, signal, execution.onUpdate, ctx.context, execution));
}

/** What a call that threw gets: its output so far when it was stopped, else the error. */
export function executionFailed(ctx: ToolCallContext, signal: AbortSignal, error: unknown): AgentToolResult {
  const call = ctx.toolCall;
  if (signal.aborted) return stoppedResult(nameOf(call), stopReasonOf(signal), partialResultOf(error));
  return toolError(ErrorCode.TOOL_FAILED, `Tool "${nameOf(call)}" failed: ${failure(error)}`, { error: messageOf(error) });
}

/** A result as the tool gave it, checked (and copied); an error result when it is not one. */
export function checked(name: string, result: unknown): AgentToolResult {
  return (
    checkedResult(result) ??
    toolError(ErrorCode.INVALID_RESULT, `Tool "${name.length > 200 ? `${name.slice(0, 200)}…` : name}" returned ${preview(result, 200)}, not a result with a content array of text and image blocks; this is a bug in the tool.`)
  );
}

/** A running call's channels to the pipeline (see `ToolExecution`). */
class CallExecution implements ToolExecution {
  readonly toolCallId: string;
  readonly onUpdate: AgentToolUpdateCallback;
  readonly approval?: ApprovalOutcome;
  readonly decision?: ToolDecision;
  readonly #scope: PipelineScope;
  readonly #ctx: ToolCallContext;
  readonly #signal: AbortSignal;

  constructor(scope: PipelineScope, ctx: ToolCallContext, signal: AbortSignal, { approval, decision }: Authorization) {
    this.toolCallId = ctx.toolCall.id;
    this.onUpdate = updates(scope, ctx, signal);
    if (approval) this.approval = approval;
    if (decision) this.decision = decision;
    this.#scope = scope;
    this.#ctx = ctx;
    this.#signal = signal;
  }

  async authorize(access: ToolAccess, signal: AbortSignal = this.#signal): Promise<AuthorizeOutcome> {
    // The authorize stage answers at once or with a promise; either is awaited here.
    if (this.#signal.aborted || signal.aborted) return { allowed: false, code: ErrorCode.ABORTED, reason: `the call of "${nameOf(this.#ctx.toolCall)}" was stopped` };
    const { refusal, approval } = await authorize(this.#scope, { ...this.#ctx, access }, signal, access);
    if (!refusal) return { allowed: true, ...(approval && { approval }) };
    const code = (refusal.details as { code?: string }).code ?? ErrorCode.BLOCKED;
    const reason = textOf(refusal);
    return { allowed: false, code, reason, ...(approval && { approval }) };
  }

  carrier(): Readonly<Record<string, string>> {
    const carrier: Record<string, string> = {};
    const hook = this.#scope.hooks.propagate;
    if (!hook.isUsed()) return carrier;
    try {
      hook.call(carrier, this.#ctx);
    } catch (error) {
      process.emitWarning(`A toolhost propagate tap threw: ${messageOf(error)}`);
    }
    for (const [key, value] of Object.entries(carrier)) if (typeof value !== "string") delete carrier[key];
    return carrier;
  }
}

/** The `onUpdate` of one call: each update, redacted, to `toolUpdate` and as an event; none after the call is stopped. */
function updates(scope: PipelineScope, ctx: ToolCallContext, signal: AbortSignal): AgentToolUpdateCallback {
  const { hooks } = scope;
  const { id, name } = ctx.toolCall;
  return (partialResult: AgentToolUpdate) => {
    if (signal.aborted || !isUpdate(partialResult)) return;
    const update = redactUpdate(hooks.redact, partialResult);
    if (update === undefined) return;
    try {
      hooks.toolUpdate.call(update, ctx);
    } catch (error) {
      process.emitWarning(`A toolhost toolUpdate tap threw: ${messageOf(error)}`);
    }
    scope.emit({ type: "tool_execution_update", toolCallId: id, toolName: name, args: redactArgs(hooks.redact, ctx.args), partialResult: update });
  };
}

/** Whether a value is an update as the types say (a stand-in may pass on what another process sent). */
function isUpdate(value: unknown): value is AgentToolUpdate {
  try {
    return value !== null && typeof value === "object" && Array.isArray((value as AgentToolUpdate).content) && (value as AgentToolUpdate).content.every(isContentBlock);
  } catch {
    return false;
  }
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
