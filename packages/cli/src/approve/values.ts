import { homedir } from "node:os";
import { isAbsolute, resolve } from "node:path";
import { type AskingPart, closestName, partSubject, policyDetailsOf } from "@toolhost/core";
import { UsageError } from "../usage-error.js";

/** Where an approval given in advance came from: `--approve`, or a line of `TOOLHOST_APPROVE`. */
export interface GivenApproval {
  value: string;
  from: string;
}

/**
 * An approval given in advance, checked against the policy in force:
 * - `rule`: a rule id that `toolhost policy rules` lists (`recommended:rules[18]`, `team-deploy`),
 *   not of a locked layer; it passes the parts that this rule asks about.
 * - `pattern`: `<tool>:<what>`, the tool named exactly; `<what>` is matched against each asking part
 *   of that tool's calls as the policy shows it: the simple command (word by word: `*` within a
 *   word, a last `*` any further words), the path (relative to the working directory; `*` within a
 *   folder, `**` across), or the URL (`*` within a segment, `**` across). `\` makes the next
 *   character literal. Its first word (the program), folder or URL part is written out, so no
 *   pattern passes everything.
 * - `tool`: a tool's name alone; it passes the asks about a call of that tool as a whole (a `call`
 *   part: the tool declares nothing it touches), whoever asked, the default included; never a
 *   command, path or URL part.
 */
export type Approval =
  | { kind: "rule"; text: string; from: string; id: string }
  | { kind: "tool"; text: string; from: string; tool: string }
  | { kind: "pattern"; text: string; from: string; tool: string; command: RegExp; path: RegExp; url: RegExp };

export type { AskingPart };

/** What the values are checked against. */
export interface ApprovalContext {
  rules: ReadonlyArray<{ id: string; layer: string; locked: boolean; source?: string; decision: string }> | undefined;
  tools: readonly string[];
  cwd: string;
}

export const APPROVE_ENV = "TOOLHOST_APPROVE";

/** The values of `TOOLHOST_APPROVE`: one a line (blank lines ignored). */
export function fromEnvironment(text: string | undefined): GivenApproval[] {
  if (text === undefined) return [];
  return text
    .split(/\r?\n/)
    .map((line, index) => ({ value: line.trim(), from: `${APPROVE_ENV} line ${index + 1}` }))
    .filter((given) => given.value !== "");
}

/** Checks each value; a value that could pass everything, names a locked rule, or names nothing is a usage error. */
export function parseApprovals(given: readonly GivenApproval[], context: ApprovalContext): Approval[] {
  return given.map((each) => parseOne(each, context));
}

function parseOne({ value, from }: GivenApproval, context: ApprovalContext): Approval {
  const text = value.trim();
  const where = `${from} ${quoteShell(text)}`;
  if (text === "") throw new UsageError(`${from} is empty: give a rule id (see "toolhost policy rules") or <tool>:<command or path>.`);
  const rule = context.rules?.find((each) => each.id === text);
  if (rule) {
    if (rule.locked) {
      throw new UsageError(
        `${where} names a rule of the locked layer "${rule.layer}"${rule.source ? ` (${rule.source})` : ""}: a locked layer's asks cannot be approved from the command line. Approve the call in a terminal, or ask whoever owns ${rule.source ?? "that layer"} to change it.`,
      );
    }
    if (rule.decision !== "ask") {
      throw new UsageError(`${where} names a rule that ${rule.decision === "deny" ? "denies" : "allows"}, not one that asks: --approve passes asks only, never a deny. See "toolhost policy rules".`);
    }
    return { kind: "rule", text, from, id: rule.id };
  }
  if (/^[*?\s]*$/.test(text) || /^[*?]+:/.test(text)) {
    throw new UsageError(`${where} would approve every ask, which --approve never does. Name a rule id (see "toolhost policy rules") or a tool and what it runs, e.g. 'bash:rm -rf out'.`);
  }
  if (context.tools.includes(text)) return { kind: "tool", text, from, tool: text };
  const colon = text.indexOf(":");
  const tool = colon > 0 ? text.slice(0, colon) : undefined;
  if (tool !== undefined && context.tools.includes(tool)) return { ...parsePattern(tool, text.slice(colon + 1).trim(), text, where, context.cwd), from };
  const names = [...(context.rules ?? []).map((each) => each.id), ...context.tools];
  const close = closestName(text, names) ?? (tool !== undefined ? closestName(tool, context.tools) : undefined);
  const what = tool !== undefined && context.rules?.length === 0 ? `the tool "${tool}" is not in the config` : `it names no rule of the policy in force${tool !== undefined ? ` and "${tool}" is no tool of the config` : ""}`;
  throw new UsageError(
    `${where} approves nothing: ${what}. Give a rule id (see "toolhost policy rules") or <tool>:<command or path> (see "toolhost list").${close ? ` Did you mean "${close}"?` : ""}`,
  );
}

function parsePattern(tool: string, what: string, text: string, where: string, cwd: string): Omit<Extract<Approval, { kind: "pattern" }>, "from"> {
  const first = what.startsWith("/") ? (what.split("/")[1] ?? "") : (what.split(/[\s/]/)[0] ?? "");
  if (what === "" || /(^|[^\\])[*?[]/.test(first) || first === "") {
    throw new UsageError(
      `${where} leaves the program, first folder or URL as a wildcard, so it would approve almost every ask of ${tool}. Write it out: e.g. '${tool}:rm -rf out', '${tool}:out/**'.`,
    );
  }
  const url = /^[a-z][a-z0-9+.-]*:\/\/([^/]*)/i.exec(what);
  if (url && /[*?[]/.test((url[1] ?? "").replace(/^\*\.(?=[^*?[]+\.[^*?[]+$)/, ""))) {
    throw new UsageError(`${where} leaves the host as a wildcard, so it would approve calls to any server. Write the host out (a leading "*." for its subdomains is fine): e.g. '${tool}:https://api.example.com/v1/**'.`);
  }
  const home = what === "~" || what.startsWith("~/") ? homedir() + what.slice(1) : what;
  const path = isAbsolute(home) ? home : resolve(cwd, home);
  return { kind: "pattern", text, tool, command: commandGlob(what), path: glob(path, "[^/]"), url: glob(what, "[^/]") };
}

/** A glob over words: `*` and `?` stay within a word; a last word `*` stands for any further words. */
function commandGlob(pattern: string): RegExp {
  const words = pattern.split(/\s+/);
  const open = words.length > 1 && words.at(-1) === "*";
  const fixed = open ? words.slice(0, -1) : words;
  return new RegExp(`^${fixed.map((word) => globSource(word, "\\S")).join("\\s+")}${open ? "(?:\\s+.*)?" : ""}$`, "s");
}

function glob(pattern: string, one: string): RegExp {
  return new RegExp(`^${globSource(pattern, one)}$`, "s");
}

/** `**` any characters, `*` any of `one`, `?` one of `one`, `\` the next character literally. */
function globSource(pattern: string, one: string): string {
  let source = "";
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i] as string;
    if (char === "\\" && i + 1 < pattern.length) source += escapeRegExp(pattern[++i] as string);
    else if (char === "*" && pattern[i + 1] === "*") {
      while (pattern[i + 1] === "*") i++;
      source += ".*";
    } else if (char === "*") source += `${one}*`;
    else if (char === "?") source += one;
    else source += escapeRegExp(char);
  }
  return source;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}

/** The asking parts in an ask's details (core's `PolicyDetails`), or undefined when the ask is not a policy's. */
export function askingParts(details: Record<string, unknown> | undefined): AskingPart[] | undefined {
  const policy = policyDetailsOf(details);
  // Parts left out cannot be checked: the ask is treated as not the policy's to pass in advance.
  if (!policy?.asks || policy.asks.length === 0 || policy.asksOmitted !== undefined) return undefined;
  return policy.asks;
}

/**
 * The approvals that pass an ask: every asking part must be passed, by a pattern of the call's tool
 * that matches it or by rule ids covering every rule that asked about it. A part a locked layer
 * holds is never passed. Undefined when they do not.
 */
export function approvalsFor(approvals: readonly Approval[], tool: string, details: Record<string, unknown> | undefined): Approval[] | undefined {
  const parts = askingParts(details);
  if (!parts || parts.some((part) => part.locked || mayBeDenied(part))) return undefined;
  const used = new Set<Approval>();
  for (const part of parts) {
    const pattern = approvals.find((each) => (each.kind === "pattern" && each.tool === tool && matches(each, part)) || (each.kind === "tool" && each.tool === tool && part.kind === "call"));
    if (pattern) {
      used.add(pattern);
      continue;
    }
    const byRule = part.rules.map((rule) => approvals.find((each) => each.kind === "rule" && each.id === rule.id));
    if (part.rules.length === 0 || byRule.some((each) => each === undefined)) return undefined;
    for (const each of byRule) used.add(each as Approval);
  }
  return [...used];
}

/** A part asked about because a deny rule may apply once its run-time words are known: never passed in advance. */
export function mayBeDenied(part: AskingPart): boolean {
  return part.rules.some((rule) => rule.decision === "deny");
}

function matches(approval: Extract<Approval, { kind: "pattern" }>, part: AskingPart): boolean {
  const subject = part.subject.trim();
  switch (partSubject(part.kind)) {
    case "command":
      return approval.command.test(subject.replace(/\s+/g, " "));
    case "path":
      return approval.path.test(subject);
    case "url":
      return approval.url.test(urlOf(subject));
    default:
      return false;
  }
}

/** The URL of a network part, without the method the policy shows before it (`POST https://…`). */
export function urlOf(subject: string): string {
  return subject.replace(/^[A-Z]+ (?=\S+:\/\/)/, "");
}

/** A word for a POSIX shell, in single quotes. */
export function quoteShell(text: string): string {
  return `'${text.replace(/'/g, "'\\''")}'`;
}
