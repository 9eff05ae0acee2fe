import { type AgentEvent, type AgentHarness, type ApprovalOutcome, HarnessStage, type NetworkAccess, type PolicyExplanation, toolError } from "@toolhost/core";
import { NO_ADDRESS_RULE } from "../explain/_explanation.js";
import { type AuditLog, digest } from "./_audit.js";
import type { AuditApproval, AuditDecision, AuditRule } from "../audit-entry.js";
import type { Policy } from "../types.js";
import { PolicyErrorCode } from "../types.js";

/*
 * What the audit log says of a call: the policy's decision (written before anything runs: a call
 * whose decision cannot be recorded is refused), and from core's `tool_execution_decision` event
 * what became of an ask, and the decisions of other taps (a host refusing code it did not load).
 */

type DecisionEvent = Extract<AgentEvent, { type: "tool_execution_decision" }>;

/** A connection's destinations as an audit line names them: the URL, and the address it goes to when asked about one. */
export function destinationsOf(network: readonly NetworkAccess[]): string[] {
  return network.slice(0, 20).map((each) => (typeof each.address === "string" ? `${each.url} at ${each.address}` : each.url));
}

/**
 * The line of the policy's own decision: the rules that decided with their layers and owners, or
 * whose default did; for a connection (`connection`: what the proxy asked about), its destinations.
 */
export function decisionLine(call: { toolCallId: string; tool: string; args: unknown }, explanation: PolicyExplanation, policy: Policy, connection?: readonly NetworkAccess[]): AuditDecision {
  const line: AuditDecision = {
    time: new Date().toISOString(),
    event: "decision",
    toolCallId: call.toolCallId,
    tool: call.tool,
    argsDigest: digest(call.args),
    decision: explanation.decision,
    rules: explanation.rules,
    reason: explanation.reason,
  };
  if (explanation.rules.length > 0) {
    const byId = new Map(policy.rules.map((rule) => [rule.id, rule]));
    line.deciding = explanation.rules.flatMap((id): AuditRule[] => {
      const rule = byId.get(id);
      if (!rule) return [];
      return [{ id, layer: rule.layer, ...(rule.owner && { owner: rule.owner }), locked: rule.locked, ...(rule.source && { source: rule.source }) }];
    });
  } else if (policy.defaultFrom && !explanation.parts.every((part) => part.note === NO_ADDRESS_RULE)) {
    line.default = policy.defaultFrom;
  }
  if (connection) line.access = destinationsOf(connection);
  return line;
}

/**
 * Writes a line for each decision event that the policy's own line does not cover: an answer to
 * an ask (whoever asked), and a decision another tap made. The line is written before the event
 * returns, so it is there when the call ends; an approved call whose line could not be written is
 * refused in its execute stage (fail closed). A connection a running call asks about cannot be held
 * back so: its line is written as it can be.
 */
export function recordOutcomes(harness: AgentHarness, audit: AuditLog, pluginName: string): void {
  const failed = new Map<string, Error>();
  harness.subscribe((event) => {
    if (event.type !== "tool_execution_decision") return;
    const error = (event.by !== pluginName ? audit.recordNow(otherDecision(event)) : undefined) ?? (event.approval !== undefined ? audit.recordNow(approvalLine(event, event.approval)) : undefined);
    if (error === undefined || event.approval?.approved !== true || event.access !== undefined) return;
    if (failed.size >= MAX_PENDING) failed.delete(failed.keys().next().value as string);
    failed.set(event.toolCallId, error);
  });
  harness.hooks.executeToolCall.tap({ name: pluginName, stage: HarnessStage.BUILT_IN_FIRST }, (ctx) => {
    if (failed.size === 0) return undefined;
    const error = failed.get(ctx.toolCall.id);
    if (error === undefined) return undefined;
    failed.delete(ctx.toolCall.id);
    const text = `Not run: ${ctx.toolCall.name} was approved, but the approval could not be recorded in the audit log (${error.message}), so the call was refused. Fix the file's folder or permissions, or remove "audit" from the policy options.`;
    return toolError(PolicyErrorCode.AUDIT_FAILED, text);
  });
}

/** Approved calls whose lines failed, kept at most: a call stopped between its approval and its run leaves its entry. */
const MAX_PENDING = 1_000;

function approvalLine(event: DecisionEvent, approval: ApprovalOutcome): AuditApproval {
  const answer = approval.answer;
  const line: AuditApproval = {
    time: new Date().toISOString(),
    event: "approval",
    toolCallId: event.toolCallId,
    tool: event.toolName,
    outcome: outcomeOf(approval),
    approved: approval.approved,
    askedBy: approval.askedBy,
  };
  if (approval.approved) line.scope = answer?.scope ?? "once";
  if (typeof answer?.via === "string") line.via = answer.via;
  if (typeof answer?.rule === "string") line.rule = answer.rule;
  if (approval.answeredBy !== undefined) line.answeredBy = approval.answeredBy;
  if (event.access?.network) line.access = destinationsOf(event.access.network);
  if (typeof answer?.reason === "string") line.reason = answer.reason;
  return line;
}

function outcomeOf(approval: ApprovalOutcome): AuditApproval["outcome"] {
  if (approval.answer === undefined) return "no one to ask";
  if (!approval.approved) return "refused";
  const scope = approval.answer.scope ?? "once";
  return scope === "always" ? "approved always" : scope === "session" ? "approved for the session" : "approved once";
}

/** Another tap's decision, with the code and what was refused when it is a host's refusal. */
function otherDecision(event: DecisionEvent): AuditDecision {
  const line: AuditDecision = {
    time: new Date().toISOString(),
    event: "decision",
    toolCallId: event.toolCallId,
    tool: event.toolName,
    decision: event.decision,
    rules: [],
    ...(event.by !== undefined && { by: event.by }),
    reason: event.reason ?? "",
  };
  const details = event.details as { code?: unknown; notLoaded?: unknown } | undefined;
  if (typeof details?.code === "string") line.code = details.code;
  if (Array.isArray(details?.notLoaded)) line.notLoaded = details.notLoaded.slice(0, 20).map(notLoadedItem);
  if (event.access?.network) line.access = destinationsOf(event.access.network);
  return line;
}

/** One thing a host did not load (core's `details.notLoaded`: `Host.refused`'s shape), its text fields only. */
function notLoadedItem(item: unknown): NonNullable<AuditDecision["notLoaded"]>[number] {
  const given = (item ?? {}) as Record<string, unknown>;
  const text = (key: string) => (typeof given[key] === "string" ? { [key]: given[key] as string } : {});
  return { ...text("code"), ...text("owner"), ...text("kind"), ...text("file"), ...text("plugin") };
}
