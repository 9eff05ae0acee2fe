import type { AfterToolCallFn, BeforeToolCallFn } from "./hooks.js";
import type { AgentToolResult, AnyAgentTool, ExecutionMode, ToolAccess } from "./tool.js";

export interface AgentHarnessOptions<TContext = unknown> {
  /** The working directory tools and policies resolve relative paths against. Default `process.cwd()`. */
  cwd?: string;
  /** The project folder (the config file's folder); `${workspace}` in policies. Default `cwd`. */
  workspace?: string;
  /** Tools registered at construction (owner: "harness options"). */
  tools?: AnyAgentTool[];
  /** Passed to every tool's `execute` as its fifth argument, and to every hook's context. */
  toolContext?: TContext;
  /** `"parallel"` (default): a batch's calls run concurrently; `"sequential"`: one at a time, in order. */
  toolExecution?: ExecutionMode;
  /** The most calls of one batch that run at once. */
  maxConcurrency?: number;
  /** A call that takes longer ends with a "timed out" error result and its signal aborted. */
  toolTimeoutMs?: number;
  /**
   * How long a stopped call (aborted, timed out) may take to return its output so far once its
   * signal is aborted; the caller gets that output marked as stopped. Default 1,000 ms.
   */
  abortGraceMs?: number;
  /** Tapped onto `hooks.beforeToolCall`. */
  beforeToolCall?: BeforeToolCallFn<TContext>;
  /** Tapped onto `hooks.afterToolCall`. */
  afterToolCall?: AfterToolCallFn<TContext>;
}

export interface ExecuteToolCallsOptions {
  /** Aborting it stops every unfinished call (see `abortGraceMs`) and aborts each tool's signal. */
  signal?: AbortSignal;
  /** Overrides the harness's `toolExecution` for this batch (the agent's setting). */
  toolExecution?: ExecutionMode;
  /** Overrides the harness's `toolTimeoutMs` for each call of this batch. */
  timeoutMs?: number;
  /** Overrides the harness's `abortGraceMs` for this batch. */
  abortGraceMs?: number;
}


/** What `harness.prepareCall` resolves to: a call taken through stages resolve and prepare only, or the result that would end it. */
export type PreparedToolCall =
  | { ok: true; tool: AnyAgentTool; args: unknown; access?: ToolAccess }
  | { ok: false; result: AgentToolResult };
