import { ErrorCode, messageOf } from "./errors.js";
import { MalformedAnswerError } from "./hooks/merge-hook.js";
import { nameOf } from "./_prepare.js";
import { toolError } from "./results.js";
import type { PipelineScope } from "./_scope.js";
import { TapError } from "./_taps.js";
import { runHook } from "./hooks/base.js";
import type { AgentToolResult, ToolCallContext } from "./types/index.js";

/**
 * Stage finalize: `afterToolCall` merges each tap's fields into the result (`MergeHook`): the
 * merged result at once, or the hook's own promise when a tap made one (the pipeline awaits it
 * itself: a promise layer per stage costs a turn per call). Throws (or rejects) with what a tap
 * threw, or with a `MalformedAnswerError`: `withheld` is the result then.
 */
export function finalize(scope: PipelineScope, ctx: ToolCallContext, result: AgentToolResult, signal: AbortSignal): AgentToolResult | Promise<AgentToolResult> {
  const hook = scope.hooks.afterToolCall;
  if (hook.taps.length === 0 && hook.interceptors.length === 0) return result;
  return runHook(hook, result, ctx, signal);
}

/**
 * What a call gets when finalizing failed: its result withheld (fail closed: a redactor that
 * breaks must not let the text through), naming the tap.
 */
export function withheld(ctx: ToolCallContext, error: unknown): AgentToolResult {
  if (error instanceof MalformedAnswerError) {
    const text = `afterToolCall tap "${error.tapName}" returned ${error.answer}, not the fields of a result to replace; the result is withheld.`;
    return toolError(ErrorCode.AFTER_HOOK_FAILED, text, { failedTap: error.tapName });
  }
  const failedTap = error instanceof TapError ? error.tapName : "afterToolCall";
  const text = `The result of "${nameOf(ctx.toolCall)}" was withheld because a check after the call failed: ${messageOf(error)}`;
  return toolError(ErrorCode.AFTER_HOOK_FAILED, text, { failedTap });
}
