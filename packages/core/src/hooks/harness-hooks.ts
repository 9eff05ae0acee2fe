import { AsyncSeriesBailHook, AsyncSeriesHook, AsyncSeriesWaterfallHook, SyncHook, SyncWaterfallHook } from "tapable";
import type {
  AgentEvent,
  AgentToolResult,
  AgentToolUpdate,
  AnyAgentTool,
  ApprovalRequest,
  ExecuteToolCallContext,
  PrepareContext,
  ToolCall,
  ToolCallContext,
  ValidationProblem,
} from "../types/index.js";
import { AnswerHook } from "./answer-hook.js";
import { DecisionHook } from "./decision-hook.js";
import { MergeHook } from "./merge-hook.js";

/**
 * The pipeline's hooks, created once per harness and frozen (`harness.hooks`), in the order a call
 * meets them. Each hook's class says what the pipeline does with its taps, and `hook.promise(…)`
 * gives exactly what the pipeline acts on:
 *
 * | hook | class | a tap returns |
 * |---|---|---|
 * | resolveTool | AsyncSeriesBail | a tool, or nothing to pass on (the registry answers last) |
 * | prepareArguments | AsyncSeriesWaterfall | the new arguments (the tool's own `prepareArguments` first) |
 * | validateArguments | AsyncSeriesBail | problems to reject the call (the schema check first) |
 * | beforeToolCall | DecisionHook | block or ask (the first decides), allow (for the record), or nothing |
 * | approve | AnswerHook | `{ approved, reason }` (the first answer wins); none: no one could approve |
 * | executeToolCall | AsyncSeriesBail | a result that stands in for the tool, or nothing to run it |
 * | toolUpdate | Sync | — (each update, redacted) |
 * | afterToolCall | MergeHook | the fields of the result to replace, or nothing |
 * | propagate | Sync | — (fills the carrier a call hands on: trace context) |
 * | event | Sync | — (every event) |
 * | redact | SyncWaterfall | the text with secrets masked |
 * | dispose | AsyncSeries | — |
 */
export function createHarnessHooks<TContext>() {
  return Object.freeze({
    /** 1. Find the tool of a call. Return a tool, or nothing to pass on; the registry answers last. */
    resolveTool: new AsyncSeriesBailHook<[ToolCall], AnyAgentTool | undefined>(["toolCall"], "resolveTool"),
    /** 2. Transform the arguments; return the new arguments. The tool's own `prepareArguments` runs first. */
    prepareArguments: new AsyncSeriesWaterfallHook<[unknown, PrepareContext<TContext>]>(["args", "ctx"], "prepareArguments"),
    /** 3. Validate; return a list of problems to reject the call. The schema check runs first. */
    validateArguments: new AsyncSeriesBailHook<[unknown, PrepareContext<TContext>], ValidationProblem[] | undefined>(
      ["args", "ctx"],
      "validateArguments",
    ),
    /**
     * 4. Authorize: `{ block: true, reason }` refuses, `{ ask: true, reason }` asks `approve`; the
     * first such answer decides. `{ allow: true }` is kept for the record; nothing lets the next tap judge.
     */
    beforeToolCall: new DecisionHook<[ToolCallContext<TContext>, AbortSignal]>(["ctx", "signal"], "beforeToolCall"),
    /** 4a. Ask a human: `{ approved, reason }`; the first answer wins. When no tap answers, the answer is no. */
    approve: new AnswerHook<[ApprovalRequest<TContext>, AbortSignal]>(["request", "signal"], "approve"),
    /**
     * 5. Execute: return a result to stand in for the tool (dry run, replay, cache, a queue), or
     * nothing to run it. `ctx.execution` gives a stand-in the kernel's update path and the approval.
     */
    executeToolCall: new AsyncSeriesBailHook<[ExecuteToolCallContext<TContext>, AbortSignal], AgentToolResult | undefined>(
      ["ctx", "signal"],
      "executeToolCall",
    ),
    /** 5a. Each `onUpdate(partialResult)` of a running tool, redacted. */
    toolUpdate: new SyncHook<[AgentToolUpdate, ToolCallContext<TContext>]>(["update", "ctx"], "toolUpdate"),
    /**
     * 6. Finalize, tap by tap: a tap gets the result so far and returns the fields to replace
     * (`content`, `details`, `isError`, `terminate`, `usage`), or nothing. Throwing withholds the result.
     */
    afterToolCall: new MergeHook<[ToolCallContext<TContext>, AbortSignal]>(["result", "ctx", "signal"], "afterToolCall"),
    /**
     * What a running call hands on to the processes and servers it reaches: taps add string keys to
     * the carrier (W3C trace context: `traceparent`, `tracestate`). Called when a tool asks
     * (`ToolExecution.carrier()`), never otherwise.
     */
    propagate: new SyncHook<[Record<string, string>, ToolCallContext<TContext>]>(["carrier", "ctx"], "propagate"),
    /** 7. Every `AgentEvent`. */
    event: new SyncHook<[AgentEvent]>(["event"], "event"),
    /**
     * Every text that leaves the kernel (results of every origin, refusals, streamed updates, the
     * arguments events carry): return it with secrets masked. A tap that throws withholds the item.
     */
    redact: new SyncWaterfallHook<[string]>(["text"], "redact"),
    /** When the harness is disposed: end processes, close files. */
    dispose: new AsyncSeriesHook<[]>([], "dispose"),
  });
}

/** The pipeline's hooks, as `harness.hooks` holds them. */
export type HarnessHooks<TContext = unknown> = ReturnType<typeof createHarnessHooks<TContext>>;
