import type { ModelMessage } from "ai";
import { type ApprovalRequest, type ApprovalResult, type AskingPart, callDigest, policyDetailsOf } from "@toolhost/core";

/** What the application answered to the SDK's approval request for a call. */
export interface ApplicationApproval {
  toolName: string;
  approved: boolean;
  reason?: string;
}

/**
 * The application's answer for a call, from the messages the SDK hands `execute`: the assistant's
 * `tool-approval-request` for this call id, beside the tool call it is for, of the same tool and
 * the same input as the call that runs, and the `tool-approval-response` to it (the last one, as
 * the SDK reads them). Undefined when there is none: the SDK ran the call without asking, or the
 * approval was for another call that had the same id (an earlier turn's, with other input).
 */
export function approvalInMessages(messages: readonly ModelMessage[] | undefined, toolCallId: string, toolName: string, input: unknown): ApplicationApproval | undefined {
  if (!Array.isArray(messages)) return undefined;
  let approvalId: string | undefined;
  for (const message of messages) {
    if (message.role !== "assistant" || typeof message.content === "string") continue;
    let same = false;
    for (const part of message.content) {
      if (part.type === "tool-call" && part.toolCallId === toolCallId) same = part.toolName === toolName && sameInput(part.input, input);
    }
    for (const part of message.content) {
      if (part.type === "tool-approval-request" && part.toolCallId === toolCallId) approvalId = same ? part.approvalId : undefined;
    }
  }
  if (approvalId === undefined) return undefined;
  let found: ApplicationApproval | undefined;
  for (const message of messages) {
    if (message.role !== "tool") continue;
    for (const part of message.content) {
      if (part.type === "tool-approval-response" && part.approvalId === approvalId) {
        found = { toolName, approved: part.approved === true, ...(typeof part.reason === "string" && { reason: part.reason }) };
      }
    }
  }
  return found;
}

/** Whether two inputs are the same JSON (keys in any order); content that cannot be compared is not the same. */
function sameInput(a: unknown, b: unknown): boolean {
  try {
    return callDigest({ name: "", args: a }) === callDigest({ name: "", args: b });
  } catch {
    return false;
  }
}

const VIA = "application";

/**
 * The `approve` hook's answer for a call the application approved or denied: its answer, unless
 * the ask is one an application cannot pass. A part that a locked layer holds asks a person at the
 * policy's own prompt, never an approval collected elsewhere (as `--approve` cannot pass it); a
 * policy ask whose details cannot be read, or that left asking parts out, is refused (fail closed).
 */
export function applicationAnswer(held: ApplicationApproval, request: ApprovalRequest): ApprovalResult {
  if (!held.approved) return { approved: false, via: VIA, scope: "once", reason: held.reason ?? "the application did not approve it" };
  const raw = (request.details as { policy?: unknown } | undefined)?.policy;
  if (raw !== undefined) {
    const policy = policyDetailsOf(request.details);
    if (policy === undefined) return refuse("the policy's account of this ask could not be read, so an approval from the application cannot pass it");
    if ((policy.asksOmitted ?? 0) > 0) return refuse(`the policy left ${policy.asksOmitted} asking parts out of its account, so an approval from the application cannot pass it`);
    const locked = policy.asks?.find((part) => part.locked);
    if (locked) return refuse(lockedText(locked));
  }
  return { approved: true, via: VIA, scope: "once", reason: held.reason ?? "approved in the application" };
}

function refuse(reason: string): ApprovalResult {
  return { approved: false, via: VIA, scope: "once", reason };
}

function lockedText(part: AskingPart): string {
  const layer = part.lockedBy?.layer ?? part.rules.find((rule) => rule.locked)?.layer ?? "a locked layer";
  const where = part.lockedBy?.source ? ` (${part.lockedBy.source})` : "";
  return `${part.subject} is held by the locked policy layer "${layer}"${where}, which an approval from the application cannot pass; whoever owns that layer can change its rules`;
}
