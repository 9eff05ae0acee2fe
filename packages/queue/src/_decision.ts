import { type ExecuteToolCallContext, type PolicyRuleInfo, type PolicyService, policyDetailsOf } from "@toolhost/core";

/**
 * Who let a call through on the host, as the job records it (and the host signs): the verdict, the
 * taps that judged it and the one that answered, the policy's deciding rules with their layers,
 * and the approval when someone was asked. `unchecked` means nothing judged the call (a host
 * without a policy); `allow` that the taps let it through (`by` names the one that said so, if any).
 */
export interface JobDecision {
  verdict: "allow" | "approved" | "unchecked";
  /** The `beforeToolCall` taps that judged the call, in order. */
  judges?: string[];
  /** The `beforeToolCall` tap that answered (`@toolhost/hooks-policy`). */
  by?: string;
  reason?: string;
  /** The ids of the policy's rules that decided. */
  rules?: string[];
  /** The layers (and their owners) those rules belong to: the deciding layer first. */
  layers?: Array<{ layer: string; owner?: string }>;
  /** The approver that said yes, and how, when the call was asked about. */
  approval?: { answeredBy?: string; via?: string; scope?: string };
}

/**
 * The decision of a call at the execute stage, from `ctx.execution`, the names of the host's
 * `beforeToolCall` taps, and the policy's rule list (for the layers).
 */
export async function decisionOf(ctx: ExecuteToolCallContext, judges: string[], policy: PolicyService | undefined): Promise<JobDecision> {
  const { decision, approval } = ctx.execution;
  if (!decision) return judges.length === 0 ? { verdict: "unchecked" } : { verdict: "allow", judges };
  const by = "allow" in decision ? decision.allowedBy : "askedBy" in decision ? decision.askedBy : "";
  const record: JobDecision = { verdict: "allow" in decision ? "allow" : "approved", judges, by };
  if ("reason" in decision && typeof decision.reason === "string") record.reason = decision.reason;
  if (approval?.approved) {
    const { answeredBy, answer } = approval;
    record.approval = { ...(answeredBy && { answeredBy }), ...(answer?.via && { via: answer.via }), ...(answer?.scope && { scope: answer.scope }) };
  }
  const details = policyDetailsOf(decision.details);
  if (details && details.rules.length > 0) {
    record.rules = details.rules;
    const layers = await layersOf(details.rules, details.asks?.flatMap((part) => part.rules) ?? [], policy);
    if (layers.length > 0) record.layers = layers;
  }
  return record;
}

/** The layers of the rules named, from the rule infos at hand or the policy's list; the order of the rules. */
async function layersOf(ids: string[], known: PolicyRuleInfo[], policy: PolicyService | undefined): Promise<Array<{ layer: string; owner?: string }>> {
  let infos = known;
  if (ids.some((id) => !infos.some((info) => info.id === id)) && policy?.rules) {
    try {
      infos = [...infos, ...(await policy.rules())];
    } catch {
      // The record is for people reading it: a policy that cannot list its rules leaves the layers out.
    }
  }
  const layers: Array<{ layer: string; owner?: string }> = [];
  for (const id of ids) {
    const info = infos.find((candidate) => candidate.id === id);
    if (info && !layers.some((item) => item.layer === info.layer && item.owner === info.owner)) {
      layers.push({ layer: info.layer, ...(info.owner && { owner: info.owner }) });
    }
  }
  return layers;
}
