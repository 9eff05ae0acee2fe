import { relative, sep } from "node:path";
import { type AskingPart, isInside, partSubject } from "@toolhost/core";
import { urlOf } from "./values.js";

/** An `allow` rule of the policy's config (`@toolhost/hooks-policy`'s `rules`), as written to a file. */
export type AllowRule = Record<string, string>;

/** Where a rule is written: whose config, and the folders its paths are written from. */
export interface RulePlace {
  owner: "project" | "user";
  workspace: string;
  home: string;
}

/**
 * The `allow` rule that relaxes exactly this part in the config's own layer: the command, the path
 * or the URL written out literally (every glob, extglob and brace character escaped), or the whole
 * tool for a part that is the call itself (a tool that declares nothing). A path is written from
 * the workspace (`${workspace}/…`) or the home folder (`~/…`), so a config people commit holds no
 * path of one machine; in a project's config, a path outside both has no rule. Undefined when no
 * rule can say it (a multi-line command, named arguments, that path).
 */
export function allowRuleFor(tool: string, part: AskingPart, place: RulePlace): AllowRule | undefined {
  const subject = part.subject.trim();
  switch (partSubject(part.kind)) {
    case "command":
      return /[\n]/.test(subject) ? undefined : { tool, command: literal(subject), decision: "allow" };
    case "path": {
      const path = pathPattern(subject, place);
      return path === undefined ? undefined : { tool, path, decision: "allow" };
    }
    case "url":
      return { tool, url: literal(urlOf(subject)), decision: "allow" };
    default:
      return part.kind === "call" ? { tool, decision: "allow" } : undefined;
  }
}

/** A path as a rule of that place writes it: from the workspace or the home folder, escaped; undefined when it cannot be. */
function pathPattern(path: string, place: RulePlace): string | undefined {
  const from = (base: string, anchor: string) => {
    const rest = relative(base, path);
    return rest === "" ? anchor : `${anchor}/${rest.split(sep).map(literalPath).join("/")}`;
  };
  if (isInside(path, place.workspace)) return from(place.workspace, "${workspace}");
  if (isInside(path, place.home)) return from(place.home, "~");
  return place.owner === "project" ? undefined : literalPath(path);
}

/** The rules for every part, or undefined when some part has none. */
export function allowRulesFor(tool: string, parts: readonly AskingPart[], place: RulePlace): AllowRule[] | undefined {
  const rules = parts.map((part) => allowRuleFor(tool, part, place));
  return rules.every((rule) => rule !== undefined) ? dedupe(rules as AllowRule[]) : undefined;
}

/** A rule as one line of JSON with spaces after `,` and `:`, as a person would write it. */
export function ruleText(rule: AllowRule): string {
  return JSON.stringify(rule).replace(/,"/g, ', "').replace(/":/g, '": ');
}

/** A command or URL with its pattern characters escaped (`*`, `?`, `[`, `\\`), so a pattern made of it matches it alone. */
export function literal(text: string): string {
  return text.replace(/[*?[\\]/g, "\\$&");
}

/**
 * A path with every character a path glob gives a meaning escaped: wildcards and classes
 * (`* ? [ ]`), braces (`{a,b}`), extglobs (`!(x)`, `@(x)`, `+(x)`, `*(x)`, `?(x)`) and the escape
 * itself, so `.github/workflows/!(z)` matches that one file and no sibling.
 */
export function literalPath(text: string): string {
  return text.replace(/[*?[\]{}()!+@\\]/g, "\\$&");
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
