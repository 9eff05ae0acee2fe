/**
 * What `hooks.beforeToolCall.promise(ctx, signal)` resolves to, and what the pipeline acts on: the
 * deciding answer with who gave it, or undefined when no tap answered.
 */
export type ToolDecision =
  | { block: true; reason: string; blockedBy: string; details?: Record<string, unknown> }
  | { ask: true; reason: string; askedBy: string; details?: Record<string, unknown> }
  | { allow: true; reason?: string; allowedBy: string; details?: Record<string, unknown> };

/** An answer of the `approve` hook. */
export interface ApprovalResult {
  approved: boolean;
  reason?: string;
  /**
   * How far the answer reaches, for the record: this call only (`"once"`, the default), the later
   * asks of the same kind in this session, or for good (`"always"`, with the rule written in `rule`).
   */
  scope?: "once" | "session" | "always";
  /**
   * Where the answer came from, for the record, in the user's words: `terminal`, `--approve
   * 'bash:git push *'`, `TOOLHOST_APPROVE line 2`, `MCP elicitation`, `application`.
   */
  via?: string;
  /** For `scope: "always"`: the rule that was written, and where (`allow bash "git push *" in ./toolhost.config.json`). */
  rule?: string;
}

/**
 * What became of an ask: who asked and why, whether it was approved, and the answer with the tap
 * that gave it (none when no approver answered: no one could be asked).
 */
export interface ApprovalOutcome {
  askedBy: string;
  reason: string;
  approved: boolean;
  /** The `approve` tap that answered; absent when none did. */
  answeredBy?: string;
  answer?: ApprovalResult;
}

/** What `hooks.approve.promise(request, signal)` resolves to: the first answer, with the tap that gave it, or undefined. */
export type ApprovalAnswer = ApprovalResult & { answeredBy: string };
