import { homedir } from "node:os";
import { isAbsolute, relative } from "node:path";
import { type ApprovalRequest, partSubject, policyDetailsOf } from "@toolhost/core";
import { allowRuleFor, literal, ruleText } from "./allow-rules.js";
import { type AskingPart, askingParts, mayBeDenied, quoteShell, urlOf } from "./values.js";

/** Where the config's own rules are, for the line the hint suggests adding. */
export interface HintPlace {
  configPath: string | undefined;
  cwd: string;
  /** The workspace: a rule's paths are written from it (`${workspace}/…`). */
  workspace: string;
  /** Whether some --approve / TOOLHOST_APPROVE value was given (and did not cover this call). */
  given: boolean;
}

/**
 * Why no one could approve an ask without a terminal, and what exactly would allow it: the
 * `--approve` values that pass each asking part, or the `allow` rule to add to the config; for a
 * part a locked layer holds, that it cannot be approved from the command line, and whose it is.
 * Ends without a period (core's refusal adds one).
 */
export function refusalHint(request: ApprovalRequest, place: HintPlace): string {
  const tool = request.toolCall.name;
  const parts = askingParts(request.details);
  const lead = `no one could approve it: there is no terminal to ask in${place.given ? ", and the --approve values given do not cover it" : ""}`;
  const omitted = policyDetailsOf(request.details)?.asksOmitted;
  if (typeof omitted === "number") {
    return `${lead}. The call has more parts that ask than the policy lists (${omitted} left out), so --approve cannot check them all: split the call, or run it in a terminal to answer it`;
  }
  if (!parts) {
    return `${lead}. --approve passes only asks of the policy (@toolhost/hooks-policy), and this one is ${request.askedBy}'s: run it in a terminal to answer it`;
  }
  const locked = parts.filter((part) => part.locked);
  if (locked.length > 0) {
    const owners = [...new Set(locked.map((part) => owner(part)))].join("; ");
    return `${lead}. It is asked by a locked layer (${owners}), and a locked layer's ask cannot be approved from the command line (--approve, TOOLHOST_APPROVE) nor loosened by a later rule: run it in a terminal to answer it, or ask whoever owns that file to change it`;
  }
  const risky = parts.filter(mayBeDenied);
  if (risky.length > 0) {
    const rules = risky.flatMap((part) => part.rules.filter((rule) => rule.decision === "deny").map((rule) => `${rule.layer} › ${rule.matcher} (${rule.id})`));
    const named = [...new Set(rules)];
    const shown = named.length > 3 ? `${named.slice(0, 3).join(", ")} and ${named.length - 3} more` : named.join(", ");
    return `${lead}. ${risky.map((part) => part.subject).join(", ")} may turn out to be denied (by ${shown}) when its run-time words are known, and --approve never passes a possible deny: write the words out, or run it in a terminal to answer it`;
  }
  const flags = parts.map((part) => flagFor(tool, part, place.cwd));
  const byRule = [...new Set(parts.flatMap((part) => part.rules.map((rule) => rule.id)))];
  const lines = parts.map((part) => configLine(tool, part, place.workspace)).filter((line): line is string => line !== undefined);
  const options: string[] = [];
  if (flags.every((flag) => flag !== undefined)) options.push(`run again with ${flags.map((flag) => `--approve ${quoteShell(flag as string)}`).join(" ")} (${parts.length === 1 ? covers(parts[0] as AskingPart, tool) : "these only"})`);
  if (byRule.length > 0) {
    const ruleNames = parts.flatMap((part) => part.rules.map((rule) => `${rule.layer} › ${rule.matcher}`));
    options.push(`with ${byRule.map((id) => `--approve ${quoteShell(id)}`).join(" ")} (every call ${[...new Set(ruleNames)].join(", ")} asks about)`);
  }
  if (lines.length === parts.length) {
    const where = place.configPath ?? "a toolhost.config.json (toolhost init writes one)";
    options.push(`add ${lines.join(" and ")} to the "rules" of @toolhost/hooks-policy in ${where}`);
  }
  if (options.length === 0) return `${lead}. Run it in a terminal to answer it`;
  return `${lead}. To allow it, ${options.join(", or ")}`;
}

/** What one part's `--approve` value covers, in words. */
function covers(part: AskingPart, tool: string): string {
  const subject = partSubject(part.kind);
  if (subject === undefined) return `every call of ${tool} in that run`;
  return `this ${subject === "command" ? "command" : subject === "url" ? "destination" : "path"} only`;
}

/** Who holds a locked part: its layer and file (`org, /work/policies/org.yaml`), with its owner (other than the project) when `withOwner`. */
export function owner(part: AskingPart, withOwner = false): string {
  const by = part.lockedBy ?? part.rules.find((rule) => rule.locked);
  if (!by) return "a locked layer";
  // The project's own is what a reader assumes: only another owner is named.
  return [by.layer, withOwner && by.owner !== "project" ? by.owner : undefined, by.source].filter((each) => each !== undefined).join(", ");
}

/** The `--approve` value that passes exactly this part, when a pattern (or, for the call as a whole, the tool's name) can say it. */
export function flagFor(tool: string, part: Pick<AskingPart, "kind" | "subject">, cwd: string): string | undefined {
  const subject = part.subject.trim();
  switch (partSubject(part.kind)) {
    case "command":
      return subject === "" || /[\n]/.test(subject) ? undefined : `${tool}:${literal(subject)}`;
    case "path":
      return `${tool}:${literal(shortPath(subject, cwd))}`;
    case "url":
      return `${tool}:${literal(urlOf(subject))}`;
    default:
      return part.kind === "call" ? tool : undefined;
  }
}

/** The rule for the project's config (paths from the workspace or `~`: a config people commit names no machine's folder). */
function configLine(tool: string, part: AskingPart, workspace: string): string | undefined {
  const rule = allowRuleFor(tool, part, { owner: "project", workspace, home: homedir() });
  return rule === undefined ? undefined : ruleText(rule);
}

/** Relative to the working directory when under it. */
function shortPath(path: string, cwd: string): string {
  const rel = relative(cwd, path);
  return rel !== "" && !rel.startsWith("..") && !isAbsolute(rel) ? rel : path;
}
