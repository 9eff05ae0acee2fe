import type { ConfigOwner, PolicyExplanation, PolicyMatch, PolicyPart } from "@toolhost/core";
import type { Decision } from "../options.js";

/*
 * How the parts of a call get their decisions from the rules that matched them (by layer), and
 * how the call's decision and one-line reason come from its parts. The types are core's
 * (`PolicyPart`, `PolicyMatch`, `PolicyExplanation`): what every reader of a decision sees.
 */

/** The note of a connection's address that no rule names (it adds nothing to the decision). */
export const NO_ADDRESS_RULE = "no rule names the address: the decision on its name stands";

const SEVERITY: Record<Decision, number> = { allow: 0, ask: 1, deny: 2 };
export function worst(a: Decision, b: Decision): Decision {
  return SEVERITY[a] >= SEVERITY[b] ? a : b;
}

export function clip(text: string, size: number): string {
  const flat = text.replace(/\s+/g, " ");
  return flat.length > size ? `${flat.slice(0, size - 3)}...` : flat;
}

/** Where a rule stands: its layer's place in layer order, whether that layer is locked, its name and owner. */
export interface Layering {
  default: Decision;
  layerOf(id: string): { index: number; locked: boolean; label?: string; name?: string; owner?: ConfigOwner; preset?: boolean } | undefined;
}

/** Where a rule's layer stands, as `Layering.layerOf` says. */
type Place = NonNullable<ReturnType<Layering["layerOf"]>>;

const NOWHERE: Place = { index: Number.MAX_SAFE_INTEGER, locked: false };

/**
 * The decision of rules that matched one part, by layer: within a layer deny > ask > allow; the
 * last layer with a match decides, but never below what a locked layer before it said.
 */
export function decideLayered(matched: Array<{ id: string; decision: Decision }>, layering: Layering): Decision {
  // The last layer's most severe decision, never below the most severe of any locked layer: two
  // passes over the matches, nothing made (every part of every call is decided here).
  let last = -1;
  let floor: Decision = "allow";
  for (const entry of matched) {
    const where = layering.layerOf(entry.id) ?? NOWHERE;
    if (where.index > last) last = where.index;
    if (where.locked) floor = worst(floor, entry.decision);
  }
  let said: Decision = "allow";
  for (const entry of matched) if ((layering.layerOf(entry.id) ?? NOWHERE).index === last) said = worst(said, entry.decision);
  return worst(said, floor);
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

/**
 * The match that gave the part its decision: in the last layer with a match, or in the locked
 * layer whose floor raised it (the first locked layer that said the most severe locked decision);
 * the first of that layer (in the order the judge put them) with the part's decision. When the
 * rules together do not reach the part's decision (the part asks because of what cannot be read,
 * or a symlink's target was judged apart), the match of the latest layer that said it; undefined
 * when none did. One pass, nothing allocated: every decision's every part goes through it.
 */
function deciderOf(part: PolicyPart, layering: Layering): PolicyMatch | undefined {
  const { matched, decision } = part;
  if (matched.length === 1) return (matched[0] as PolicyMatch).decision === decision ? matched[0] : undefined;
  let last = -1;
  let floor = -1;
  let floorAt = Number.MAX_SAFE_INTEGER;
  for (const entry of matched) {
    const { index, locked } = layering.layerOf(entry.id) ?? NOWHERE;
    if (index > last) last = index;
    const severity = SEVERITY[entry.decision];
    if (locked && (severity > floor || (severity === floor && index < floorAt))) {
      floor = severity;
      floorAt = index;
    }
  }
  let lastSaid = 0;
  for (const entry of matched) if ((layering.layerOf(entry.id) ?? NOWHERE).index === last) lastSaid = Math.max(lastSaid, SEVERITY[entry.decision]);
  const reached = Math.max(lastSaid, floor);
  const at = reached !== SEVERITY[decision] ? undefined : lastSaid >= floor ? last : floorAt;
  let found: PolicyMatch | undefined;
  let foundAt = -1;
  for (const entry of matched) {
    if (entry.decision !== decision) continue;
    const index = (layering.layerOf(entry.id) ?? NOWHERE).index;
    if (at !== undefined) {
      if (index === at) return entry;
    } else if (index > foundAt) {
      found = entry;
      foundAt = index;
    }
  }
  return found;
}

/**
 * Marks each match of each part with its layer, owner and role: `decided` (the one the part's
 * decision came from), `agreed` (said the same), `overruled` (said otherwise). A decision's matches
 * are its own (judges make them per call), so they are marked in place.
 */
function markRoles(parts: readonly PolicyPart[], layering: Layering): void {
  for (const part of parts) {
    if (part.matched.length === 0) continue;
    const decider = deciderOf(part, layering);
    for (const entry of part.matched) {
      const where = layering.layerOf(entry.id);
      entry.role = entry === decider ? "decided" : decider !== undefined && entry.decision === part.decision ? "agreed" : "overruled";
      if (where?.name !== undefined) entry.layer = where.name;
      if (where?.owner !== undefined) entry.owner = where.owner;
    }
  }
}

export function summarize(tool: string, parts: PolicyPart[], layering?: Layering): PolicyExplanation {
  const decision = parts.map((part) => part.decision).reduce(worst);
  if (layering) markRoles(parts, layering);
  const deciding = parts.filter((part) => part.decision === decision);
  const ids = new Set<string>();
  for (const part of deciding) for (const entry of part.matched) if (entry.decision === decision) ids.add(entry.id);
  const rules = [...ids];
  const first = deciding[0] as PolicyPart;
  const rule = first.matched.find((entry) => entry.role === "decided") ?? first.matched.find((entry) => entry.decision === decision);
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
