import type { AgentHarness, PolicyExplanation, ToolAccess } from "@toolhost/core";
import { ToolhostError } from "@toolhost/core";
import { preview } from "./_explanation.js";
import { explainCall } from "./_service.js";
import type { ExampleCall } from "../options.js";
import { type EffectiveRule, type Policy, PolicyErrorCode } from "../types.js";

/*
 * A rule's `examples`, checked when the policy loads: each `match` call must be decided by the
 * whole policy (every layer, every owner) as the rule says, with the rule among those that
 * decided; each `notMatch` call must not be. A call of a tool no plugin has registered yet (the
 * policy was applied before it) is checked at the first call or explanation instead, and until it
 * passes every call is refused.
 */

interface Example {
  rule: EffectiveRule;
  kind: "match" | "notMatch";
  index: number;
  call: ExampleCall;
}

/** The examples of a policy: those checked at load, and those left for the first use. */
export class ExampleChecks {
  #deferred: Example[] = [];
  #settled: Promise<void> | undefined;
  #passed = false;

  constructor(
    private readonly policy: Policy,
    private readonly harness: AgentHarness,
  ) {}

  /** Checks every example whose tool is there (or that gives its access); throws a `ToolhostError` listing each that fails. */
  async atLoad(): Promise<void> {
    const all = this.policy.rules.flatMap(examplesOf);
    const now = all.filter((example) => example.call.access !== undefined || this.harness.getTool(example.call.tool) !== undefined);
    this.#deferred = all.filter((example) => !now.includes(example));
    this.#passed = this.#deferred.length === 0;
    await this.#check(now, false);
  }

  /** Whether examples are left to check at the first use. */
  get pending(): boolean {
    return !this.#passed;
  }

  /** The deferred examples, checked once; rejects (every time) with their failures. Undefined when none are left. */
  settle(): Promise<void> | undefined {
    if (this.#passed) return undefined;
    this.#settled ??= this.#check(this.#deferred, true).then(() => {
      this.#passed = true;
    });
    return this.#settled;
  }

  async #check(examples: readonly Example[], late: boolean): Promise<void> {
    const failures: string[] = [];
    for (const example of examples) {
      const failure = await this.#failureOf(example, late);
      if (failure !== undefined) failures.push(failure);
    }
    if (failures.length === 0) return;
    const shown = failures.slice(0, 10).map((text) => `  - ${text}`);
    if (failures.length > 10) shown.push(`  (and ${failures.length - 10} more)`);
    throw new ToolhostError(
      PolicyErrorCode.EXAMPLE_FAILED,
      `The examples of @toolhost/hooks-policy's rules are not decided as they say:\n${shown.join("\n")}\nFix the rule, or the example (see "toolhost policy explain" for how the policy decides a call).`,
    );
  }

  async #failureOf(example: Example, late: boolean): Promise<string | undefined> {
    const { rule, call } = example;
    const where = `${example.kind}[${example.index}] of rule ${rule.id} (${[rule.layer, rule.owner, rule.source].filter((each) => each !== undefined).join(", ")})`;
    const shown = preview({ tool: call.tool, args: call.args ?? {} });
    if (late && call.access === undefined && this.harness.getTool(call.tool) === undefined) {
      return `${where}: ${shown} calls the tool "${call.tool}", which this host does not have. Name a tool of the config, or give the example's "access".`;
    }
    const request = { tool: call.tool, args: call.args ?? {}, ...(call.cwd !== undefined && { cwd: call.cwd }), ...(call.access !== undefined && { access: call.access as ToolAccess }) };
    const { explanation, ended } = await explainCall(this.harness, this.policy, request);
    if (ended !== undefined) return `${where}: ${shown} is not a call the policy judges: ${ended}`;
    const decides = decidedBy(explanation, rule);
    if (example.kind === "match" && !decides) return `${where}: ${shown} should be decided ${rule.decision} by this rule, but is decided ${explanation.decision}: ${explanation.reason}`;
    if (example.kind === "notMatch" && decides) return `${where}: ${shown} should not be decided by this rule, but is (${explanation.decision}): ${explanation.reason}`;
    return undefined;
  }
}

/** Whether the call's decision is the rule's, and the rule decided it (or agreed with the rule that did) in a deciding part. */
function decidedBy(explanation: PolicyExplanation, rule: EffectiveRule): boolean {
  if (explanation.decision !== rule.decision) return false;
  return explanation.parts.some(
    (part) => part.decision === explanation.decision && part.matched.some((entry) => entry.id === rule.id && (entry.role === "decided" || entry.role === "agreed")),
  );
}

function examplesOf(rule: EffectiveRule): Example[] {
  const examples = rule.examples;
  if (examples === undefined) return [];
  const of = (kind: Example["kind"]) => (examples[kind] ?? []).map((call, index) => ({ rule, kind, index, call }));
  return [...of("match"), ...of("notMatch")];
}
