import type { PolicyDecision } from "@toolhost/core";

/** One line of the audit log: a decision, with the arguments as a digest and the reason redacted. */
export interface AuditEntry {
  /** ISO 8601. */
  time: string;
  tool: string;
  /** sha256 (hex) of the arguments as canonical JSON (keys sorted), so a call can be matched without storing it. */
  argsDigest: string;
  decision: PolicyDecision;
  rules: string[];
  /** Why, with secrets masked by the `redact` hook. */
  reason: string;
}
