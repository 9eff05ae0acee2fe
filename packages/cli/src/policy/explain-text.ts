import type { PolicyExplanation, PolicyMatch, PolicyPart, PolicyRuleInfo } from "@toolhost/core";
import type { Painter } from "../_output.js";
import { terminalLine } from "../_terminal-text.js";
import { flagFor } from "../approve/hint.js";
import { quoteShell } from "../approve/values.js";

/** What `policy explain` shows beside the explanation: the rules in force (for locked layers) and where it runs. */
export interface ExplainSetting {
  rules: readonly PolicyRuleInfo[];
  cwd: string;
}

/**
 * The explanation for a person: the decision and its reason; a note every part shares, once; each
 * part with its decision and the rules that matched it, the deciding one and those it overruled
 * marked (with their layers) when the policy says so; for an ask, the `--approve` values that pass
 * it, whether a rule or the default asked. Subjects and reasons are shown escaped.
 */
export function explainText(explanation: PolicyExplanation, paint: Painter, setting: ExplainSetting): string {
  const color = (decision: string): string => paint(decision === "allow" ? "green" : decision === "deny" ? "red" : "yellow", decision);
  const shared = sharedNotes(explanation.parts);
  const lines = [`${paint("bold", color(explanation.decision))}  ${terminalLine(explanation.tool)}: ${terminalLine(explanation.reason)}`];
  for (const note of shared) lines.push(`  ${paint("dim", `note: ${terminalLine(note)}`)}`);
  for (const part of explanation.parts) {
    const note = ownNote(part, shared);
    lines.push(`  ${color(part.decision)}  ${part.kind} ${paint("bold", terminalLine(part.subject))}${note ? paint("dim", `  (${terminalLine(note)})`) : ""}`);
    // A part no rule matched that a note explains otherwise (an address no rule names) was not the default's.
    if (part.matched.length === 0 && (part.note === undefined || part.note.includes("default"))) lines.push(`      ${paint("dim", "no rule matched: the default decides")}`);
    for (const rule of part.matched) lines.push(`      ${matchLine(rule, paint)}`);
  }
  const hint = explanation.decision === "ask" ? approveHint(explanation, setting) : undefined;
  if (hint !== undefined) lines.push(`  ${paint("dim", hint)}`);
  return `${lines.join("\n")}\n`;
}

/** `decision id  reason`, with its role (`decided`, `overruled`, `agreed`) and layer first when the policy gives them. */
function matchLine(rule: PolicyMatch, paint: Painter): string {
  const reason = rule.reason ? paint("dim", `  ${terminalLine(rule.reason)}`) : "";
  const layer = rule.layer !== undefined ? paint("dim", ` (${terminalLine([rule.layer, rule.owner].filter((each) => each !== undefined).join(", "))})`) : "";
  const role = rule.role === undefined ? "" : `${rule.role === "decided" ? paint("bold", "decided  ") : paint("dim", rule.role.padEnd(9))} `;
  return `${role}${rule.decision.padEnd(5)} ${terminalLine(rule.id)}${layer}${reason}`;
}

/** The note pieces (`a; b`) that two or more parts share: said once for the decision, not once a part. */
function sharedNotes(parts: readonly PolicyPart[]): string[] {
  const counts = new Map<string, number>();
  for (const part of parts) for (const piece of new Set(pieces(part.note))) counts.set(piece, (counts.get(piece) ?? 0) + 1);
  return [...counts].filter(([, count]) => count > 1).map(([piece]) => piece);
}

function ownNote(part: PolicyPart, shared: readonly string[]): string {
  return pieces(part.note).filter((piece) => !shared.includes(piece)).join("; ");
}

function pieces(note: string | undefined): string[] {
  return note === undefined || note === "" ? [] : note.split("; ");
}

/**
 * The `--approve` values that would pass this ask without a terminal: for each asking part the
 * value for exactly it (its command, path, URL, or the tool for the call as a whole; the default's
 * asks included), and the ids of the rules that asked. None for a part a deny may decide or that a
 * locked layer holds.
 */
function approveHint(explanation: PolicyExplanation, { rules, cwd }: ExplainSetting): string | undefined {
  const asking = explanation.parts.filter((part) => part.decision === "ask");
  const locked = new Set(rules.filter((rule) => rule.locked).map((rule) => rule.id));
  const blocked = asking.find((part) => part.matched.some((rule) => rule.decision === "deny" || (rule.decision === "ask" && locked.has(rule.id))));
  if (asking.length === 0 || blocked !== undefined) return undefined;
  const flags = asking.map((part) => flagFor(explanation.tool, part, cwd));
  if (flags.some((flag) => flag === undefined)) return undefined;
  const ids = [...new Set(asking.flatMap((part) => part.matched.filter((rule) => rule.decision === "ask").map((rule) => rule.id)))];
  const byRule = ids.length > 0 && asking.every((part) => part.matched.some((rule) => rule.decision === "ask")) ? ` (or ${ids.map((id) => `--approve ${quoteShell(id)}`).join(" ")})` : "";
  return `approve in advance: ${flags.map((flag) => `--approve ${quoteShell(flag as string)}`).join(" ")}${byRule}`;
}
