import { createHash } from "node:crypto";
import type { AgentHarness, ApprovalRequest, ApprovalResult } from "@toolhost/core";

/** What the `approve` tap knows about one MCP call. */
export interface CallApproval {
  /**
   * The client's user's answer to the question of this key, when a retried request carried one. A
   * key is made from the digest of the call's content as it is judged now (`approvalKey`), so an
   * answer given about other content (the arguments, or what a path leads to, changed between the
   * question and the answer) is no answer, and the client is asked again.
   */
  answerFor(key: string): ApprovalResult | undefined;
  /** Whether the client can ask its user (it declared elicitation, and serving allows it). */
  canAsk: boolean;
  /** Set by the tap when the client must be asked: the question's key and text, redacted. */
  question?: { key: string; text: string };
  /** Set by the tap when an answer of this request was taken. */
  answered?: boolean;
}

const TAP = { name: "@toolhost/mcp-server", stage: -100 };
const byHarness = new WeakMap<AgentHarness, Approvals>();

/**
 * The bridge between the harness's `approve` hook and MCP elicitation. It taps `approve` once per
 * harness, before other approvers, and answers only calls that came through MCP (by tool call id).
 */
export class Approvals {
  readonly #calls = new Map<string, CallApproval>();

  private constructor(
    private readonly harness: AgentHarness,
    private readonly allowHint: string,
  ) {
    harness.hooks.approve.tapPromise(TAP, async (request, signal) => this.#answer(request, signal));
  }

  static of(harness: AgentHarness, allowHint: string): Approvals {
    let approvals = byHarness.get(harness);
    if (!approvals) {
      approvals = new Approvals(harness, allowHint);
      byHarness.set(harness, approvals);
    }
    return approvals;
  }

  track(toolCallId: string, state: CallApproval): void {
    this.#calls.set(toolCallId, state);
  }

  release(toolCallId: string): void {
    this.#calls.delete(toolCallId);
  }

  #answer(request: ApprovalRequest, signal: AbortSignal): ApprovalResult | Promise<ApprovalResult> | undefined {
    const state = this.#calls.get(request.toolCall.id);
    if (!state) return undefined;
    const key = approvalKey(request.digest);
    const answer = state.answerFor(key);
    if (answer !== undefined) {
      state.answered = true;
      return answer;
    }
    if (state.canAsk) {
      const text = this.#question(request);
      if (text !== undefined) {
        state.question = { key, text };
        return { approved: false, reason: "the MCP client's user was asked" };
      }
      return { approved: false, reason: "the question could not be shown without a secret in it, so the call is refused" };
    }
    // A client that cannot ask its user: the user's approvals page, when the config names one (@toolhost/approvals).
    const page = this.harness.getService("approvals");
    if (page !== undefined) return page.ask(request, signal, { asker: "toolhost mcp serve" });
    // The refusal already says why the call asked (core's "needs approval (…), and <this>"): not again here.
    return {
      approved: false,
      reason: `no one could approve it. This MCP client cannot ask its user (it does not support elicitation), so the call is refused. To allow it, ${this.allowHint}`,
    };
  }

  /** The question for the user: the call and the reason, through the redact hook (a throw withholds it). */
  #question(request: ApprovalRequest): string | undefined {
    let args: string;
    try {
      args = JSON.stringify(request.args);
    } catch {
      args = String(request.args);
    }
    if (args.length > 2000) args = `${args.slice(0, 2000)}… (${args.length - 2000} more characters)`;
    const touches = touchesOf(request);
    const text = `toolhost asks: allow ${request.toolCall.name} ${args}?${touches}\nWhy asked: ${request.reason} (${request.askedBy})`;
    try {
      return this.harness.hooks.redact.call(text);
    } catch {
      return undefined;
    }
  }
}

/** What the call declared it touches, a line each kind, bounded: what a path leads to is part of what is approved. */
function touchesOf(request: ApprovalRequest): string {
  const access = request.access;
  if (access === undefined) return "";
  const lines: string[] = [];
  const list = (label: string, items: readonly string[] | undefined) => {
    if (items && items.length > 0) lines.push(`${label}: ${items.slice(0, 10).join(", ")}${items.length > 10 ? ` and ${items.length - 10} more` : ""}`);
  };
  list("Runs", access.commands?.map((command) => command.command.slice(0, 500)));
  list("Writes", access.writes);
  list("Reads", [...(access.reads ?? []), ...(access.readTrees ?? [])]);
  list("Reaches", access.network?.map((destination) => destination.url));
  return lines.length === 0 ? "" : `\n${lines.join("\n")}`;
}

/**
 * The key of the approval question of a call: from core's `callDigest` of its content as judged
 * (the tool, its prepared arguments and declared access), so the same content gives the same key
 * and an answer binds to that content, never to a call id.
 */
export function approvalKey(digest: string): string {
  return `approve_${createHash("sha256").update(digest).digest("hex").slice(0, 32)}`;
}

/** The form the client shows its user: one yes/no field, no by default. */
export function approvalForm(): { type: "object"; properties: { approve: { type: "boolean"; title: string; description: string; default: boolean } }; required: string[] } {
  return {
    type: "object",
    properties: { approve: { type: "boolean", title: "Allow this call", description: "Run the call once.", default: false } },
    required: ["approve"],
  };
}
