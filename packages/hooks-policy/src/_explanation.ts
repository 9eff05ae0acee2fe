import type { PolicyExplanation as CorePolicyExplanation } from "@toolhost/core";
import type { Decision } from "./_schema.js";

/**
 * What was judged in a call: a simple command, a file written or read, a tree read recursively,
 * a network destination, named arguments, the call as a whole.
 */
export type PartKind = "command" | "write" | "read" | "tree" | "network" | "args" | "call";

/** A rule that matched a part, and what it said about it. */
export interface MatchedRule {
  id: string;
  decision: Decision;
  reason?: string;
}

/** One judged piece of a call. */
export interface PolicyPart {
  kind: PartKind;
  /** The simple command, the normalized path, `GET https://…`, `url=https://…`, or the tool's name. */
  subject: string;
  decision: Decision;
  matched: MatchedRule[];
  /** Why the decision is what it is when no rule says it (`default (no rule matched)`, `command name known only at run time`). */
  note?: string;
}

/** The decision on a call, with every part and the rules that matched it (core's `PolicyExplanation`, with typed parts). */
export interface PolicyExplanation extends CorePolicyExplanation {
  decision: Decision;
  parts: PolicyPart[];
}

const SEVERITY: Record<Decision, number> = { allow: 0, ask: 1, deny: 2 };
export function worst(a: Decision, b: Decision): Decision {
  return SEVERITY[a] >= SEVERITY[b] ? a : b;
}


export function clip(text: string, size: number): string {
  const flat = text.replace(/\s+/g, " ");
  return flat.length > size ? `${flat.slice(0, size - 3)}...` : flat;
}



/** Sets a part's decision from its matches (deny > ask > allow), the default when none, at least ask when uncertain. */
export function finish(part: PolicyPart, defaultDecision: Decision, notes: string[] = [], atLeastAsk = false): PolicyPart {
  let decision: Decision;
  if (part.matched.length === 0) {
    decision = defaultDecision;
    if (!atLeastAsk || SEVERITY[defaultDecision] > SEVERITY.ask) notes.push(`default (no rule matched)`);
  } else {
    decision = part.matched.map((entry) => entry.decision).reduce(worst);
  }
  if (atLeastAsk) decision = worst(decision, "ask");
  part.decision = decision;
  if (notes.length > 0) part.note = notes.join("; ");
  return part;
}

export function merge(a: PolicyPart, b: PolicyPart): PolicyPart {
  const matched = [...a.matched];
  for (const entry of b.matched) if (!matched.some((each) => each.id === entry.id && each.decision === entry.decision)) matched.push(entry);
  const note = [a.note, b.note].filter((text) => text !== undefined && text !== "");
  const subject = a.subject === b.subject ? a.subject : `${a.subject} | ${b.subject}`;
  const part: PolicyPart = { kind: a.kind, subject, decision: worst(a.decision, b.decision), matched };
  if (note.length > 0) part.note = [...new Set(note)].join("; ");
  return part;
}

export function summarize(tool: string, parts: PolicyPart[]): PolicyExplanation {
  const decision = parts.map((part) => part.decision).reduce(worst);
  const deciding = parts.filter((part) => part.decision === decision);
  const rules = [...new Set(deciding.flatMap((part) => part.matched.filter((entry) => entry.decision === decision).map((entry) => entry.id)))];
  const first = deciding[0] as PolicyPart;
  const rule = first.matched.find((entry) => entry.decision === decision);
  const what = first.kind === "call" ? tool : `${first.kind === "command" ? "" : `${first.kind} `}${first.subject}`;
  let reason: string;
  if (rule) {
    const why = rule.reason ? ` (${rule.reason})` : "";
    reason = decision === "ask" ? `${what}: ${rule.id} asks${why}` : `${what}: ${decision === "deny" ? "denied" : "allowed"} by ${rule.id}${why}`;
    if (decision !== "allow" && first.note && !first.note.startsWith("default")) reason += `; ${first.note}`;
  } else {
    reason = `${what}: ${first.note ?? `default ${decision}`}`;
  }
  if (decision === "allow" && deciding.length > 1) reason = `every part allowed (${rules.join(", ") || "default"})`;
  return { decision, reason: oneLine(reason), tool, rules, parts };
}

function oneLine(text: string): string {
  const flat = text.includes("\n") ? text.replace(/\s*\n\s*/g, " ⏎ ") : text;
  return flat.length > 500 ? `${flat.slice(0, 497)}...` : flat;
}

export function preview(value: unknown): string {
  const text = typeof value === "string" ? value : JSON.stringify(value) ?? String(value);
  return text.length > 200 ? `${text.slice(0, 197)}...` : text;
}
