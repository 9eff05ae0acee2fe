import type { AskingPart, PolicyDetails, PolicyPartKind } from "./types/index.js";

/*
 * Reading the policy's answers as their type says (`PolicyDetails` in `details.policy`), for
 * approvers, audit and telemetry, so that no package switches on strings of another.
 */

/** What the subject of a part of a kind is: a command, a path, a URL, or none of these (named arguments, the whole call). */
export function partSubject(kind: PolicyPartKind): "command" | "path" | "url" | undefined {
  switch (kind) {
    case "command":
      return "command";
    case "read":
    case "write":
    case "tree":
      return "path";
    case "network":
      return "url";
    default:
      return undefined;
  }
}

const KINDS: ReadonlySet<string> = new Set<PolicyPartKind>(["command", "write", "read", "tree", "network", "args", "call"]);

/**
 * The policy's details in the `details` of an ask, a refusal or an allow (`details.policy`), or
 * undefined when they are not a policy's, or not of the shape `PolicyDetails` says (a part whose
 * kind or subject is not a string of the type, a rule without an id): a reader must then act as
 * if it knew nothing of the policy (an approver refuses to pass such an ask in advance).
 */
export function policyDetailsOf(details: unknown): PolicyDetails | undefined {
  try {
    const policy = (details as { policy?: unknown } | null | undefined)?.policy;
    if (policy === null || typeof policy !== "object") return undefined;
    const { decision, rules, parts, asks } = policy as Partial<PolicyDetails>;
    if (decision !== "allow" && decision !== "ask" && decision !== "deny") return undefined;
    if (!Array.isArray(rules) || !rules.every((id) => typeof id === "string")) return undefined;
    if (!Array.isArray(parts) || !parts.every(isPart)) return undefined;
    if (asks !== undefined && !(Array.isArray(asks) && asks.every(isAskingPart))) return undefined;
    return policy as PolicyDetails;
  } catch {
    return undefined;
  }
}

function isPart(value: unknown): boolean {
  if (value === null || typeof value !== "object") return false;
  const { kind, subject, decision, matched } = value as Record<string, unknown>;
  return typeof kind === "string" && KINDS.has(kind) && typeof subject === "string" && typeof decision === "string" && Array.isArray(matched);
}

function isAskingPart(value: unknown): value is AskingPart {
  if (value === null || typeof value !== "object") return false;
  const { kind, subject, rules, locked } = value as Record<string, unknown>;
  if (typeof kind !== "string" || !KINDS.has(kind) || typeof subject !== "string" || typeof locked !== "boolean" || !Array.isArray(rules)) return false;
  return rules.every(
    (rule: unknown) =>
      rule !== null &&
      typeof rule === "object" &&
      typeof (rule as { id?: unknown }).id === "string" &&
      typeof (rule as { layer?: unknown }).layer === "string" &&
      typeof (rule as { locked?: unknown }).locked === "boolean",
  );
}
