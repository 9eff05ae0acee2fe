import type { AskingPart, PolicyDetails, PolicyExplanation, PolicyRuleInfo } from "@toolhost/core";
import { matcherText } from "../rules/_rules.js";
import type { EffectiveRule, Policy } from "../types.js";

/*
 * What the policy puts in `details.policy` of its answers (core's `PolicyDetails`): the parts that
 * decided, and for an ask each asking part with the layer and lock of every rule that asked, which
 * approvers read without importing this package.
 */

/** How many parts (and asking parts) go in the details of one answer; the rest are counted. */
export const MAX_PARTS_IN_DETAILS = 100;

/** A rule in force as `PolicyService.rules` lists it and an asking part names it. */
export function ruleInfo(rule: EffectiveRule): PolicyRuleInfo {
  return {
    id: rule.id,
    layer: rule.layer,
    ...(rule.owner ? { owner: rule.owner } : {}),
    locked: rule.locked,
    ...(rule.source ? { source: rule.source } : {}),
    decision: rule.decision,
    matcher: matcherText(rule),
    tool: [rule.tool ?? "*"].flat().join(", "),
  };
}

/**
 * What a refused or asked call carries: the parts that decided first, so a huge command does not
 * make a huge result; for an ask, `asks`: each asking part with its rules' layers and locks.
 */
export function policyDetails(explanation: PolicyExplanation, policy: Policy): PolicyDetails {
  const { decision, rules, parts } = explanation;
  if (decision === "allow") return allowedDetails(explanation);
  const asking = decision === "ask" ? parts.filter((part) => part.decision === "ask").length : 0;
  // An approver must see every asking part, or know that some were left out (and refuse).
  const asks =
    decision === "ask" ? { asks: askingParts(policy, explanation, MAX_PARTS_IN_DETAILS), ...(asking > MAX_PARTS_IN_DETAILS && { asksOmitted: asking - MAX_PARTS_IN_DETAILS }) } : {};
  if (parts.length <= MAX_PARTS_IN_DETAILS) return { decision, rules, parts, ...asks };
  const deciding = parts.filter((part) => part.decision === decision).slice(0, MAX_PARTS_IN_DETAILS);
  return { decision, rules, parts: deciding, partsOmitted: parts.length - deciding.length, ...asks };
}

/**
 * What an allowed call carries (the decision event, the spans made from it): the ids of the rules
 * that allowed it, each naming one rule, whose layer, owner and file `PolicyService.rules` gives;
 * the parts are counted, not listed. Every allowed call pays for this record (the kernel redacts
 * every text of the event), and parts cost a fifth more a call (bench/policy-pipeline).
 */
function allowedDetails({ rules, parts }: PolicyExplanation): PolicyDetails {
  return { decision: "allow", rules, parts: [], partsOmitted: parts.length };
}

/** The parts of an asking call that ask, with the layer and lock of each rule that asked. */
export function askingParts(policy: Policy, explanation: PolicyExplanation, limit: number): AskingPart[] {
  const byId = new Map(policy.rules.map((rule) => [rule.id, rule]));
  return explanation.parts
    .filter((part) => part.decision === "ask")
    .slice(0, limit)
    .map((part) => {
      const say = part.matched.filter((entry) => entry.decision !== "allow").map((entry) => byId.get(entry.id));
      const rules = part.matched.filter((entry) => entry.decision === "ask").map((entry): PolicyRuleInfo => {
        const rule = byId.get(entry.id);
        return rule ? ruleInfo(rule) : { id: entry.id, decision: "ask", layer: "config", locked: false, matcher: entry.id, tool: "*" };
      });
      const lockedRule = say.find((rule) => rule?.locked === true);
      // A part no rule asked about asks by the default or an uncertainty: a locked default holds it.
      const lockedBy = lockedRule
        ? { layer: lockedRule.layer, ...(lockedRule.owner ? { owner: lockedRule.owner } : {}), ...(lockedRule.source ? { source: lockedRule.source } : {}) }
        : rules.length === 0
          ? policy.lockedDefault
          : undefined;
      return { kind: part.kind, subject: part.subject, rules, locked: lockedBy !== undefined, ...(lockedBy && { lockedBy }), ...(part.note && { note: part.note }) };
    });
}
