import type { PolicyMatch, PolicyPart } from "@toolhost/core";
import type { Match } from "../rules/_command-pattern.js";
import { finish, preview } from "../explain/_explanation.js";
import { type ArgMatcher, matchOf } from "../rules/_rules.js";
import type { JudgeScope } from "./_scope.js";
import type { ToolRules } from "./_tool-rules.js";

/**
 * Named fields of a call's arguments (`args` rules). `only`: the call declares nothing else, so
 * the part is made even when no rule matches (its rules without a matcher, or the default, decide).
 */
export function judgeArgs(scope: JudgeScope, tool: string, fields: Record<string, unknown>, rules: ToolRules, only: boolean): PolicyPart | undefined {
  const matched: PolicyMatch[] = [];
  const notes: string[] = [];
  const named = new Set<string>();
  for (const rule of rules.args) {
    let match: Match = "yes";
    for (const [field, matcher] of rule.args as Array<[string, ArgMatcher]>) {
      named.add(field);
      const one = Object.hasOwn(fields, field) ? matcher(fields[field]) : "no";
      if (one === "no") {
        match = "no";
        break;
      }
      if (one === "maybe") match = "maybe";
    }
    if (match === "yes") matched.push(matchOf(rule, rule.decision));
    else if (match === "maybe" && rule.decision !== "allow") {
      matched.push(matchOf(rule, "ask"));
      notes.push(`${rule.id} (${rule.decision}) matches but for letter case`);
    }
  }
  if (!only && matched.length === 0) return undefined;
  if (only) for (const rule of rules.whole) matched.push(matchOf(rule, rule.decision));
  const subject = [...named].filter((field) => Object.hasOwn(fields, field)).map((field) => `${field}=${preview(fields[field])}`).join(" ") || tool;
  return finish({ kind: "args", subject, decision: "allow", matched }, scope.layering, notes, notes.length > 0);
}
