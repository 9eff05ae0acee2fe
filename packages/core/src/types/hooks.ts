import type { ToolCall } from "./messages.js";
import type { ApprovalAnswer, ApprovalOutcome, ApprovalResult } from "./approval.js";
import type { AgentToolResult, AnyAgentTool, ToolAccess, ToolExecution } from "./tool.js";

export type { ApprovalAnswer, ApprovalOutcome, ApprovalResult };

/** What the stages after resolution know about a call. */
export interface ToolCallContext<TContext = unknown> {
  toolCall: ToolCall;
  tool: AnyAgentTool;
  /** The prepared and (from stage 4 on) validated arguments. */
  args: unknown;
  /** What the call will touch, as its tool declared it (from stage 4 on; absent if it declares nothing). */
  access?: ToolAccess;
  /** The harness's `toolContext`. */
  context: TContext;
}

/** One reason the arguments are invalid: where (a JSON pointer, `/path/0`) and what. */
export interface ValidationProblem {
  path: string;
  message: string;
}

/**
 * What a `beforeToolCall` tap answers. Return nothing to let the next tap judge.
 * - `{ block: true, reason }` refuses the call, and `{ ask: true, reason }` sends it to the
 *   `approve` hook: the first such answer decides, and no later tap is asked.
 * - `{ allow: true }` says this tap lets it through, for the record (`tool_execution_decision`
 *   carries the first allow's `details`, e.g. the rules that allowed it); the next taps still judge.
 * `blockedBy` / `askedBy` / `allowedBy` name who decided; the hook fills in the tap's name when missing.
 * Any other answer (`null`, `{}`, a malformed object) is no answer.
 */
export type BeforeToolCallResult =
  | { block: true; reason: string; blockedBy?: string; details?: Record<string, unknown> }
  | { ask: true; reason: string; askedBy?: string; details?: Record<string, unknown> }
  | { allow: true; reason?: string; allowedBy?: string; details?: Record<string, unknown> };

/** The question put to the `approve` hook. */
export interface ApprovalRequest<TContext = unknown> extends ToolCallContext<TContext> {
  /** Why a human is asked. */
  reason: string;
  /** Who asked (the tap that answered `ask`). */
  askedBy: string;
  /** The `details` of the `ask` answer, e.g. the policy's rules that asked. */
  details?: Record<string, unknown>;
  /**
   * `callDigest` of the call's content as it was judged: the tool's name, the prepared arguments and
   * the declared access (`sha256:…`). An approver that keeps an answer beyond this request (a
   * session scope, an answer that comes back later, from a page or a client) keeps it with this
   * digest and gives it only to a request with the same one: an answer is for one call's content,
   * never for a call id, and a reused id with other content is asked again. Content that cannot be
   * digested gets `unbound:` and a value no other request has.
   */
  digest: string;
}

/** What an `executeToolCall` tap gets: the call, and its own channels to the pipeline (`ToolExecution`). */
export interface ExecuteToolCallContext<TContext = unknown> extends ToolCallContext<TContext> {
  execution: ToolExecution;
}

/** Given to `afterToolCall`: the call and its result so far. */
export interface AfterToolCallContext<TContext = unknown> extends ToolCallContext<TContext> {
  result: AgentToolResult;
  isError: boolean;
}

/** Fields of the result an `afterToolCall` tap replaces; return nothing to keep the result. */
export type AfterToolCallResult = Partial<
  Pick<AgentToolResult, "content" | "details" | "isError" | "terminate" | "usage">
>;

export type BeforeToolCallFn<TContext = unknown> = (
  ctx: ToolCallContext<TContext>,
  signal: AbortSignal,
) => BeforeToolCallResult | undefined | Promise<BeforeToolCallResult | undefined>;

export type AfterToolCallFn<TContext = unknown> = (
  ctx: AfterToolCallContext<TContext>,
  signal: AbortSignal,
) => AfterToolCallResult | undefined | Promise<AfterToolCallResult | undefined>;

/** What `prepareArguments` and `validateArguments` taps get besides the arguments: the call, its tool, the harness's tool context. */
export interface PrepareContext<TContext = unknown> {
  toolCall: ToolCall;
  tool: AnyAgentTool;
  context: TContext;
}

