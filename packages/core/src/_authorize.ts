import { randomUUID } from "node:crypto";
import { callDigest } from "./digest.js";
import { ErrorCode, messageOf } from "./errors.js";
import { nameOf } from "./_prepare.js";
import { redactArgs, redactText } from "./_redact.js";
import { toolError } from "./results.js";
import type { PipelineScope } from "./_scope.js";
import { isThenable, TapError } from "./_taps.js";
import { runHook } from "./hooks/base.js";
import type { AgentToolResult, ApprovalAnswer, ApprovalOutcome, PolicyDecision, ToolAccess, ToolCallContext, ToolDecision } from "./types/index.js";

/*
 * Stage authorize: `beforeToolCall` decides (a block or ask of the first tap that gives one), an
 * ask goes to `approve`, and a `tool_execution_decision` event tells what became of it. The same
 * stage judges what a running call asks about later (`ToolExecution.authorize`).
 */

/** What the authorize stage made of a call: the refusal that ends it, and the approval when someone was asked. */
export interface Authorization {
  refusal?: AgentToolResult;
  approval?: ApprovalOutcome;
  /** The answer that let the call through (an allow, or the ask someone approved); absent when no tap answered. */
  decision?: ToolDecision;
}

const NOTHING: Authorization = Object.freeze({});

/**
 * Authorizes a call (or, with `followUp`, more of a running call: `ctx.access` is then what it
 * asks about). Never rejects: a tap that throws refuses the call (fail closed). The answer comes at
 * once when no tap made a promise.
 */
export function authorize(scope: PipelineScope, ctx: ToolCallContext, signal: AbortSignal, followUp?: ToolAccess): Authorization | Promise<Authorization> {
  let decided: Judging;
  try {
    decided = judge(scope, ctx, signal);
  } catch (error) {
    return failed(scope, ctx, error, followUp);
  }
  if (!isThenable(decided)) return decide(scope, ctx, decided, signal, followUp);
  return decided.then(
    (answer) => decide(scope, ctx, answer, signal, followUp),
    (error: unknown) => failed(scope, ctx, error, followUp),
  );
}

/** What `judge` gives: the decision, at once or as the taps' promise. */
export type Judging = ToolDecision | undefined | Promise<ToolDecision | undefined>;

/**
 * The `beforeToolCall` taps' decision as they give it: at once, or the hook's own promise when a
 * tap made one (the pipeline awaits it itself: a promise layer per stage costs a turn per call).
 * Throws (or rejects) with what a tap threw: `failed` refuses the call then.
 */
export function judge(scope: PipelineScope, ctx: ToolCallContext, signal: AbortSignal): Judging {
  const hook = scope.hooks.beforeToolCall;
  // With no tap nothing is decided, and nothing is told.
  if (hook.taps.length === 0 && hook.interceptors.length === 0) return undefined;
  return runHook(hook, ctx, signal);
}

/** A tap threw: the call is refused, naming it. */
export function failed(scope: PipelineScope, ctx: ToolCallContext, error: unknown, followUp: ToolAccess | undefined): Authorization {
  const by = error instanceof TapError ? error.tapName : "beforeToolCall";
  const text = `Blocked: the check before "${nameOf(ctx.toolCall)}" failed, so the call was refused. ${messageOf(error)}`;
  tell(scope, ctx, { decision: "deny", by, reason: text }, followUp);
  return { refusal: toolError(ErrorCode.POLICY_FAILED, text, { blockedBy: by }) };
}

/** What the decision makes of the call: nothing (go on), a refusal, or an ask of `approve`. */
export function decide(
  scope: PipelineScope,
  ctx: ToolCallContext,
  decided: ToolDecision | undefined,
  signal: AbortSignal,
  followUp: ToolAccess | undefined,
): Authorization | Promise<Authorization> {
  // Told only when a tap answered: a harness whose taps say nothing pays nothing for the event.
  if (decided === undefined) return NOTHING;
  if ("allow" in decided) {
    tell(scope, ctx, { decision: "allow", by: decided.allowedBy, reason: decided.reason, details: decided.details }, followUp);
    return { decision: decided };
  }
  if ("block" in decided) {
    const { blockedBy, reason, details } = decided;
    tell(scope, ctx, { decision: "deny", by: blockedBy, reason, details }, followUp);
    return { refusal: toolError(ErrorCode.BLOCKED, `Blocked by ${blockedBy}: ${reason}`, { ...details, blockedBy, reason }) };
  }
  return ask(scope, ctx, decided, signal).then((approval) => {
    tell(scope, ctx, { decision: approval.approved ? "allow" : "ask", by: decided.askedBy, reason: decided.reason, details: decided.details, approval }, followUp);
    return approval.approved ? { approval, decision: decided } : { approval, refusal: notApproved(ctx, decided, approval) };
  });
}

/** Asks the `approve` hook; what became of the ask. */
async function ask(scope: PipelineScope, ctx: ToolCallContext, decided: Extract<ToolDecision, { ask: true }>, signal: AbortSignal): Promise<ApprovalOutcome> {
  const { askedBy, reason, details } = decided;
  let answer: ApprovalAnswer | undefined;
  try {
    answer = await scope.hooks.approve.promise({ ...ctx, reason, askedBy, ...(details && { details }), digest: digestOf(ctx) }, signal);
  } catch (error) {
    const by = error instanceof TapError ? error.tapName : "approve";
    answer = { approved: false, reason: `asking for approval failed: ${messageOf(error)}`, answeredBy: by };
  }
  if (answer === undefined) return { askedBy, reason, approved: false };
  const { answeredBy, ...given } = answer;
  return { askedBy, reason, approved: given.approved === true, answeredBy, answer: given };
}

/**
 * The digest of what the call will do, for an approver to bind its answer to. Content no digest can
 * be made of (none can, once validated) gets a value of its own that no answer was given for.
 */
function digestOf(ctx: ToolCallContext): string {
  try {
    return callDigest({ name: ctx.tool.name, args: ctx.args, ...(ctx.access && { access: ctx.access }) });
  } catch {
    return `unbound:${randomUUID()}`;
  }
}

function notApproved(ctx: ToolCallContext, decided: Extract<ToolDecision, { ask: true }>, approval: ApprovalOutcome): AgentToolResult {
  const { answer } = approval;
  const why =
    answer === undefined
      ? "no one could approve it (no approver is attached: run in a terminal, or tap the approve hook)"
      : (answer.reason ?? "it was not approved");
  const text = `Not run: ${nameOf(ctx.toolCall)} needs approval (${decided.reason}), and ${why}.`;
  return toolError(ErrorCode.NOT_APPROVED, text, {
    ...decided.details,
    blockedBy: decided.askedBy,
    reason: decided.reason,
    approval: answer === undefined ? null : { ...answer, answeredBy: approval.answeredBy },
  });
}

interface Told {
  decision: PolicyDecision;
  by?: string;
  reason?: string;
  details?: Record<string, unknown>;
  approval?: ApprovalOutcome;
}

/** The `tool_execution_decision` event, its texts redacted; nothing when no one listens. */
function tell(scope: PipelineScope, ctx: ToolCallContext, told: Told, followUp: ToolAccess | undefined): void {
  const { hooks } = scope;
  if (!hooks.event.isUsed()) return;
  const { redact } = hooks;
  scope.emit({
    type: "tool_execution_decision",
    toolCallId: ctx.toolCall.id,
    toolName: ctx.toolCall.name,
    decision: told.decision,
    ...(told.by !== undefined && { by: told.by }),
    ...(told.reason !== undefined && { reason: redactText(redact, told.reason) }),
    ...(told.details !== undefined && { details: redactArgs(redact, told.details) as Record<string, unknown> }),
    ...(told.approval !== undefined && { approval: redactArgs(redact, told.approval) as ApprovalOutcome }),
    ...(followUp !== undefined && { access: redactArgs(redact, followUp) as ToolAccess }),
  });
}
