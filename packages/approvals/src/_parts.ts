import { type AskingPart, policyDetailsOf } from "@toolhost/core";
import type { AskingPartView } from "./wire.js";

/**
 * The parts a policy asks about, as the page names them, read from the ask's own details (core's
 * `PolicyDetails`): the page derives them from the same details "always" writes its rules from.
 */
export function partsOf(details: Record<string, unknown> | undefined): { parts: AskingPartView[]; omitted: boolean } {
  const policy = policyDetailsOf(details);
  return { parts: (policy?.asks ?? []).map(partView), omitted: (policy?.asksOmitted ?? 0) > 0 };
}

function partView(part: AskingPart): AskingPartView {
  return {
    kind: part.kind,
    subject: part.subject,
    locked: part.locked,
    rules: part.rules.map((rule) => ({
      id: rule.id,
      layer: rule.layer,
      ...(rule.owner !== undefined && { owner: rule.owner }),
      matcher: rule.matcher,
      decision: rule.decision,
      locked: rule.locked,
      ...(rule.source !== undefined && { source: rule.source }),
    })),
  };
}
