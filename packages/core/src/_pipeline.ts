import { ErrorCode, messageOf } from "./errors.js";
import { type Authorization, decide, failed, judge } from "./_authorize.js";
import { checked, executionFailed, started } from "./_execute.js";
import { finalize, withheld } from "./_finalize.js";
import { nameOf, prepare, resolveTool } from "./_prepare.js";
import { toolError } from "./results.js";
import type { PipelineScope } from "./_scope.js";
import { isThenable } from "./_taps.js";
import type { AgentToolResult, AnyAgentTool, PreparedToolCall, ToolCall, ToolCallContext } from "./types/index.js";

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
 * Each stage (its own file) returns a result that ends the call, or goes on. Abort, time-out and
 * redaction wrap the whole call (_schedule.ts). No stage rejects: every failure is a result.
 */

/**
 * Stages prepare to finalize of one call. Never rejects. A stage answers at once where no tap (nor
 * the tool) made a promise, and only such a promise is awaited, here: one async frame per call, and
 * no promise layer of a stage's own over a hook's (each costs a turn per call).
 */
export async function runCall(scope: PipelineScope, call: ToolCall, tool: AnyAgentTool, signal: AbortSignal): Promise<AgentToolResult> {
  const ctx: ToolCallContext = { toolCall: call, tool, args: call.arguments, context: scope.toolContext };
  try {
    const prepared = prepare(scope, ctx);
    const ended = isThenable(prepared) ? await prepared : prepared;
    if (ended) return ended;
    let authorization: Authorization;
    try {
      const judging = judge(scope, ctx, signal);
      const deciding = decide(scope, ctx, isThenable(judging) ? await judging : judging, signal, undefined);
      authorization = isThenable(deciding) ? await deciding : deciding;
    } catch (error) {
      authorization = failed(scope, ctx, error, undefined);
    }
    if (authorization.refusal) return authorization.refusal;
    let result: AgentToolResult;
    try {
      result = checked(call.name, await started(scope, ctx, signal, authorization));
    } catch (error) {
      result = executionFailed(ctx, signal, error);
    }
    try {
      const finalized = finalize(scope, ctx, result, signal);
      return isThenable(finalized) ? await finalized : finalized;
    } catch (error) {
      return withheld(ctx, error);
    }
  } catch (error) {
    return toolError(ErrorCode.INTERNAL, `toolhost failed on the call of "${nameOf(call)}" (a bug of toolhost): ${messageOf(error)}`);
  }
}

/**
 * Stages resolve and prepare of one call, without asking anyone or running it: what a policy's
 * `explain` must judge (the arguments after the tool's `prepareArguments` and the taps, validated,
 * and the access the tool declares for them). Never rejects.
 */
export async function prepareCall(scope: PipelineScope, call: ToolCall): Promise<PreparedToolCall> {
  try {
    const found = await resolveTool(scope, call);
    if (!("execute" in found)) return { ok: false, result: found };
    const ctx: ToolCallContext = { toolCall: call, tool: found, args: call.arguments, context: scope.toolContext };
    const ended = await prepare(scope, ctx);
    if (ended) return { ok: false, result: ended };
    return { ok: true, tool: found, args: ctx.args, ...(ctx.access && { access: ctx.access }) };
  } catch (error) {
    return { ok: false, result: toolError(ErrorCode.INTERNAL, `toolhost failed on preparing the call of "${nameOf(call)}" (a bug of toolhost): ${messageOf(error)}`) };
  }
}

export { nameOf, resolveTool };
