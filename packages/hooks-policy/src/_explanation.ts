import type { PolicyExplanation, PolicyPart } from "@toolhost/core";
import type { Decision } from "./options.js";

/*
 * How the parts of a call get their decisions from the rules that matched them (by layer), and
 * how the call's decision and one-line reason come from its parts. The types are core's
 * (`PolicyPart`, `PolicyMatch`, `PolicyExplanation`): what every reader of a decision sees.
 */

const SEVERITY: Record<Decision, number> = { allow: 0, ask: 1, deny: 2 };
export function worst(a: Decision, b: Decision): Decision {
  return SEVERITY[a] >= SEVERITY[b] ? a : b;
}

export function clip(text: string, size: number): string {
  const flat = text.replace(/\s+/g, " ");
  return flat.length > size ? `${flat.slice(0, size - 3)}...` : flat;
}

/** Where a rule stands: its layer's place in `extends` order (the config's own rules last) and whether that layer is locked. */
export interface Layering {
  default: Decision;
  layerOf(id: string): { index: number; locked: boolean; label?: string } | undefined;
}

/**
 * The decision of rules that matched one part, by layer: within a layer deny > ask > allow; the
 * last layer with a match decides, but never below what a locked layer before it said.
 */
export function decideLayered(matched: Array<{ id: string; decision: Decision }>, layering: Layering): Decision {
  const byLayer = new Map<number, Decision>();
  const locked = new Set<number>();
  for (const entry of matched) {
    const where = layering.layerOf(entry.id) ?? { index: Number.MAX_SAFE_INTEGER, locked: false };
    byLayer.set(where.index, worst(byLayer.get(where.index) ?? "allow", entry.decision));
    if (where.locked) locked.add(where.index);
  }
  let floor: Decision = "allow";
  let last: Decision = "allow";
  for (const index of [...byLayer.keys()].sort((a, b) => a - b)) {
    last = byLayer.get(index) as Decision;
    if (locked.has(index)) floor = worst(floor, last);
  }
  return worst(last, floor);
}

/** Sets a part's decision from its matches (by layer, see `decideLayered`), the default when none, at least ask when uncertain. */
export function finish(part: PolicyPart, layering: Layering, notes: string[] = [], atLeastAsk = false): PolicyPart {
  let decision: Decision;
  const defaultDecision = layering.default;
  if (part.matched.length === 0) {
    decision = defaultDecision;
    if (!atLeastAsk || SEVERITY[defaultDecision] > SEVERITY.ask) notes.push(`default (no rule matched)`);
  } else {
    decision = decideLayered(part.matched, layering);
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

export function summarize(tool: string, parts: PolicyPart[], layering?: Layering): PolicyExplanation {
  const decision = parts.map((part) => part.decision).reduce(worst);
  const deciding = parts.filter((part) => part.decision === decision);
  const rules = [...new Set(deciding.flatMap((part) => part.matched.filter((entry) => entry.decision === decision).map((entry) => entry.id)))];
  const first = deciding[0] as PolicyPart;
  const rule = first.matched.find((entry) => entry.decision === decision);
  const what = first.kind === "call" ? tool : `${first.kind === "command" ? "" : `${first.kind} `}${first.subject}`;
  let reason: string;
  if (rule) {
    const why = rule.reason ? ` (${rule.reason})` : "";
    const named = layering?.layerOf(rule.id)?.label ?? rule.id;
    reason = decision === "ask" ? `${what}: asked by ${named}${why}` : `${what}: ${decision === "deny" ? "denied" : "allowed"} by ${named}${why}`;
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
