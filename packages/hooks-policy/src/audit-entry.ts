import type { ApprovalResult, ConfigOwner, PolicyDecision } from "@toolhost/core";

/** A rule that decided, as an audit line names it: its id, layer, owner, lock and file. */
export interface AuditRule {
  id: string;
  layer: string;
  owner?: ConfigOwner;
  locked: boolean;
  source?: string;
}

/**
 * One line of the audit log for a decision: the policy's own (`by` absent), or another tap's that
 * decided the call before or after it (`by`: a host refusing code it did not load, a plugin's own
 * ask). The arguments are a digest; every text is redacted.
 */
export interface AuditDecision {
  /** ISO 8601. */
  time: string;
  event: "decision";
  /** The call's id, which the approval line of the same call carries too. */
  toolCallId: string;
  tool: string;
  /** sha256 (hex) of the arguments as canonical JSON (keys sorted), so a call can be matched without storing it. */
  argsDigest?: string;
  decision: PolicyDecision;
  rules: string[];
  /** The rules that decided, with the layer and owner of each. */
  deciding?: AuditRule[];
  /** When no rule decided: whose `default` did. */
  default?: { layer: string; owner?: ConfigOwner; source?: string };
  /** Another tap that decided (the policy's own decisions have none). */
  by?: string;
  /** The `details.code` of another tap's refusal (`TOOLHOST_UNTRUSTED_CODE`, …). */
  code?: string;
  /** What a host left out of its configs and refused every call for (code it did not run, a file another user can change): its `details.notLoaded`. */
  notLoaded?: Array<{ code?: string; owner?: string; kind?: string; file?: string; plugin?: string }>;
  /** For a connection a running call asks about (`ToolExecution.authorize`): the destinations. */
  access?: string[];
  /** Why, with secrets masked by the `redact` hook. */
  reason: string;
}

/**
 * One line of the audit log for what became of an ask, written after the decision line of the same
 * call (`toolCallId`): approved (once, for the session, always with the rule written), refused, or
 * no one to ask; with where the answer came from (`via`: `terminal`, `--approve 'bash:git *'`,
 * `TOOLHOST_APPROVE line 2`, `MCP elicitation`, `application`) and the tap that gave it.
 */
export interface AuditApproval {
  time: string;
  event: "approval";
  toolCallId: string;
  tool: string;
  /** In words: `approved once`, `approved for the session`, `approved always`, `refused`, `no one to ask`. */
  outcome: "approved once" | "approved for the session" | "approved always" | "refused" | "no one to ask";
  approved: boolean;
  scope?: ApprovalResult["scope"];
  via?: string;
  /** For "approved always": the rule written, and where. */
  rule?: string;
  /** The `approve` tap that answered; absent when none did. */
  answeredBy?: string;
  /** Who asked. */
  askedBy: string;
  /** For a connection a running call asked about: the destinations. */
  access?: string[];
  /** The answer's reason, redacted. */
  reason?: string;
}

/** One line of the audit log. */
export type AuditEntry = AuditDecision | AuditApproval;
