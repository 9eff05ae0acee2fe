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

/** Stage execute: an `executeToolCall` tap stands in for the tool, or the tool runs. */
export async function execute(scope: PipelineScope, ctx: ToolCallContext, signal: AbortSignal, authorization: Authorization): Promise<AgentToolResult> {
  const { toolCall: call, tool } = ctx;
  const hook = scope.hooks.executeToolCall;
  const execution = new CallExecution(scope, ctx, signal, authorization);
  let result: unknown;
  try {
    if (hook.taps.length > 0) {
      (ctx as ExecuteToolCallContext).execution = execution;
      result = await hook.promise(ctx as ExecuteToolCallContext, signal);
    }
    result ??= await tool.execute(call.id, ctx.args, signal, execution.onUpdate, ctx.context, execution);
  } catch (error) {
    if (signal.aborted) return stoppedResult(nameOf(call), stopReasonOf(signal), partialResultOf(error));
    return toolError(ErrorCode.TOOL_FAILED, `Tool "${nameOf(call)}" failed: ${failure(error)}`, { error: messageOf(error) });
  }
  return checkedResult(result) ?? toolError(ErrorCode.INVALID_RESULT, `Tool "${nameOf(call)}" returned ${preview(result, 200)}, not a result with a content array of text and image blocks; this is a bug in the tool.`);
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
