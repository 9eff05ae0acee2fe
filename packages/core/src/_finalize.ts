import { ErrorCode, messageOf } from "./errors.js";
import { MalformedAnswerError } from "./hooks/merge-hook.js";
import { nameOf } from "./_prepare.js";
import { toolError } from "./results.js";
import type { PipelineScope } from "./_scope.js";
import { isThenable, TapError } from "./_taps.js";
import { runHook } from "./hooks/base.js";
import type { AgentToolResult, ToolCallContext } from "./types/index.js";

/**
 * Stage finalize: `afterToolCall` merges each tap's fields into the result (`MergeHook`). A tap
 * that throws, or answers with something that is not fields of a result, withholds the result
 * (fail closed: a redactor that breaks must not let the text through).
 */
export function finalize(scope: PipelineScope, ctx: ToolCallContext, result: AgentToolResult, signal: AbortSignal): AgentToolResult | Promise<AgentToolResult> {
  const hook = scope.hooks.afterToolCall;
  if (hook.taps.length === 0 && hook.interceptors.length === 0) return result;
  const withheld = (error: unknown): AgentToolResult => {
    if (error instanceof MalformedAnswerError) {
      const text = `afterToolCall tap "${error.tapName}" returned ${error.answer}, not the fields of a result to replace; the result is withheld.`;
      return toolError(ErrorCode.AFTER_HOOK_FAILED, text, { failedTap: error.tapName });
    }
    const failedTap = error instanceof TapError ? error.tapName : "afterToolCall";
    const text = `The result of "${nameOf(ctx.toolCall)}" was withheld because a check after the call failed: ${messageOf(error)}`;
    return toolError(ErrorCode.AFTER_HOOK_FAILED, text, { failedTap });
  };
  try {
    const merged = runHook(hook, result, ctx, signal);
    return isThenable(merged) ? merged.then(undefined, withheld) : merged;
  } catch (error) {
    return withheld(error);
  }
}

