import { dirname, isAbsolute, resolve } from "node:path";
import {
  checkValue,
  type CommandAccess,
  type DeniedReads,
  ErrorCode,
  messageOf,
  type NetworkAccess,
  type PolicyRequest,
  type ProtectedPaths,
  type ProtectedPathsOptions,
  type ToolAccess,
  ToolhostError,
} from "@toolhost/core";
import picomatch from "picomatch";
import { checkAccess, runsConfined, undeclared } from "./_access.js";
import type { CommandPattern, Match } from "./_command-pattern.js";
import {
  clip,
  decideLayered,
  finish,
  type Layering,
  type MatchedRule,
  merge,
  type PartKind,
  type PolicyExplanation,
  type PolicyPart,
  preview,
  summarize,
  worst,
} from "./_explanation.js";
import { anchorsOf, existingReal, folderOf, LINK_TTL_MS, normalizePath, type PathAnchors, samplesOf } from "./_paths.js";
import { TreeGuard } from "./_protected.js";
import { type Decision, type PolicyOptions, PolicyOptionsSchema, type PolicyRule } from "./_schema.js";
import { deniedReadsOf, type ReadCovers, readCovers } from "./_denied-reads.js";
import { type ParsedCommand, parseCommand, type ShellCommandPart, type ShellFilePart } from "./_shell.js";
import { showWord, type ShellWord } from "./_words.js";
import { layerSources, layersOf, type SourcedLayer } from "./_layers.js";
import { appliesTo, type ArgMatcher, type CompiledRule, compileRule, isWhole, matchOf, namesTool } from "./_rules.js";

export type { MatchedRule, PartKind, PolicyExplanation, PolicyPart } from "./_explanation.js";

/** A rule in force: its id, its layer's name, whether the layer is locked, and the file it came from (packages and files). */
export type EffectiveRule = PolicyRule & { id: string; layer: string; locked: boolean; source?: string };

interface LayerPlace {
  index: number;
  locked: boolean;
  name: string;
  source?: string;
  /** How a person reads the rule: `recommended › "rm -rf *" (rules[18])`. */
  label: string;
}

/** Where the policy stands: relative paths resolve against `cwd`, `${workspace}` is `workspace`. */
export interface PolicyEnvironment {
  cwd: string;
  workspace: string;
}

/** A compiled policy: pure, synchronous decisions. */
export interface Policy {
  /**
   * Decides a call from what it touches (`access`, as its tool declares it) and its arguments.
   * Never throws: an error is a deny with the error in the reason.
   */
  decide(request: PolicyRequest): PolicyExplanation;
  /**
   * The existing paths under `root` that the rules deny to read (path rules of `read`, or of
   * every tool) and to write: what a tool reading the tree leaves out, and a sandbox hides.
   * Rejects when the tree is too large to walk (more than 200,000 entries, or 64 levels deep).
   * The walk runs in the thread pool and does not hold the event loop.
   */
  protectedPaths(root: string, options?: ProtectedPathsOptions): Promise<ProtectedPaths>;
  /**
   * What the rules deny `tool` (and every tool, `read`) to read outside `roots`, for a confined
   * call, as existing paths a sandbox covers, and the patterns no paths can cover. Rejects when a
   * search is too large, or a path to hide holds a root.
   */
  deniedReads(request: { roots: string[]; tool?: string }): Promise<DeniedReads>;
  readonly defaultDecision: Decision;
  /** The first locked layer whose `default` is ask or deny: a part no rule decides cannot be approved below it. */
  readonly lockedDefault: { layer: string; source?: string } | undefined;
  /** Every rule in force (layers in `extends` order, the config's own last), with the id decisions name it by and its layer. */
  readonly rules: ReadonlyArray<EffectiveRule>;
  /** The files the layers of `extends` were read from (policy files, packages' package.json), absolute. */
  readonly sources: readonly string[];
}

/** Error codes of the policy. */
export const PolicyErrorCode = Object.freeze({
  INVALID_OPTIONS: ErrorCode.INVALID_PLUGIN_OPTIONS,
  POLICY_ERROR: "TOOLHOST_POLICY_ERROR",
  AUDIT_FAILED: "TOOLHOST_POLICY_AUDIT_FAILED",
  REDACTION_FAILED: "TOOLHOST_POLICY_REDACTION_FAILED",
} as const);

/** The kinds of access path rules can name in `tool`: `read` and `write` stand for every read / write declared. */
const READ = "read";
const WRITE = "write";
/** Programs that never open their operands: a word known only at run time given to them names no file. */
const NO_FILE_ARGUMENTS = new Set(["echo", "printf", "test", "[", "true", "false", ":", "export", "local", "declare", "typeset", "readonly", "unset", "set", "shift", "exit", "return", "read", "sleep", "seq", "expr", "basename", "dirname", "kill", "let", "wait", "cd", "pushd", "popd"]);

/** The rules that can judge the parts of one tool's calls, sorted out once per tool name. */
interface ToolRules {
  /** Rules without a matcher: they judge every part of the call. */
  whole: CompiledRule[];
  /** Per program named by some rule: its rules and the glob ones, in rule order. */
  forProgram: Map<string, CompiledRule[]>;
  /** Command rules whose program is a glob. */
  anyProgram: CompiledRule[];
  allCommand: CompiledRule[];
  inline: CompiledRule[];
  network: CompiledRule[];
  args: CompiledRule[];
  /** Path rules of the tool and of `write` / `read`. */
  write: CompiledRule[];
  read: CompiledRule[];
  /** Rules without a matcher of `write` / `read` and of the tool. */
  writeWhole: CompiledRule[];
  readWhole: CompiledRule[];
  /** Deny path rules that judge reads: arguments of a command that name such a file deny it. */
  readDeny: CompiledRule[];
  /** Deny and ask path rules that judge reads: a word known only at run time that could name such a file asks. */
  readCaution: CompiledRule[];
  /** Finds the paths `readDeny` names under a tree; made when first needed. */
  guard: TreeGuard | undefined;
  /** Deny and ask rules with a matcher that name this tool (not by `*`): a call that declares nothing they judge asks. */
  naming: CompiledRule[];
  /** Confined calls: the ids of `sandboxed: true` rules; one matching a part lifts the ask of what the policy cannot read. */
  lifting: Set<string>;
}

/** The note of a part whose ask a `sandboxed: true` rule lifted. */
const LIFTED = "the call runs confined (it can write only inside the workspace, and the network is off), so a sandboxed rule decides what the policy cannot read";

/**
 * Compiles options (presets and rules) into a policy. Throws a `ToolhostError` with the path of
 * the problem when a rule is invalid.
 */
export function createPolicy(options: PolicyOptions, environment: PolicyEnvironment): Policy {
  checkOptions(options);
  return compilePolicy(options, environment);
}

/**
 * `createPolicy` for options already checked against `PolicyOptionsSchema` (the plugin's, which
 * `harness.use` checked): checking them again would compile the schema's check at every start.
 */
export function compilePolicy(options: PolicyOptions, environment: PolicyEnvironment): Policy {
  const anchors = anchorsOf(environment.workspace);
  const compiled: CompiledRule[] = [];
  const layers = new Map<string, LayerPlace>();
  let defaultDecision: Decision = "ask";
  let floor: Decision = "allow";
  let lockedDefault: Policy["lockedDefault"];
  const layerList: SourcedLayer[] = layersOf(options, environment.workspace);
  layerList.push({ name: "config", rules: options.rules ?? [], ...(options.default ? { default: options.default } : {}) });
  layerList.forEach((layer, index) => {
    const own = index === layerList.length - 1;
    const place = { index, locked: layer.locked === true, name: layer.name, ...(layer.source ? { source: layer.source } : {}) };
    if (layer.default) defaultDecision = worst(layer.default, floor);
    if (layer.locked && layer.default) floor = worst(floor, layer.default);
    if (layer.locked && layer.default && layer.default !== "allow") lockedDefault ??= { layer: layer.name, ...(layer.source ? { source: layer.source } : {}) };
    layer.rules.forEach((rule, at) => {
      const id = rule.id ?? (own ? `rules[${at}]` : `${layer.name}:rules[${at}]`);
      compiled.push(compileRule(rule, id, anchors, own ? `rules[${at}]` : `${layer.name} rules[${at}]`));
      if (!layers.has(id)) {
        // Written out only for an explanation that names the rule.
        layers.set(id, {
          ...place,
          get label() {
            return `${layer.name}${layer.locked ? " (locked)" : ""} › ${matcherText(rule)} (${rule.id ?? `rules[${at}]`})`;
          },
        });
      }
    });
  });
  compiled.forEach((rule, order) => {
    rule.order = order;
  });
  return new CompiledPolicy(compiled, defaultDecision, environment, anchors, layers, lockedDefault, layerSources(layerList));
}

/** A rule's matcher as written: `"rm -rf *"`, `path "~/.ssh/**"`, `every call of bash`. */
export function matcherText(rule: PolicyRule): string {
  const text = ownMatcherText(rule);
  return rule.sandboxed === undefined ? text : `${text} ${rule.sandboxed ? "when sandboxed" : "when not sandboxed"}`;
}

function ownMatcherText(rule: PolicyRule): string {
  if (rule.command !== undefined) return JSON.stringify(rule.command);
  if (rule.path !== undefined) return `path ${JSON.stringify(rule.path)}`;
  if (rule.url !== undefined) return `url ${JSON.stringify(rule.url)}`;
  if (rule.host !== undefined) return `host ${JSON.stringify(rule.host)}`;
  if (rule.inline) return "inline programs";
  if (rule.args !== undefined) return `args ${JSON.stringify(rule.args)}`;
  const tools = rule.tool === undefined ? "every tool" : [rule.tool].flat().join(", ");
  return `every call of ${tools}`;
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

class CompiledPolicy implements Policy {
  readonly #rules: CompiledRule[];
  readonly #byTool = new Map<string, ToolRules>();
  readonly #protected = new Map<boolean, { read: TreeGuard; write: TreeGuard; readAll: boolean; writeAll: boolean }>();
  /** Per tool: how its deny-read rules for confined calls turn into what a sandbox covers. */
  readonly #readCovers = new Map<string, ReadCovers>();
  readonly rules: ReadonlyArray<EffectiveRule>;
  readonly #layering: Layering;

  constructor(
    rules: CompiledRule[],
    readonly defaultDecision: Decision,
    readonly environment: PolicyEnvironment,
    readonly anchors: PathAnchors,
    layers: Map<string, LayerPlace>,
    readonly lockedDefault: Policy["lockedDefault"],
    readonly sources: readonly string[],
  ) {
    this.#rules = rules;
    this.#layering = { default: defaultDecision, layerOf: (id) => layers.get(id) };
    this.rules = Object.freeze(
      rules.map((rule) => {
        const where = layers.get(rule.id);
        const source = where?.source ? { source: where.source } : {};
        return Object.freeze({ ...rule.rule, id: rule.id, layer: where?.name ?? "config", locked: where?.locked === true, ...source });
      }),
    );
  }

  decide(request: PolicyRequest): PolicyExplanation {
    const tool = String((request as { tool?: unknown } | null | undefined)?.tool ?? "");
    try {
      if (typeof request !== "object" || request === null || typeof request.tool !== "string") {
        throw new TypeError("a decision takes { tool: string, args, cwd?, access? }");
      }
      return this.#decide(request);
    } catch (error) {
      const reason = `policy error: ${messageOf(error)}`;
      return { decision: "deny", reason, tool, rules: [], parts: [{ kind: "call", subject: tool, decision: "deny", matched: [], note: reason }] };
    }
  }

  async protectedPaths(root: string, options?: ProtectedPathsOptions): Promise<ProtectedPaths> {
    if (typeof root !== "string" || root === "" || root.includes("\0")) throw new TypeError(`protectedPaths takes a folder, not ${JSON.stringify(root)}`);
    const where = resolve(this.environment.cwd, root);
    // Confined calls: a rule with `sandboxed: false` does not apply to them, so what only it denies is not listed.
    const confined = options?.confined === true;
    let guard = this.#protected.get(confined);
    if (!guard) {
      const denying = (kind: string) => this.#rules.filter((rule) => rule.decision === "deny" && rule.tool(kind) && (!confined || rule.sandboxed !== false));
      const names = (rules: CompiledRule[]) => {
        const paths = rules.filter((rule) => rule.path).map((rule) => rule.path as (path: string) => boolean);
        return (path: string) => paths.some((matches) => matches(path));
      };
      const read = denying(READ);
      const write = denying(WRITE);
      guard = {
        read: new TreeGuard(names(read)),
        write: new TreeGuard(names(write)),
        readAll: read.some(isWhole),
        writeAll: write.some(isWhole),
      };
      this.#protected.set(confined, guard);
    }
    const { readAll, read, writeAll, write } = guard;
    const list = async (all: boolean, tree: TreeGuard): Promise<string[]> => {
      if (all) return [where];
      const found = await tree.findAsync(where);
      if (!found.complete) {
        throw new ToolhostError(
          PolicyErrorCode.POLICY_ERROR,
          `The tree ${where} is too large for the policy to check for protected paths (over 200,000 entries or 64 levels). Read a smaller folder.`,
        );
      }
      return found.paths;
    };
    const [denyRead, denyWrite] = await Promise.all([list(readAll, read), list(writeAll, write)]);
    return { denyRead, denyWrite };
  }

  async deniedReads(request: { roots: string[]; tool?: string }): Promise<DeniedReads> {
    const roots = (request as { roots?: unknown } | null)?.roots;
    if (!Array.isArray(roots) || !roots.every((root) => typeof root === "string" && root !== "" && !root.includes("\0"))) {
      throw new TypeError("deniedReads takes { roots: folders, tool? }");
    }
    const where = roots.map((root: string) => resolve(this.environment.cwd, root));
    return deniedReadsOf(this.#readCoversOf(typeof request.tool === "string" ? request.tool : READ), where, PolicyErrorCode.POLICY_ERROR);
  }

  /** The deny rules on reads that apply to a confined call of `tool`, as a sandbox covers them. */
  #readCoversOf(tool: string): ReadCovers {
    let covers = this.#readCovers.get(tool);
    if (!covers) {
      const denying = this.#rules.filter(
        (rule) => rule.decision === "deny" && (rule.tool(READ) || rule.tool(tool)) && appliesTo(rule, true) && (rule.path !== undefined || (isWhole(rule) && rule.tool(READ))),
      );
      covers = readCovers(denying, this.anchors);
      this.#readCovers.set(tool, covers);
    }
    return covers;
  }

  /**
   * Whether a confined call is also bounded in what it reads: nothing is denied to read, or the
   * sandbox hides what `deniedReads` lists (its confinement says so) and every pattern can be
   * listed. Else a sandboxed rule must not lift what the policy cannot read (a script may read anything).
   */
  #readsHidden(tool: string, access: ToolAccess | undefined): boolean {
    const covers = this.#readCoversOf(tool);
    if (!covers.any) return true;
    return covers.unbounded.length === 0 && access?.confinement?.hidesDeniedReads === true;
  }

  #rulesFor(tool: string, confined: boolean): ToolRules {
    const key = `${confined ? "confined" : "open"}\0${tool}`;
    let found = this.#byTool.get(key);
    if (found) return found;
    const of = (name: string) => this.#rules.filter((rule) => rule.tool(name) && appliesTo(rule, confined));
    const mine = of(tool);
    const byProgram = new Map<string, CompiledRule[]>();
    const anyProgram: CompiledRule[] = [];
    const allCommand = mine.filter((rule) => rule.command);
    for (const rule of allCommand) {
      const program = (rule.command as CommandPattern).program;
      if (program === undefined) anyProgram.push(rule);
      else byProgram.set(program, [...(byProgram.get(program) ?? []), rule]);
    }
    const whole = mine.filter(isWhole);
    const fileRules = (name: string) => unique([...of(name).filter((rule) => rule.path), ...mine.filter((rule) => rule.path)]).sort((a, b) => a.order - b.order);
    const write = fileRules(WRITE);
    const read = fileRules(READ);
    const forProgram = new Map<string, CompiledRule[]>();
    for (const [program, named] of byProgram) forProgram.set(program, [...named, ...anyProgram].sort((a, b) => a.order - b.order));
    found = {
      forProgram,
      whole,
      writeWhole: unique([...of(WRITE).filter(isWhole), ...whole]),
      // A confinement bounds writes and the network, not reads: a sandboxed rule without a matcher judges no read.
      readWhole: unique([...of(READ).filter(isWhole), ...whole]).filter((rule) => rule.sandboxed !== true),
      anyProgram,
      allCommand,
      inline: mine.filter((rule) => rule.inline),
      network: mine.filter((rule) => rule.url || rule.host),
      args: mine.filter((rule) => rule.args),
      write,
      read,
      readDeny: read.filter((rule) => rule.decision === "deny"),
      readCaution: read.filter((rule) => rule.decision !== "allow"),
      guard: undefined,
      naming: mine.filter((rule) => !isWhole(rule) && !rule.args && rule.decision !== "allow" && namesTool(rule, tool)),
      lifting: new Set(mine.filter((rule) => rule.sandboxed === true).map((rule) => rule.id)),
    };
    this.#byTool.set(key, found);
    return found;
  }

  #decide(request: PolicyRequest): PolicyExplanation {
    const tool = request.tool;
    const access = checkAccess(request.access);
    const boxed = runsConfined(access, this.environment.workspace);
    // Confined and bounded in what it reads: only then do sandboxed rules apply.
    const trusted = boxed && this.#readsHidden(tool, access);
    const rules = this.#rulesFor(tool, trusted);
    const args = request.args;
    const fields = typeof args === "object" && args !== null && !Array.isArray(args) ? (args as Record<string, unknown>) : {};
    const cwd = request.cwd ? resolve(this.environment.cwd, request.cwd) : this.environment.cwd;
    const parts: PolicyPart[] = [];

    for (const command of access?.commands ?? []) this.#judgeShell(command, rules, cwd, parts);
    for (const path of access?.reads ?? []) parts.push(this.#judgePath(READ, path, rules.read, rules.readWhole, cwd));
    for (const path of access?.readTrees ?? []) {
      const part = this.#judgePath("tree", path, rules.read, rules.readWhole, cwd);
      part.note = [part.note, "what the read rules deny under it is left out by the tool"].filter(Boolean).join("; ");
      parts.push(part);
    }
    for (const path of access?.writes ?? []) parts.push(this.#judgePath(WRITE, path, rules.write, rules.writeWhole, cwd));
    if (rules.network.length > 0) for (const destination of access?.network ?? []) parts.push(this.#judgeNetwork(destination, rules));

    for (const rule of rules.naming) {
      const missing = undeclared(rule, access);
      if (missing === undefined) continue;
      const why = rule.reason ? ` (${rule.reason})` : "";
      parts.push({
        kind: "call",
        subject: tool,
        decision: "ask",
        matched: [{ id: rule.id, decision: "ask", reason: rule.reason ?? `${rule.id} judges ${missing} of ${tool}` }],
        note: `${rule.id}${why} judges ${missing} of ${tool}, but the call declares none, so it cannot be judged`,
      });
    }

    if (rules.args.length > 0) {
      const part = this.#judgeArgs(tool, fields, rules, parts.length === 0);
      if (part) parts.push(part);
    }

    if (parts.length === 0) {
      // Nothing judged but the confinement: a sandboxed rule for every tool (`*`) does not decide
      // a call that says nothing of what it does; one that names the tool does.
      const matched = rules.whole.filter((rule) => !rules.lifting.has(rule.id) || namesTool(rule, tool)).map((rule) => matchOf(rule, rule.decision));
      parts.push(finish({ kind: "call", subject: tool, decision: "allow", matched }, this.#layering));
    }
    // Sandboxed rules first where they lifted an ask (the sandbox made the difference, and the
    // decision says so), last elsewhere (another rule would have decided the same).
    if (rules.lifting.size > 0) {
      for (const part of parts) {
        const sandboxed = part.matched.filter((entry) => rules.lifting.has(entry.id));
        const others = part.matched.filter((entry) => !rules.lifting.has(entry.id));
        part.matched = part.note?.includes(LIFTED) ? [...sandboxed, ...others] : [...others, ...sandboxed];
      }
    }
    if (boxed && !trusted) this.#noteUntrusted(tool, parts);
    return summarize(tool, parts, this.#layering);
  }

  /** A confined call whose reads are not bounded: its asks say why the sandbox made no difference. */
  #noteUntrusted(tool: string, parts: PolicyPart[]): void {
    const { unbounded } = this.#readCoversOf(tool);
    const shown = unbounded.slice(0, 4).join(", ") + (unbounded.length > 4 ? `, and ${unbounded.length - 4} more` : "");
    const why =
      unbounded.length > 0
        ? `the call runs in a sandbox, but no sandbox can hide what ${shown} name${unbounded.length === 1 ? "s" : ""} outside the workspace, so sandboxed rules do not apply`
        : "the call runs in a sandbox that does not say it hides what the policy denies to read, so sandboxed rules do not apply";
    for (const part of parts) {
      if (part.decision === "ask") part.note = part.note ? `${part.note}; ${why}` : why;
    }
  }

  #judgeShell(command: CommandAccess, rules: ToolRules, cwd: string, parts: PolicyPart[]): void {
    const where = command.cwd ? resolve(cwd, command.cwd) : cwd;
    const parsed = parseCommand(command.command);
    const cwds = this.#cwds(parsed, where);
    const before = parts.length;
    for (const part of parsed.parts) {
      if (part.kind === "command") parts.push(this.#judgeCommand(part, rules, cwds));
      else if (part.kind === "unknown") parts.push(this.#judgeUnknown(part.subject, part.reason, rules));
      else if (part.kind === "write") parts.push(this.#judgeFile(part, rules.write, rules.writeWhole, cwds, rules.lifting));
      else parts.push(this.#judgeFile(part, rules.read, rules.readWhole, cwds));
    }
    if (parts.length === before) {
      // Only redirects of descriptors (`exec 2>&1`), or nothing at all: nothing runs, nothing is touched.
      const matched = rules.whole.map((rule) => matchOf(rule, rule.decision));
      parts.push({ kind: "command", subject: command.command.trim() || "(empty)", decision: matched.length > 0 ? decideLayered(matched, this.#layering) : "allow", matched, note: "runs no program and touches no file" });
    }
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
    let program = "";
    if (name.value === undefined) {
      candidates = rules.allCommand;
    } else {
      program = name.value.slice(name.value.lastIndexOf("/") + 1);
      candidates = rules.forProgram.get(program) ?? rules.anyProgram;
    }
    const matched: MatchedRule[] = rules.whole.map((rule) => matchOf(rule, rule.decision));
    const notes: string[] = [];
    let atLeastAsk = part.uncertain !== undefined;
    if (part.uncertain) notes.push(part.uncertain);
    const maybes: string[] = [];
    let named = false;
    for (const rule of candidates) {
      const pattern = rule.command as CommandPattern;
      const match = pattern.match(words, part.tail, rule.decision === "allow", part.args);
      if (match === "yes") {
        matched.push(matchOf(rule, rule.decision));
        if (pattern.namesOperand) named = true;
      } else if (match === "maybe" && rule.decision !== "allow") {
        matched.push(matchOf(rule, "ask"));
        maybes.push(`${rule.id} (${rule.decision})`);
      }
    }
    if (part.inline !== undefined) {
      for (const rule of rules.inline) matched.push(matchOf(rule, rule.decision));
      notes.push(`runs an inline program: ${clip(part.inline, 80)}`);
    }
    if (part.script && !named) {
      atLeastAsk = true;
      notes.push(`runs the script ${showWord(part.script)}, which the policy cannot read (a rule naming it decides)`);
    }
    if (rules.readCaution.length > 0) this.#readsOfCommand(part, program, rules, cwds, matched, notes);
    if (maybes.length > 0) notes.push(`words known only at run time may match ${maybes.join(", ")}`);
    // An inline program is unreadable too, though rules (not the parser) ask for it.
    if ((atLeastAsk || part.inline !== undefined) && lifts(rules, matched)) {
      atLeastAsk = false;
      notes.push(LIFTED);
    }
    const judged = finish({ kind: "command", subject, decision: "allow", matched }, this.#layering, notes, atLeastAsk);
    return judged;
  }

  /**
   * What a command reads through its arguments: a word naming a file the read rules deny (`cat
   * .env`, `dd if=.env`, a symlink to it) denies it; a word known only at run time that could name
   * such a file asks; a tree it reads recursively that holds such a file asks.
   */
  #readsOfCommand(part: ShellCommandPart, program: string, rules: ToolRules, cwds: Array<string | undefined>, matched: MatchedRule[], notes: string[]): void {
    const seen = new Set<string>();
    const add = (rule: CompiledRule, decision: Decision, why: string): void => {
      const key = `${rule.id}:${decision}`;
      if (seen.has(key) || matched.some((entry) => entry.id === rule.id && entry.decision === decision)) return;
      seen.add(key);
      matched.push({ id: rule.id, decision, reason: rule.reason ?? why });
    };
    const words: ShellWord[] = [];
    for (const word of part.words.slice(1)) {
      const value = word.value;
      if (value !== undefined && value.startsWith("-") && value.includes("=")) words.push({ ...word, value: value.slice(value.indexOf("=") + 1), tilde: false });
      else words.push(word);
    }
    for (const touch of part.reads ?? []) words.push(touch.path);
    // xargs' input: arguments that come at run time.
    if (part.tail) words.push({ text: "(xargs' input)", value: undefined, splits: true, tilde: false });
    const cwd = cwds[Math.min(part.cdCount, cwds.length - 1)] ?? cwds[0];
    for (const word of words) {
      const value = word.value;
      if (value === undefined) {
        if (NO_FILE_ARGUMENTS.has(program) || cwd === undefined) continue;
        const rule = this.#couldName(word, rules.readCaution, cwd);
        if (rule) {
          add(rule, "ask", `${word.text} is known only at run time and could name a file ${rule.id} ${rule.decision === "deny" ? "denies" : "asks for"}`);
          notes.push(`${word.text} could name a path ${rule.id} (${rule.decision}) matches`);
        }
        continue;
      }
      if (value === "" || value.startsWith("-") || value.length > 4096 || rules.readDeny.length === 0 || NO_FILE_ARGUMENTS.has(program)) continue;
      for (const base of cwds) {
        if (base === undefined) continue;
        for (const path of this.#variants(value, base, word.tilde)) {
          for (const rule of rules.readDeny) if ((rule.path as (path: string) => boolean)(path)) add(rule, "deny", `${showWord(word)} names a file the read rules deny`);
        }
      }
    }
    for (const touch of part.trees ?? []) this.#treeOfCommand(touch.path, rules, cwd, add, notes);
  }

  #treeOfCommand(word: ShellWord, rules: ToolRules, cwd: string | undefined, add: (rule: CompiledRule, decision: Decision, why: string) => void, notes: string[]): void {
    if (rules.readDeny.length === 0) return;
    const first = rules.readDeny[0] as CompiledRule;
    if (word.value === undefined || cwd === undefined) {
      add(first, "ask", `reads a tree known only at run time, which may hold files the read rules deny`);
      notes.push(`reads the tree ${word.text}, known only at run time`);
      return;
    }
    const normalized = normalizePath(word.value, cwd, word.tilde);
    if (!normalized.ok) return;
    rules.guard ??= new TreeGuard((path) => rules.readDeny.some((rule) => (rule.path as (path: string) => boolean)(path)), LINK_TTL_MS, true);
    for (const root of unique([normalized.lexical, normalized.real])) {
      const found = rules.guard.find(root);
      if (found.paths.length === 0 && found.complete) continue;
      const denied = rules.readDeny.find((rule) => found.paths.some((path) => (rule.path as (path: string) => boolean)(path))) ?? first;
      const shown = found.paths.join(", ");
      add(denied, "ask", `it reads the tree ${root} recursively, which holds files the read rules deny`);
      notes.push(found.complete ? `reads ${root} recursively, which holds ${shown}` : `reads ${root} recursively, too large to check for denied files`);
    }
  }

  /** The path an argument names, and where it leads when it exists and symlinks are followed. */
  #variants(value: string, cwd: string, tilde: boolean): string[] {
    if (value.includes("\0")) return [];
    let path = value;
    if (tilde && (value === "~" || value.startsWith("~/"))) path = (this.anchors.homes[0] as string) + value.slice(1);
    const lexical = resolve(cwd, path);
    const real = existingReal(path.split("/").includes("..") ? `${cwd}/${path}` : lexical);
    return real === undefined || real === lexical ? [lexical] : [lexical, real];
  }

  /** The first deny/ask read rule a word known only at run time could name a path of, if any. */
  #couldName(word: ShellWord, caution: CompiledRule[], cwd: string): CompiledRule | undefined {
    const text = word.text.replace(/^(["'])(.*)\1$/, "$2");
    const pureGlob = !/[$`]/.test(text) && /[*?[]/.test(text);
    if (!pureGlob) return caution[0];
    const path = resolve(cwd, text.startsWith("~/") ? this.anchors.homes[0] + text.slice(1) : text);
    const glob = picomatch(path, { dot: true });
    const folder = dirname(path);
    return caution.find((rule) => rule.rule.path !== undefined && samplesOf(rule.rule.path, this.anchors, folder).some((sample) => glob(sample) || glob(`${sample}/x`)));
  }

  #judgeUnknown(subject: string, reason: string, rules: ToolRules): PolicyPart {
    const matched: MatchedRule[] = rules.whole.map((rule) => matchOf(rule, rule.decision));
    for (const rule of rules.anyProgram) {
      if (rule.decision === "deny" && (rule.command as CommandPattern).source.trim() === "*") matched.push(matchOf(rule, "deny"));
    }
    const lifted = lifts(rules, matched);
    return finish({ kind: "command", subject, decision: "allow", matched }, this.#layering, lifted ? [reason, LIFTED] : [reason], !lifted);
  }

  /** A file a command writes or reads; `lifting` (writes of a confined call): the sandboxed rules that lift a run-time path's ask. */
  #judgeFile(part: ShellFilePart, fileRules: CompiledRule[], whole: CompiledRule[], cwds: Array<string | undefined>, lifting?: Set<string>): PolicyPart {
    const word = part.path;
    const kind = part.kind;
    if (word.value === undefined) {
      const matched = whole.map((rule) => matchOf(rule, rule.decision));
      const lifted = lifting !== undefined && matched.some((entry) => lifting.has(entry.id));
      const notes = [`${kind === "write" ? "writes to" : "reads from"} a path known only at run time`];
      return finish({ kind, subject: `${part.via} ${word.text}`, decision: "allow", matched }, this.#layering, lifted ? [...notes, LIFTED] : notes, !lifted);
    }
    const value = word.value;
    const relative = !isAbsolute(value) && !(word.tilde && value.startsWith("~"));
    const targets = relative ? cwds.slice(0, part.cdCount + 1) : [cwds[0]];
    let result: PolicyPart | undefined;
    for (const cwd of targets) {
      const judged =
        cwd === undefined
          ? finish({ kind, subject: value, decision: "allow", matched: [] }, this.#layering, ["relative to a folder known only at run time (after cd)"], true)
          : this.#judgeNormalized(kind, value, cwd, word.tilde, fileRules, whole);
      result = result === undefined ? judged : merge(result, judged);
    }
    return result as PolicyPart;
  }

  #judgePath(kind: PartKind, path: unknown, pathRules: CompiledRule[], whole: CompiledRule[], cwd: string): PolicyPart {
    if (typeof path !== "string") {
      return finish({ kind, subject: String(path), decision: "allow", matched: [] }, this.#layering, ["the path is not a string"], true);
    }
    return this.#judgeNormalized(kind, path, cwd, false, pathRules, whole);
  }

  #judgeNormalized(kind: PartKind, value: string, cwd: string, tilde: boolean, pathRules: CompiledRule[], whole: CompiledRule[]): PolicyPart {
    const normalized = normalizePath(value, cwd, tilde);
    const matched: MatchedRule[] = whole.map((rule) => matchOf(rule, rule.decision));
    if (!normalized.ok) {
      if (normalized.deny) return { kind, subject: JSON.stringify(value), decision: "deny", matched, note: normalized.reason };
      return finish({ kind, subject: value, decision: "allow", matched }, this.#layering, [normalized.reason], true);
    }
    const variants = normalized.real === normalized.lexical ? [normalized.lexical] : [normalized.lexical, normalized.real];
    let decision: Decision = "allow";
    let unmatched = false;
    for (const variant of variants) {
      const hits = pathRules.filter((rule) => (rule.path as (path: string) => boolean)(variant));
      for (const rule of hits) if (!matched.some((entry) => entry.id === rule.id)) matched.push(matchOf(rule, rule.decision));
      const own = [...hits, ...whole];
      if (own.length === 0) unmatched = true;
      decision = worst(decision, own.length === 0 ? this.defaultDecision : decideLayered(own, this.#layering));
    }
    const notes: string[] = [];
    if (variants.length > 1) notes.push(`a symlink to ${normalized.real}: judged by both`);
    const part: PolicyPart = { kind, subject: normalized.lexical, decision, matched };
    if (unmatched) notes.push(variants.length > 1 ? "default where no rule matched" : "default (no rule matched)");
    if (notes.length > 0) part.note = notes.join("; ");
    return part;
  }

  #judgeNetwork(destination: NetworkAccess, rules: ToolRules): PolicyPart {
    const url = destination.url;
    const method = typeof destination.method === "string" ? destination.method.toUpperCase() : undefined;
    const subject = method ? `${method} ${url}` : url;
    const matched: MatchedRule[] = rules.whole.map((rule) => matchOf(rule, rule.decision));
    let host: string | undefined;
    try {
      host = new URL(url).hostname.toLowerCase().replace(/^\[|\]$/g, "");
    } catch {
      return finish({ kind: "network", subject, decision: "allow", matched }, this.#layering, ["the URL is not valid"], true);
    }
    for (const rule of rules.network) {
      if ((rule.url && rule.url.test(url)) || (rule.host && rule.host.test(host))) matched.push(matchOf(rule, rule.decision));
    }
    return finish({ kind: "network", subject, decision: "allow", matched }, this.#layering);
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
    return finish({ kind: "args", subject, decision: "allow", matched }, this.#layering, notes, notes.length > 0);
  }
}

/** Whether a `sandboxed: true` rule matched a part of a confined call. */
function lifts(rules: ToolRules, matched: MatchedRule[]): boolean {
  return rules.lifting.size > 0 && matched.some((entry) => rules.lifting.has(entry.id));
}

function unique<T>(values: T[]): T[] {
  return [...new Set(values)];
}

/** A rule that asked about a part, as an approver reads it (`details.policy.asks[].rules`). */
export interface AskingRule {
  id: string;
  /** The rule's own decision: `deny` when the policy asks because the deny may apply (words known only at run time). */
  decision: Decision;
  layer: string;
  locked: boolean;
  /** The matcher as written: `"rm -rf *"`, `path ".env"`. */
  matcher: string;
  tool: string;
  source?: string;
}

/**
 * A part of a call that asks, for an approver: what it is, the rules that asked (none when the
 * default or an uncertainty asked), and whether a locked layer has a say in it: then no approval
 * given in advance (a command-line flag, a later layer) may pass it, only a person asked.
 */
export interface AskingPart {
  kind: PartKind;
  subject: string;
  rules: AskingRule[];
  locked: boolean;
  /** The locked layer (and its file) that holds the ask, when `locked`. */
  lockedBy?: { layer: string; source?: string };
  note?: string;
}

/** The parts of an asking call that ask, with the layer and lock of each rule that asked. */
export function askingParts(policy: Policy, explanation: PolicyExplanation, limit: number): AskingPart[] {
  const byId = new Map(policy.rules.map((rule) => [rule.id, rule]));
  return explanation.parts
    .filter((part) => part.decision === "ask")
    .slice(0, limit)
    .map((part) => {
      const say = part.matched.filter((entry) => entry.decision !== "allow").map((entry) => byId.get(entry.id));
      const rules = part.matched.filter((entry) => entry.decision === "ask").map((entry): AskingRule => {
        const rule = byId.get(entry.id);
        return {
          id: entry.id,
          decision: rule?.decision ?? "ask",
          layer: rule?.layer ?? "config",
          locked: rule?.locked === true,
          matcher: rule ? matcherText(rule) : entry.id,
          tool: [rule?.tool ?? "*"].flat().join(", "),
          ...(rule?.source ? { source: rule.source } : {}),
        };
      });
      const lockedRule = say.find((rule) => rule?.locked === true);
      // A part no rule asked about asks by the default or an uncertainty: a locked default holds it.
      const lockedBy = lockedRule
        ? { layer: lockedRule.layer, ...(lockedRule.source ? { source: lockedRule.source } : {}) }
        : rules.length === 0
          ? policy.lockedDefault
          : undefined;
      return { kind: part.kind, subject: part.subject, rules, locked: lockedBy !== undefined, ...(lockedBy && { lockedBy }), ...(part.note && { note: part.note }) };
    });
}
