import { isAbsolute, resolve } from "node:path";
import { ErrorCode, ToolhostError, checkValue, messageOf, type PolicyExplanation } from "@toolhost/core";
import picomatch from "picomatch";
import { CommandPattern, type Match } from "./_command-pattern.js";
import { toolMatcher } from "./_glob.js";
import { anchorsOf, compilePathPattern, folderOf, normalizePath, type PathAnchors } from "./_paths.js";
import { type Decision, type PolicyOptions, PolicyOptionsSchema, type PolicyRule } from "./_schema.js";
import { type ParsedCommand, parseCommand, type ShellCommandPart, type ShellFilePart } from "./_shell.js";
import { showWord, type ShellWord } from "./_words.js";
import { PRESETS } from "./presets.js";

/** What was judged in a call: a simple command, a file written or read, a path argument, named arguments, the call as a whole. */
export type PartKind = "command" | "write" | "read" | "path" | "args" | "call";

/** A rule that matched a part, and what it said about it. */
export interface MatchedRule {
  id: string;
  decision: Decision;
  reason?: string;
}

/** One judged piece of a call. */
export interface PolicyPart {
  kind: PartKind;
  /** The simple command, the normalized path, `url=https://…`, or the tool's name. */
  subject: string;
  decision: Decision;
  matched: MatchedRule[];
  /** Why the decision is what it is when no rule says it (`default (no rule matched)`, `command name known only at run time`). */
  note?: string;
}

/** The decision on a call and the `policy` service's contract are core's (`@toolhost/core`). */
export type { PolicyExplanation, PolicyService } from "@toolhost/core";
/** What `explain` takes: a call that is judged but not run. */
export type { PolicyRequest as ExplainRequest } from "@toolhost/core";

/** Where the policy stands: relative paths resolve against `cwd`, `${workspace}` is `workspace`. */
export interface PolicyEnvironment {
  cwd: string;
  workspace: string;
}

/** A compiled policy: pure, synchronous decisions. */
export interface Policy {
  /** Decides a call. Never throws: an error is a deny with the error in the reason. */
  decide(tool: string, args: unknown, cwd?: string): PolicyExplanation;
  readonly defaultDecision: Decision;
  /** Every rule in force (presets first), with the id decisions name it by. */
  readonly rules: ReadonlyArray<PolicyRule & { id: string }>;
}

/** Error codes of the policy. */
export const PolicyErrorCode = Object.freeze({
  INVALID_OPTIONS: ErrorCode.INVALID_PLUGIN_OPTIONS,
  POLICY_ERROR: "TOOLHOST_POLICY_ERROR",
  AUDIT_FAILED: "TOOLHOST_POLICY_AUDIT_FAILED",
  REDACTION_FAILED: "TOOLHOST_POLICY_REDACTION_FAILED",
} as const);

const SEVERITY: Record<Decision, number> = { allow: 0, ask: 1, deny: 2 };
const FS_TOOLS = new Set(["read", "write", "edit", "ls", "find", "grep"]);
const PATH_FIELDS = ["path", "file_path", "filePath"] as const;
const DEFAULTS_TO_CWD = new Set(["ls", "find", "grep"]);

function worst(a: Decision, b: Decision): Decision {
  return SEVERITY[a] >= SEVERITY[b] ? a : b;
}

interface CompiledRule {
  id: string;
  /** Its place among all rules, so explanations list matches in the order rules are written. */
  order: number;
  rule: PolicyRule;
  decision: Decision;
  reason: string | undefined;
  tool: (name: string) => boolean;
  command: CommandPattern | undefined;
  path: ((path: string) => boolean) | undefined;
  args: Array<[string, ArgMatcher]> | undefined;
}

type ArgMatcher = (value: unknown) => Match;

/** The rules that can judge the parts of one tool's calls, sorted out once per tool name. */
interface ToolRules {
  /** Rules without a matcher: they judge every part of the call. */
  whole: CompiledRule[];
  /** Command rules by program name; `any` for patterns whose program is a glob. */
  byProgram: Map<string, CompiledRule[]>;
  anyProgram: CompiledRule[];
  /** Per program named by some rule: its rules and the glob ones, in rule order. */
  forProgram: Map<string, CompiledRule[]>;
  allCommand: CompiledRule[];
  /** Path rules of the tool itself. */
  path: CompiledRule[];
  args: CompiledRule[];
  /** Path rules of `write` / `read` and of the tool (bash's redirects and writers). */
  write: CompiledRule[];
  read: CompiledRule[];
  /** Rules without a matcher of `write` / `read` and of the tool. */
  writeWhole: CompiledRule[];
  readWhole: CompiledRule[];
  /** Deny path rules of `read`: arguments of a command that name such a file deny it. */
  readDeny: CompiledRule[];
}

/**
 * Compiles options (presets and rules) into a policy. Throws a `ToolhostError` with the path of
 * the problem when a rule is invalid.
 */
export function createPolicy(options: PolicyOptions, environment: PolicyEnvironment): Policy {
  checkOptions(options);
  const anchors = anchorsOf(environment.workspace);
  const compiled: CompiledRule[] = [];
  let defaultDecision: Decision = "ask";
  for (const name of options.extends ?? []) {
    const preset = PRESETS[name];
    defaultDecision = preset.default;
    preset.rules.forEach((rule, index) => compiled.push(compileRule(rule, rule.id ?? `${name}:rules[${index}]`, anchors, `${name} preset rules[${index}]`)));
  }
  (options.rules ?? []).forEach((rule, index) => compiled.push(compileRule(rule, rule.id ?? `rules[${index}]`, anchors, `rules[${index}]`)));
  compiled.forEach((rule, order) => {
    rule.order = order;
  });
  if (options.default) defaultDecision = options.default;
  return new CompiledPolicy(compiled, defaultDecision, environment);
}

function checkOptions(options: PolicyOptions): void {
  const problems = checkValue(PolicyOptionsSchema, options);
  if (problems) {
    const lines = problems.slice(0, 10).map((problem) => `  ${problem.path}: ${problem.message}`);
    throw new ToolhostError(
      PolicyErrorCode.INVALID_OPTIONS,
      `Invalid options for @toolhost/hooks-policy:\n${lines.join("\n")}\nFix them in the plugin's options in the config (see the package README for the rule format).`,
    );
  }
}

function compileRule(rule: PolicyRule, id: string, anchors: PathAnchors, where: string): CompiledRule {
  const matchers = (["command", "path", "args"] as const).filter((key) => rule[key] !== undefined);
  if (matchers.length > 1) {
    throw new ToolhostError(
      PolicyErrorCode.INVALID_OPTIONS,
      `Invalid rule ${where} (${id}) of @toolhost/hooks-policy: it has ${matchers.join(" and ")}; a rule matches one of command, path or args. Split it into ${matchers.length} rules.`,
    );
  }
  if (rule.command !== undefined && rule.command.trim() === "") {
    throw new ToolhostError(PolicyErrorCode.INVALID_OPTIONS, `Invalid rule ${where} (${id}) of @toolhost/hooks-policy: "command" is empty; write "*" for every command.`);
  }
  let path: CompiledRule["path"];
  try {
    path = rule.path === undefined ? undefined : compilePathPattern(rule.path, anchors);
  } catch (error) {
    throw new ToolhostError(
      PolicyErrorCode.INVALID_OPTIONS,
      `Invalid rule ${where} (${id}) of @toolhost/hooks-policy: the path pattern ${JSON.stringify(rule.path)} is not a valid glob (${messageOf(error)}).`,
    );
  }
  return {
    id,
    order: 0,
    rule,
    decision: rule.decision,
    reason: rule.reason,
    tool: toolMatcher(rule.tool),
    command: rule.command === undefined ? undefined : new CommandPattern(rule.command),
    path,
    args: rule.args === undefined ? undefined : Object.entries(rule.args).map(([field, expected]) => [field, argMatcher(expected)]),
  };
}

function argMatcher(expected: string | number | boolean): ArgMatcher {
  if (typeof expected !== "string") return (value) => (value === expected ? "yes" : "no");
  const exact = picomatch(expected, { dot: true });
  const loose = picomatch(expected, { dot: true, nocase: true });
  return (value) => (typeof value !== "string" ? "no" : exact(value) ? "yes" : loose(value) ? "maybe" : "no");
}

class CompiledPolicy implements Policy {
  readonly #rules: CompiledRule[];
  readonly #byTool = new Map<string, ToolRules>();
  readonly rules: ReadonlyArray<PolicyRule & { id: string }>;

  constructor(
    rules: CompiledRule[],
    readonly defaultDecision: Decision,
    readonly environment: PolicyEnvironment,
  ) {
    this.#rules = rules;
    this.rules = Object.freeze(rules.map((rule) => Object.freeze({ ...rule.rule, id: rule.id })));
  }

  decide(tool: string, args: unknown, cwd?: string): PolicyExplanation {
    try {
      return this.#decide(String(tool), args, cwd);
    } catch (error) {
      const reason = `policy error: ${messageOf(error)}`;
      return { decision: "deny", reason, tool: String(tool), rules: [], parts: [{ kind: "call", subject: String(tool), decision: "deny", matched: [], note: reason }] };
    }
  }

  #rulesFor(tool: string): ToolRules {
    let found = this.#byTool.get(tool);
    if (found) return found;
    const of = (name: string) => this.#rules.filter((rule) => rule.tool(name));
    const mine = of(tool);
    const byProgram = new Map<string, CompiledRule[]>();
    const anyProgram: CompiledRule[] = [];
    const allCommand = mine.filter((rule) => rule.command);
    for (const rule of allCommand) {
      const program = (rule.command as CommandPattern).program;
      if (program === undefined) anyProgram.push(rule);
      else byProgram.set(program, [...(byProgram.get(program) ?? []), rule]);
    }
    const isWhole = (rule: CompiledRule) => !rule.command && !rule.path && !rule.args;
    const whole = mine.filter(isWhole);
    const fileRules = (name: string) => unique([...of(name).filter((rule) => rule.path), ...mine.filter((rule) => rule.path)]);
    const write = fileRules("write");
    const read = fileRules("read");
    const forProgram = new Map<string, CompiledRule[]>();
    for (const [program, named] of byProgram) forProgram.set(program, [...named, ...anyProgram].sort((a, b) => a.order - b.order));
    found = {
      forProgram,
      whole,
      writeWhole: unique([...of("write").filter(isWhole), ...whole]),
      readWhole: unique([...of("read").filter(isWhole), ...whole]),
      byProgram,
      anyProgram,
      allCommand,
      path: mine.filter((rule) => rule.path),
      args: mine.filter((rule) => rule.args),
      write,
      read,
      readDeny: read.filter((rule) => rule.path && rule.decision === "deny"),
    };
    this.#byTool.set(tool, found);
    return found;
  }

  #decide(tool: string, args: unknown, requestCwd: string | undefined): PolicyExplanation {
    const rules = this.#rulesFor(tool);
    const fields = typeof args === "object" && args !== null && !Array.isArray(args) ? (args as Record<string, unknown>) : {};
    let cwd = requestCwd ? resolve(this.environment.cwd, requestCwd) : this.environment.cwd;
    if (typeof fields.cwd === "string" && fields.cwd !== "") {
      const where = folderOf(fields.cwd, cwd);
      if (where === undefined) throw new Error(`the call's cwd ${JSON.stringify(fields.cwd)} is not a folder the policy can know`);
      cwd = where;
    }
    const parts: PolicyPart[] = [];

    if (tool === "bash" && typeof fields.command === "string") {
      const parsed = parseCommand(fields.command);
      const cwds = this.#cwds(parsed, cwd);
      for (const part of parsed.parts) {
        if (part.kind === "command") parts.push(this.#judgeCommand(part, rules, cwds));
        else if (part.kind === "unknown") parts.push(this.#judgeUnknown(part.subject, part.reason, rules));
        else if (part.kind === "write") parts.push(this.#judgeFile(part, rules.write, rules.writeWhole, cwds));
        else parts.push(this.#judgeFile(part, rules.read, rules.readWhole, cwds));
      }
    }

    if (tool !== "bash" && (FS_TOOLS.has(tool) || rules.path.length > 0)) {
      const paths: unknown[] = [];
      for (const field of PATH_FIELDS) if (fields[field] !== undefined) paths.push(fields[field]);
      if (Array.isArray(fields.paths)) paths.push(...fields.paths);
      if (paths.length === 0 && DEFAULTS_TO_CWD.has(tool)) paths.push(cwd);
      for (const path of paths) parts.push(this.#judgePath(path, rules.path, rules.whole, cwd));
    }

    if (rules.args.length > 0) {
      const part = this.#judgeArgs(tool, fields, rules, parts.length === 0);
      if (part) parts.push(part);
    }

    if (parts.length === 0) {
      const matched = rules.whole.map((rule) => matchOf(rule, rule.decision));
      parts.push(finish({ kind: "call", subject: tool, decision: "allow", matched }, this.defaultDecision));
    }
    return summarize(tool, parts);
  }

  /** The folders relative paths may be relative to: the call's, and each literal `cd` target. */
  #cwds(parsed: ParsedCommand, cwd: string): Array<string | undefined> {
    const cwds: Array<string | undefined> = [cwd];
    let current = cwd;
    for (const target of parsed.cds) {
      if (target.value === undefined) {
        cwds.push(undefined);
        continue;
      }
      const where = folderOf(target.value, current, target.tilde);
      if (where === undefined) {
        cwds.push(undefined);
        continue;
      }
      current = where;
      cwds.push(current);
    }
    return cwds;
  }

  #judgeCommand(part: ShellCommandPart, rules: ToolRules, cwds: Array<string | undefined>): PolicyPart {
    const words = part.words;
    const name = words[0] as ShellWord;
    const subject = words.map(showWord).join(" ") + (part.tail ? " …" : "");
    let candidates: CompiledRule[];
    if (name.value === undefined) {
      candidates = rules.allCommand;
    } else {
      const program = name.value.slice(name.value.lastIndexOf("/") + 1);
      candidates = rules.forProgram.get(program) ?? rules.anyProgram;
    }
    const matched: MatchedRule[] = rules.whole.map((rule) => matchOf(rule, rule.decision));
    const maybes: string[] = [];
    for (const rule of candidates) {
      const match = (rule.command as CommandPattern).match(words, part.tail);
      if (match === "yes") {
        matched.push(matchOf(rule, rule.decision));
      } else if (match === "maybe" && rule.decision !== "allow") {
        matched.push(matchOf(rule, "ask"));
        maybes.push(`${rule.id} (${rule.decision})`);
      }
    }
    if (rules.readDeny.length > 0) this.#argumentsNamingDenied(part, rules.readDeny, cwds, matched);
    const notes: string[] = [];
    if (part.uncertain) notes.push(part.uncertain);
    if (maybes.length > 0) notes.push(`words known only at run time may match ${maybes.join(", ")}`);
    return finish({ kind: "command", subject, decision: "allow", matched }, this.defaultDecision, notes, part.uncertain !== undefined);
  }

  /** A command that names a file the read rules deny (`cat .env`) is denied too. */
  #argumentsNamingDenied(part: ShellCommandPart, readDeny: CompiledRule[], cwds: Array<string | undefined>, matched: MatchedRule[]): void {
    for (const word of part.words.slice(1)) {
      const value = word.value;
      if (value === undefined || value === "" || value.startsWith("-") || value.length > 4096) continue;
      for (const cwd of cwds) {
        if (cwd === undefined) continue;
        const path = value.includes("\0") ? undefined : resolve(cwd, word.tilde ? expandTilde(value) : value);
        if (path === undefined) continue;
        for (const rule of readDeny) {
          if ((rule.path as (path: string) => boolean)(path) && !matched.some((entry) => entry.id === rule.id)) {
            matched.push({ id: rule.id, decision: "deny", reason: rule.reason ?? `${showWord(word)} names a file the read rules deny` });
          }
        }
      }
    }
  }

  #judgeUnknown(subject: string, reason: string, rules: ToolRules): PolicyPart {
    const matched: MatchedRule[] = rules.whole.map((rule) => matchOf(rule, rule.decision));
    for (const rule of rules.anyProgram) {
      if (rule.decision === "deny" && (rule.command as CommandPattern).source.trim() === "*") matched.push(matchOf(rule, "deny"));
    }
    return finish({ kind: "command", subject, decision: "allow", matched }, this.defaultDecision, [reason], true);
  }

  #judgeFile(part: ShellFilePart, fileRules: CompiledRule[], whole: CompiledRule[], cwds: Array<string | undefined>): PolicyPart {
    const word = part.path;
    const kind = part.kind;
    if (word.value === undefined) {
      return finish(
        { kind, subject: `${part.via} ${word.text}`, decision: "allow", matched: whole.map((rule) => matchOf(rule, rule.decision)) },
        this.defaultDecision,
        [`${kind === "write" ? "writes to" : "reads from"} a path known only at run time`],
        true,
      );
    }
    const value = word.value;
    const relative = !isAbsolute(value) && !(word.tilde && value.startsWith("~"));
    const targets = relative ? cwds.slice(0, part.cdCount + 1) : [cwds[0]];
    let result: PolicyPart | undefined;
    for (const cwd of targets) {
      const judged =
        cwd === undefined
          ? finish({ kind, subject: value, decision: "allow", matched: [] }, this.defaultDecision, ["relative to a folder known only at run time (after cd)"], true)
          : this.#judgeNormalized(kind, value, cwd, word.tilde, fileRules, whole);
      result = result === undefined ? judged : merge(result, judged);
    }
    return result as PolicyPart;
  }

  #judgePath(path: unknown, pathRules: CompiledRule[], whole: CompiledRule[], cwd: string): PolicyPart {
    if (typeof path !== "string") {
      return finish({ kind: "path", subject: String(path), decision: "allow", matched: [] }, this.defaultDecision, ["the path is not a string"], true);
    }
    return this.#judgeNormalized("path", path, cwd, true, pathRules, whole);
  }

  #judgeNormalized(kind: PartKind, value: string, cwd: string, tilde: boolean, pathRules: CompiledRule[], whole: CompiledRule[]): PolicyPart {
    const normalized = normalizePath(value, cwd, tilde);
    const matched: MatchedRule[] = whole.map((rule) => matchOf(rule, rule.decision));
    if (!normalized.ok) {
      if (normalized.deny) return { kind, subject: JSON.stringify(value), decision: "deny", matched, note: normalized.reason };
      return finish({ kind, subject: value, decision: "allow", matched }, this.defaultDecision, [normalized.reason], true);
    }
    const variants = normalized.real === normalized.lexical ? [normalized.lexical] : [normalized.lexical, normalized.real];
    let decision: Decision = "allow";
    let unmatched = false;
    for (const variant of variants) {
      const hits = pathRules.filter((rule) => (rule.path as (path: string) => boolean)(variant));
      for (const rule of hits) if (!matched.some((entry) => entry.id === rule.id)) matched.push(matchOf(rule, rule.decision));
      const own = [...hits.map((rule) => rule.decision), ...whole.map((rule) => rule.decision)];
      if (own.length === 0) unmatched = true;
      decision = worst(decision, own.length === 0 ? this.defaultDecision : own.reduce(worst));
    }
    const notes: string[] = [];
    if (variants.length > 1) notes.push(`a symlink to ${normalized.real}: judged by both`);
    const part: PolicyPart = { kind, subject: normalized.lexical, decision, matched };
    if (unmatched) notes.push(variants.length > 1 ? "default where no rule matched" : "default (no rule matched)");
    if (notes.length > 0) part.note = notes.join("; ");
    return part;
  }

  #judgeArgs(tool: string, fields: Record<string, unknown>, rules: ToolRules, only: boolean): PolicyPart | undefined {
    const matched: MatchedRule[] = [];
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
    return finish({ kind: "args", subject, decision: "allow", matched }, this.defaultDecision, notes, notes.length > 0);
  }
}

function unique<T>(values: T[]): T[] {
  return [...new Set(values)];
}

function matchOf(rule: CompiledRule, decision: Decision): MatchedRule {
  return rule.reason === undefined ? { id: rule.id, decision } : { id: rule.id, decision, reason: rule.reason };
}

/** Sets a part's decision from its matches (deny > ask > allow), the default when none, at least ask when uncertain. */
function finish(part: PolicyPart, defaultDecision: Decision, notes: string[] = [], atLeastAsk = false): PolicyPart {
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

function merge(a: PolicyPart, b: PolicyPart): PolicyPart {
  const matched = [...a.matched];
  for (const entry of b.matched) if (!matched.some((each) => each.id === entry.id && each.decision === entry.decision)) matched.push(entry);
  const note = [a.note, b.note].filter((text) => text !== undefined && text !== "");
  const subject = a.subject === b.subject ? a.subject : `${a.subject} | ${b.subject}`;
  const part: PolicyPart = { kind: a.kind, subject, decision: worst(a.decision, b.decision), matched };
  if (note.length > 0) part.note = [...new Set(note)].join("; ");
  return part;
}

function summarize(tool: string, parts: PolicyPart[]): PolicyExplanation {
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

function preview(value: unknown): string {
  const text = typeof value === "string" ? value : JSON.stringify(value) ?? String(value);
  return text.length > 200 ? `${text.slice(0, 197)}...` : text;
}

function expandTilde(value: string): string {
  if (value === "~") return process.env.HOME ?? value;
  if (value.startsWith("~/")) return (process.env.HOME ?? "~") + value.slice(1);
  return value;
}
