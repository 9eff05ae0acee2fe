import { resolve } from "node:path";
import { checkValue, messageOf, type PluginContext, ToolhostError } from "@toolhost/core";
import { worst } from "./explain/_explanation.js";
import { layerSources, layersOf, type SourcedLayer } from "./layers/_layers.js";
import { type OwnedOptions, ownedOptionsOf } from "./layers/_owners.js";
import { anchorsOf, realOf } from "./paths/_paths.js";
import { type CompiledRule, compileRule, matcherText } from "./rules/_rules.js";
import { Inventory } from "./inventory/_inventory.js";
import { CompiledPolicy, type LayerPlace } from "./judge/_compiled.js";
import { type Decision, type PolicyOptions, PolicyOptionsSchema } from "./options.js";
import type { ShellKnowledge } from "./shell/_parse.js";
import { type Policy, type PolicyEnvironment, PolicyErrorCode } from "./types.js";

/**
 * Compiles options (presets and rules) into a policy. Throws a `ToolhostError` with the path of
 * the problem when a rule is invalid. With `context.layers` (every owner's options, as a host
 * passes them to the plugin), the policy is composed from those instead, as the plugin does.
 */
export function createPolicy(options: PolicyOptions, environment: PolicyEnvironment, context?: PluginContext): Policy {
  checkOptions(options);
  return compilePolicy(ownedOptionsOf(options, context, environment.workspace), environment);
}

/** What the layers add up to: every rule in order, where each stands, and the defaults. */
interface Layered {
  compiled: CompiledRule[];
  layers: Map<string, LayerPlace>;
  defaultDecision: Decision;
  defaultFrom: Policy["defaultFrom"];
  lockedDefault: Policy["lockedDefault"];
}

/**
 * The inventory with the rows the layers' `programs` add (later layers' rows win), and the programs
 * rules name. What a program is decides which rules judge it (`kind`), so below a locked layer (a
 * higher owner's floor) a row cannot say otherwise of a program the built-in table knows, as it
 * cannot of one a locked layer wrote: it is left out. Rows of programs nothing knows still teach.
 */
function knowledgeOf(layerList: readonly SourcedLayer[], compiled: readonly CompiledRule[]): ShellKnowledge {
  const lock = layerList.findIndex((layer) => layer.locked === true);
  const builtin = Inventory.builtin();
  const rows = layerList.flatMap((layer, index) =>
    Object.entries(layer.programs ?? {})
      .filter(([name]) => lock < 0 || index <= lock || builtin.lookup(name) === undefined)
      .map(([name, text]) => ({ name, text, source: layer.name, locked: layer.locked === true })),
  );
  let inventory: Inventory;
  try {
    inventory = builtin.with(rows);
  } catch (error) {
    throw new ToolhostError(
      PolicyErrorCode.INVALID_OPTIONS,
      `Invalid options for @toolhost/hooks-policy: ${messageOf(error)}. A row is KIND[:ROLE] and clauses separated by " | " (see "The program inventory" in the package README), e.g. "read-only" or "runs-code:build | sub lint=read-only".`,
    );
  }
  const named = new Set(compiled.flatMap((rule) => (rule.command?.program === undefined ? [] : [rule.command.program])));
  return { inventory, namesProgram: (program) => named.has(program) };
}

/**
 * `createPolicy` for options already checked against `PolicyOptionsSchema` (the plugin's, which
 * `harness.use` checked): checking them again would compile the schema's check at every start.
 * The owners' layers come in order (managed, user, project): each one's `extends`, then its own
 * rules; a locked layer is a floor for every layer after it, a lower owner's included.
 */
export function compilePolicy(owned: readonly OwnedOptions[], environment: PolicyEnvironment): Policy {
  const anchors = anchorsOf(environment.workspace);
  const layerList = ownersLayers(owned);
  const { compiled, layers, defaultDecision, defaultFrom, lockedDefault } = layered(layerList, anchors);
  const knowledge = knowledgeOf(layerList, compiled);
  const auditLogs = auditLogsOf(owned);
  return new CompiledPolicy({ rules: compiled, defaultDecision, defaultFrom, environment, anchors, layers, lockedDefault, sources: layerSources(layerList), knowledge, auditLogs });
}

/** Every owner's audit file, as its config names it (relative to the config's folder) and with symlinks followed. */
function auditLogsOf(owned: readonly OwnedOptions[]): string[] {
  const files = owned.flatMap((each) => (each.options.audit === undefined ? [] : [resolve(each.folder, each.options.audit)]));
  return [...new Set(files.flatMap((file) => [file, realOf(file)]))];
}

/** Each owner's layers in order: its `extends`, then its own rules, marked with the owner (and all locked when it says `locked`). */
function ownersLayers(owned: readonly OwnedOptions[]): SourcedLayer[] {
  const list: SourcedLayer[] = [];
  for (const each of owned) {
    const { options } = each;
    const own: SourcedLayer = { name: "config", rules: options.rules ?? [], own: true, ...(options.default && { default: options.default }), ...(options.programs && { programs: options.programs }) };
    if (each.file !== undefined) own.source = each.file;
    const scope = { folder: each.folder, trusted: each.trusted, trust: each.trust, file: each.file };
    for (const layer of [...layersOf(options, scope), own]) {
      list.push({ ...layer, ...(each.owner !== undefined && { owner: each.owner }), ...(options.locked === true && { locked: true }) });
    }
  }
  return list;
}

function layered(layerList: SourcedLayer[], anchors: ReturnType<typeof anchorsOf>): Layered {
  const result: Layered = { compiled: [], layers: new Map(), defaultDecision: "ask", defaultFrom: undefined, lockedDefault: undefined };
  let floor: Decision = "allow";
  let floorFrom: Layered["defaultFrom"];
  layerList.forEach((layer, index) => {
    const owner = layer.owner !== undefined ? { owner: layer.owner } : {};
    const from = { layer: layer.name, ...owner, ...(layer.source ? { source: layer.source } : {}) };
    const place = { index, locked: layer.locked === true, name: layer.name, ...owner, ...(layer.source ? { source: layer.source } : {}), ...(layer.preset ? { preset: true } : {}) };
    if (layer.default) {
      result.defaultDecision = worst(layer.default, floor);
      result.defaultFrom = result.defaultDecision === layer.default ? from : floorFrom;
    }
    if (layer.locked && layer.default && worst(floor, layer.default) !== floor) [floor, floorFrom] = [layer.default, from];
    if (layer.locked && layer.default && layer.default !== "allow") result.lockedDefault ??= from;
    layer.rules.forEach((rule, at) => {
      const id = uniqueId(rule.id ?? generatedId(layer, at), layer, result.layers);
      result.compiled.push(compileRule(rule, id, anchors, ruleWhere(layer, at)));
      // Written out only for an explanation that names the rule.
      let label: string | undefined;
      result.layers.set(id, {
        ...place,
        get label() {
          label ??= `${layerLabel(layer)} › ${matcherText(rule)} (${rule.id ?? `rules[${at}]`})`;
          return label;
        },
      });
    });
  });
  result.compiled.forEach((rule, order) => {
    rule.order = order;
  });
  return result;
}

/** An owner other than the project's prefixes the ids it does not write: `user:rules[0]`, `managed:org:rules[2]`. */
function ownerPrefix(layer: SourcedLayer): string {
  return layer.owner !== undefined && layer.owner !== "project" ? `${layer.owner}:` : "";
}

function generatedId(layer: SourcedLayer, at: number): string {
  return layer.own ? `${ownerPrefix(layer)}rules[${at}]` : `${ownerPrefix(layer)}${layer.name}:rules[${at}]`;
}

/** Decisions name rules by id, so an id two layers use is told apart by the later one's layer: `team:no-rm`. */
function uniqueId(wanted: string, layer: SourcedLayer, used: ReadonlyMap<string, unknown>): string {
  if (!used.has(wanted)) return wanted;
  const qualified = `${ownerPrefix(layer)}${layer.name}:${wanted}`;
  if (!used.has(qualified)) return qualified;
  let n = 2;
  while (used.has(`${qualified}#${n}`)) n++;
  return `${qualified}#${n}`;
}

/** Where a rule is, for the error of an invalid one: `rules[3]`, `team rules[0]`, with the file of an owner's config. */
function ruleWhere(layer: SourcedLayer, at: number): string {
  const where = layer.own ? `rules[${at}]` : `${layer.name} rules[${at}]`;
  return layer.owner !== undefined && layer.owner !== "project" ? `${where}${layerOrigin(layer)}` : where;
}

/** ` (the user's config, /home/u/.config/toolhost/team.yaml)`: whose the layer is and its file, for messages. */
function layerOrigin(layer: SourcedLayer): string {
  const parts = [layer.owner !== undefined ? `the ${layer.owner}'s config` : undefined, layer.source].filter((part) => part !== undefined);
  return parts.length > 0 ? ` (${parts.join(", ")})` : "";
}

/** A layer as decisions name it: `org (locked)`, `config (user)`, `org (managed, locked)`. */
function layerLabel(layer: SourcedLayer): string {
  const tags = [layer.owner !== undefined && layer.owner !== "project" ? layer.owner : undefined, layer.locked ? "locked" : undefined].filter((tag) => tag !== undefined);
  return tags.length > 0 ? `${layer.name} (${tags.join(", ")})` : layer.name;
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
