import { checkValue, messageOf, ToolhostError } from "@toolhost/core";
import { worst } from "./_explanation.js";
import { layerSources, layersOf, type SourcedLayer } from "./_layers.js";
import { anchorsOf } from "./_paths.js";
import { type CompiledRule, compileRule, matcherText } from "./_rules.js";
import { Inventory } from "./inventory/_inventory.js";
import { CompiledPolicy, type LayerPlace } from "./judge/_compiled.js";
import { type Decision, type PolicyOptions, PolicyOptionsSchema } from "./options.js";
import type { ShellKnowledge } from "./shell/_parse.js";
import { type Policy, type PolicyEnvironment, PolicyErrorCode } from "./types.js";

/**
 * Compiles options (presets and rules) into a policy. Throws a `ToolhostError` with the path of
 * the problem when a rule is invalid.
 */
export function createPolicy(options: PolicyOptions, environment: PolicyEnvironment): Policy {
  checkOptions(options);
  return compilePolicy(options, environment);
}

/** What the layers add up to: every rule in order, where each stands, and the defaults. */
interface Layered {
  compiled: CompiledRule[];
  layers: Map<string, LayerPlace>;
  defaultDecision: Decision;
  lockedDefault: Policy["lockedDefault"];
}

/** The inventory with the rows the layers' `programs` add (later layers' rows win), and the programs rules name. */
function knowledgeOf(layerList: readonly SourcedLayer[], compiled: readonly CompiledRule[]): ShellKnowledge {
  const rows = layerList.flatMap((layer) => Object.entries(layer.programs ?? {}).map(([name, text]) => ({ name, text, source: layer.name, locked: layer.locked === true })));
  let inventory: Inventory;
  try {
    inventory = Inventory.builtin().with(rows);
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
 */
export function compilePolicy(options: PolicyOptions, environment: PolicyEnvironment): Policy {
  const anchors = anchorsOf(environment.workspace);
  const layerList: SourcedLayer[] = layersOf(options, environment.workspace);
  layerList.push({ name: "config", rules: options.rules ?? [], ...(options.default ? { default: options.default } : {}), ...(options.programs ? { programs: options.programs } : {}) });
  const { compiled, layers, defaultDecision, lockedDefault } = layered(layerList, anchors);
  const knowledge = knowledgeOf(layerList, compiled);
  return new CompiledPolicy({ rules: compiled, defaultDecision, environment, anchors, layers, lockedDefault, sources: layerSources(layerList), knowledge });
}

function layered(layerList: SourcedLayer[], anchors: ReturnType<typeof anchorsOf>): Layered {
  const result: Layered = { compiled: [], layers: new Map(), defaultDecision: "ask", lockedDefault: undefined };
  let floor: Decision = "allow";
  layerList.forEach((layer, index) => {
    const own = index === layerList.length - 1;
    const place = { index, locked: layer.locked === true, name: layer.name, ...(layer.source ? { source: layer.source } : {}) };
    if (layer.default) result.defaultDecision = worst(layer.default, floor);
    if (layer.locked && layer.default) floor = worst(floor, layer.default);
    if (layer.locked && layer.default && layer.default !== "allow") result.lockedDefault ??= { layer: layer.name, ...(layer.source ? { source: layer.source } : {}) };
    layer.rules.forEach((rule, at) => {
      const id = rule.id ?? (own ? `rules[${at}]` : `${layer.name}:rules[${at}]`);
      result.compiled.push(compileRule(rule, id, anchors, own ? `rules[${at}]` : `${layer.name} rules[${at}]`));
      if (result.layers.has(id)) return;
      // Written out only for an explanation that names the rule.
      let label: string | undefined;
      result.layers.set(id, {
        ...place,
        get label() {
          label ??= `${layer.name}${layer.locked ? " (locked)" : ""} › ${matcherText(rule)} (${rule.id ?? `rules[${at}]`})`;
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
