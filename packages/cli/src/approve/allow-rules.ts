import { type AskingPart, partSubject } from "@toolhost/core";
import { urlOf } from "./values.js";

/** An `allow` rule of the policy's config (`@toolhost/hooks-policy`'s `rules`), as written to a file. */
export type AllowRule = Record<string, string>;

/**
 * The `allow` rule that relaxes exactly this part in the config's own layer: the command, the path
 * or the URL written out literally (glob characters escaped), or the whole tool for a part that is
 * the call itself (a tool that declares nothing). Undefined when no rule can say it (a multi-line
 * command, named arguments).
 */
export function allowRuleFor(tool: string, part: AskingPart): AllowRule | undefined {
  const subject = part.subject.trim();
  switch (partSubject(part.kind)) {
    case "command":
      return /[\n]/.test(subject) ? undefined : { tool, command: literal(subject), decision: "allow" };
    case "path":
      return { tool, path: literal(subject), decision: "allow" };
    case "url":
      return { tool, url: literal(urlOf(subject)), decision: "allow" };
    default:
      return part.kind === "call" ? { tool, decision: "allow" } : undefined;
  }
}

/** The rules for every part, or undefined when some part has none. */
export function allowRulesFor(tool: string, parts: readonly AskingPart[]): AllowRule[] | undefined {
  const rules = parts.map((part) => allowRuleFor(tool, part));
  return rules.every((rule) => rule !== undefined) ? dedupe(rules as AllowRule[]) : undefined;
}

/** A rule as one line of JSON with spaces after `,` and `:`, as a person would write it. */
export function ruleText(rule: AllowRule): string {
  return JSON.stringify(rule).replace(/,"/g, ', "').replace(/":/g, '": ');
}

/** The text with glob characters escaped, so a pattern made of it matches it alone. */
export function literal(text: string): string {
  return text.replace(/[*?[\\]/g, "\\$&");
}

function dedupe(rules: AllowRule[]): AllowRule[] {
  const seen = new Set<string>();
  return rules.filter((rule) => {
    const key = JSON.stringify(rule);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
