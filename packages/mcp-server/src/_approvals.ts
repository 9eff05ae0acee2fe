import { createHash } from "node:crypto";
import type { AgentHarness, ApprovalRequest, ApprovalResult } from "@toolhost/core";

/** What the `approve` tap knows about one MCP call. */
export interface CallApproval {
  /** The client's user's answer, when a retried request carried it. */
  answer?: ApprovalResult;
  /** Whether the client can ask its user (it declared elicitation, and serving allows it). */
  canAsk: boolean;
  /** Set by the tap when the client must be asked: the question, redacted. */
  question?: string;
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
    if (state.answer) return state.answer;
    if (state.canAsk) {
      state.question = this.#question(request);
      if (state.question !== undefined) return { approved: false, reason: "the MCP client's user was asked" };
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
    const text = `toolhost asks: allow ${request.toolCall.name} ${args}?\nWhy asked: ${request.reason} (${request.askedBy})`;
    try {
      return this.harness.hooks.redact.call(text);
    } catch {
      return undefined;
    }
  }
}

/** The key of the approval question of a call: the same tool and arguments give the same key. */
export function approvalKey(tool: string, args: unknown): string {
  return `approve_${createHash("sha256").update(`${tool}\0${JSON.stringify(args ?? {})}`).digest("hex").slice(0, 16)}`;
}

/** The form the client shows its user: one yes/no field, no by default. */
export function approvalForm(): { type: "object"; properties: { approve: { type: "boolean"; title: string; description: string; default: boolean } }; required: string[] } {
  return {
    type: "object",
    properties: { approve: { type: "boolean", title: "Allow this call", description: "Run the call once.", default: false } },
    required: ["approve"],
  };
}
