import { resolve } from "node:path";
import { type ConfigOwner, type DeniedReads, messageOf, type PolicyExplanation, type PolicyPart, type PolicyRequest, type ProtectedPaths, type ProtectedPathsOptions, type ToolAccess } from "@toolhost/core";
import { checkAccess, undeclared } from "../rules/_access.js";
import { finish, type Layering, summarize } from "../explain/_explanation.js";
import type { PathAnchors } from "../paths/_paths.js";
import { type CompiledRule, matchOf, namesTool } from "../rules/_rules.js";
import type { Decision } from "../options.js";
import type { ShellKnowledge } from "../shell/_parse.js";
import type { EffectiveRule, Policy, PolicyEnvironment } from "../types.js";
import { judgeArgs } from "./_arguments.js";
import { judgeShell } from "./_commands.js";
import { liftedNote, noteUntrusted, orderSandboxed, type Trust, trustOf } from "./_confinement.js";
import { judgePath, judgeTree } from "./_files.js";
import { writtenRecipes } from "./_planted.js";
import { judgeConnections, judgeNetwork } from "./_network.js";
import { Protection } from "./_protection.js";
import { type JudgeScope, LIFTED, READ, WRITE } from "./_scope.js";
import { type ToolRules, toolRulesOf } from "./_tool-rules.js";

/** Where a rule's layer stands, and how a person reads the rule: `recommended › "rm -rf *" (rules[18])`. */
export interface LayerPlace {
  index: number;
  locked: boolean;
  name: string;
  /** The layer is a preset: its command rules judge programs, not the paths they write. */
  preset?: boolean;
  owner?: ConfigOwner;
  source?: string;
  label: string;
}

/** What `compilePolicy` hands the compiled policy. */
export interface CompiledParts {
  rules: CompiledRule[];
  defaultDecision: Decision;
  defaultFrom: Policy["defaultFrom"];
  environment: PolicyEnvironment;
  anchors: PathAnchors;
  layers: Map<string, LayerPlace>;
  lockedDefault: Policy["lockedDefault"];
  sources: readonly string[];
  knowledge: ShellKnowledge;
  /** Every owner's audit log (as named and real): append-only from tools. */
  auditLogs: readonly string[];
}

/**
 * The compiled policy: a call's declared access is split into parts (commands, files, trees,
 * network destinations, arguments, the call), each judged by its own module, and the call takes
 * the most severe decision of its parts.
 */
export class CompiledPolicy implements Policy, JudgeScope {
  readonly #rules: CompiledRule[];
  readonly #byTool = new Map<string, ToolRules>();
  readonly #protection: Protection;
  readonly rules: ReadonlyArray<EffectiveRule>;
  readonly layering: Layering;

  readonly defaultDecision: Decision;
  readonly defaultFrom: Policy["defaultFrom"];
  readonly environment: PolicyEnvironment;
  readonly anchors: PathAnchors;
  readonly lockedDefault: Policy["lockedDefault"];
  readonly sources: readonly string[];
  readonly knowledge: ShellKnowledge;
  readonly trusted: boolean;
  readonly auditLogs: readonly string[];

  constructor(compiled: CompiledParts) {
    const { rules, layers } = compiled;
    this.#rules = rules;
    this.defaultDecision = compiled.defaultDecision;
    this.defaultFrom = compiled.defaultFrom;
    this.environment = compiled.environment;
    this.anchors = compiled.anchors;
    this.lockedDefault = compiled.lockedDefault;
    this.sources = compiled.sources;
    this.knowledge = compiled.knowledge;
    this.trusted = compiled.environment.trustedWorkspace === true;
    this.auditLogs = compiled.auditLogs;
    this.#protection = new Protection(rules, compiled.environment.cwd, compiled.anchors);
    this.layering = { default: compiled.defaultDecision, layerOf: (id) => layers.get(id) };
    this.rules = Object.freeze(
      rules.map((rule) => {
        const where = layers.get(rule.id);
        const source = where?.source ? { source: where.source } : {};
        const owner = where?.owner ? { owner: where.owner } : {};
        return Object.freeze({ ...rule.rule, id: rule.id, layer: where?.name ?? "config", ...owner, locked: where?.locked === true, ...source });
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

  decideConnection(request: PolicyRequest): PolicyExplanation {
    const tool = String((request as { tool?: unknown } | null | undefined)?.tool ?? "");
    try {
      const access = checkAccess(request.access);
      const destinations = access?.network ?? [];
      if (destinations.length === 0) throw new TypeError("a connection to decide names no destination ({ network: [{ url }] })");
      // A connection its proxy asks about is of a call whose network is confined: `sandboxed: true` rules judge it.
      const rules = this.#rulesFor(tool, true);
      const parts = judgeConnections(this, destinations, rules);
      return summarize(tool, parts, this.layering);
    } catch (error) {
      const reason = `policy error: ${messageOf(error)}`;
      return { decision: "deny", reason, tool, rules: [], parts: [{ kind: "network", subject: tool, decision: "deny", matched: [], note: reason }] };
    }
  }

  protectedPaths(root: string, options?: ProtectedPathsOptions): Promise<ProtectedPaths> {
    return this.#protection.protectedPaths(root, options);
  }

  deniedReads(request: { roots: string[]; tool?: string }): Promise<DeniedReads> {
    return this.#protection.deniedReads(request);
  }

  #rulesFor(tool: string, confined: boolean): ToolRules {
    const key = `${confined ? "confined" : "open"}\0${tool}`;
    let found = this.#byTool.get(key);
    if (!found) {
      found = toolRulesOf(this.#rules, tool, confined, this.trusted, this.anchors);
      this.#byTool.set(key, found);
    }
    return found;
  }

  #decide(request: PolicyRequest): PolicyExplanation {
    const tool = request.tool;
    const access = checkAccess(request.access);
    // Confined and bounded in what it reads: only then do sandboxed rules apply.
    const trust = trustOf(access, this.environment.workspace, () => this.#protection.readCoversOf(tool));
    const rules = this.#rulesFor(tool, trust.confined);
    const cwd = request.cwd ? resolve(this.environment.cwd, request.cwd) : this.environment.cwd;
    const parts = this.#accessParts(access, rules, cwd, trust.limited);
    parts.push(...this.#undeclared(tool, access, rules));
    if ((access?.writes?.length ?? 0) > 0) parts.push(...this.#recipesWritten(tool, access?.writes ?? [], request.args, cwd));
    if (rules.args.length > 0) {
      const args = request.args;
      const fields = typeof args === "object" && args !== null && !Array.isArray(args) ? (args as Record<string, unknown>) : {};
      const part = judgeArgs(this, tool, fields, rules, parts.length === 0);
      if (part) parts.push(part);
    }
    if (parts.length === 0) {
      // Nothing judged but the confinement: a sandboxed rule for every tool (`*`) does not decide
      // a call that says nothing of what it does; one that names the tool does.
      const matched = rules.whole.filter((rule) => !rules.lifting.has(rule.id) || namesTool(rule, tool)).map((rule) => matchOf(rule, rule.decision));
      parts.push(finish({ kind: "call", subject: tool, decision: "allow", matched }, this.layering));
    }
    orderSandboxed(parts, rules);
    if (trust.boxed && !trust.confined) noteUntrusted(this.#protection.readCoversOf(tool), parts);
    if (trust.confined) sayRelied(parts, trust);
    return summarize(tool, parts, this.layering);
  }

  /** The parts of what the call declares: its commands, reads, trees, writes and network destinations; `limited`: see Trust. */
  #accessParts(access: ToolAccess | undefined, rules: ToolRules, cwd: string, limited: boolean): PolicyPart[] {
    const parts: PolicyPart[] = [];
    for (const command of access?.commands ?? []) judgeShell(this, command, rules, cwd, parts, 0, limited);
    for (const path of access?.reads ?? []) parts.push(judgePath(this, READ, path, rules.read, rules.readWhole, cwd));
    for (const path of access?.readTrees ?? []) parts.push(judgeTree(this, path, rules, cwd));
    for (const path of access?.writes ?? []) parts.push(judgePath(this, WRITE, path, rules.write, rules.writeWhole, cwd));
    if (rules.network.length > 0) for (const destination of access?.network ?? []) parts.push(...judgeNetwork(this, destination, rules));
    return parts;
  }

  /**
   * A write of a runner's recipe file (a Makefile, package.json, a justfile) by a tool that is not
   * a command: the recipes it adds are what the next build runs, judged as commands would be
   * unconfined in a trusted workspace (the build runs them later, perhaps outside any sandbox).
   */
  #recipesWritten(tool: string, writes: readonly string[], args: unknown, cwd: string): PolicyPart[] {
    const fields = typeof args === "object" && args !== null && !Array.isArray(args) ? (args as Record<string, unknown>) : {};
    const parts: PolicyPart[] = [];
    for (const write of writes) {
      const path = resolve(cwd, write);
      const written = writtenRecipes(path, fields);
      if (!written) continue;
      const { recipes, file } = written;
      if (!("commands" in recipes)) {
        parts.push({ kind: "write", subject: path, decision: "ask", matched: [], note: `${file.runner} runs the recipes of ${path}, and ${recipes.unreadable}: the policy cannot tell what the next build runs; check the file, or write it in a form the policy reads` });
        continue;
      }
      for (const command of recipes.commands) {
        const judged: PolicyPart[] = [];
        for (const name of new Set([tool, "bash"])) judgeShell(this, { command, cwd }, this.#recipeRules(name), cwd, judged);
        const said = `a recipe this call writes into ${path}, which ${file.runner} runs when the project is built or tested`;
        for (const part of judged) if (part.decision !== "allow") part.note = part.note ? `${part.note}; ${said}` : said;
        parts.push(...judged.filter((part) => part.decision !== "allow"));
      }
    }
    return parts;
  }

  /** The rules that judge a planted recipe: unconfined, in a trusted workspace. */
  #recipeRules(tool: string): ToolRules {
    const key = `recipe\0${tool}`;
    let found = this.#byTool.get(key);
    if (!found) {
      found = toolRulesOf(this.#rules, tool, false, true, this.anchors);
      this.#byTool.set(key, found);
    }
    return found;
  }

  /** A deny or ask rule that names the tool and judges what the call does not declare: the call asks, since it cannot be judged. */
  #undeclared(tool: string, access: ToolAccess | undefined, rules: ToolRules): PolicyPart[] {
    const parts: PolicyPart[] = [];
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
    return parts;
  }
}

/** In a confined call's parts, the sandbox's note names what of the confinement the decision relied on. */
function sayRelied(parts: PolicyPart[], trust: Trust): void {
  const note = liftedNote(trust);
  if (note === LIFTED) return;
  for (const part of parts) if (part.note?.includes(LIFTED)) part.note = part.note.replace(LIFTED, note);
}
