import type { Attributes } from "@opentelemetry/api";
import { type AgentEvent, type AnyAgentHarness, type PolicyRuleInfo, policyDetailsOf } from "@toolhost/core";
import { ToolhostAttributes as A } from "./names.js";

type DecisionEvent = Extract<AgentEvent, { type: "tool_execution_decision" }>;

/**
 * The layer of each rule id of the harness's policy (`PolicyService.rules`), read once: a denied or
 * allowed call's details name rule ids only, and an operator filters by layer (`org`, `config`).
 */
export class RuleLayers {
  #layers: Map<string, string> | undefined;
  #loading: Promise<void> | undefined;
  #lookedAtCall = false;

  constructor(private readonly harness: AnyAgentHarness) {}

  /**
   * At the first call, for a policy applied after this plugin: starts reading its rules. Once only,
   * so later calls pay nothing.
   */
  loadAtFirstCall(): void {
    if (this.#lookedAtCall) return;
    this.#lookedAtCall = true;
    void this.load();
  }

  /** Starts reading the rules when a policy service is there. */
  load(): Promise<void> {
    if (this.#loading) return this.#loading;
    const service = this.harness.getService("policy");
    if (service?.rules === undefined) return Promise.resolve();
    this.#loading = Promise.resolve()
      .then(() => service.rules?.() ?? [])
      .then(
        (list: PolicyRuleInfo[]) => {
          this.#layers = new Map(list.map((rule) => [rule.id, rule.layer]));
        },
        () => {
          this.#layers = new Map();
        },
      );
    return this.#loading;
  }

  /** The layers of these rule ids, each once, in order; undefined while they are not known yet. */
  of(ids: readonly string[]): string[] | undefined {
    if (this.#layers === undefined) return undefined;
    const found: string[] = [];
    for (const id of ids) {
      const layer = this.#layers.get(id);
      if (layer !== undefined && !found.includes(layer)) found.push(layer);
    }
    return found;
  }
}

/** A decision as attributes: the outcome, who decided, the rules and their layers, the approval. */
export function decisionAttributes(event: DecisionEvent, layers: RuleLayers, captureContent: boolean): Attributes {
  const attributes: Attributes = { [A.DECISION]: event.decision };
  if (event.by !== undefined) attributes[A.DECISION_BY] = event.by;
  if (captureContent && event.reason !== undefined) attributes[A.DECISION_REASON] = event.reason;
  const policy = policyDetailsOf(event.details);
  if (policy !== undefined) {
    attributes[A.DECISION_RULES] = policy.rules;
    const fromAsks = policy.asks?.flatMap((part) => part.rules.map((rule) => rule.layer)) ?? [];
    const known = layers.of(policy.rules) ?? [];
    const all = [...new Set([...known, ...fromAsks])];
    if (all.length > 0) attributes[A.DECISION_LAYERS] = all;
    if (policy.asks?.some((part) => part.locked) === true) attributes[A.APPROVAL_LOCKED] = true;
  }
  const { approval } = event;
  if (approval !== undefined) {
    attributes[A.APPROVAL_ASKED] = true;
    attributes[A.APPROVAL_APPROVED] = approval.approved;
    if (approval.answeredBy !== undefined) attributes[A.APPROVAL_ANSWERED_BY] = approval.answeredBy;
    if (typeof approval.answer?.via === "string") attributes[A.APPROVAL_VIA] = approval.answer.via;
    if (typeof approval.answer?.scope === "string") attributes[A.APPROVAL_SCOPE] = approval.answer.scope;
  }
  if (event.access !== undefined) attributes[A.DECISION_FOLLOW_UP] = true;
  return attributes;
}
