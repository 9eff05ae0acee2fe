import { type AnyAgentHarness, callDigest, type PolicyDecision, type PreparedToolCall, type ToolCall } from "@toolhost/core";
import { ownAsk } from "./_own-asks.js";

/** What was judged of a call: the decision, and the digest of its content as judged (core's `callDigest`). */
export interface Judgment {
  decision: PolicyDecision | undefined;
  digest: string | undefined;
}

/**
 * What the authorize stage would decide about a call, without running it or asking anyone: the
 * call taken through the prepare stage (`harness.prepareCall`: the tool's own spellings, the taps,
 * validation, the declared access), then judged by the `policy` service's `explain` (a dry run:
 * nothing audited), and by the ask of an AI SDK tool brought in with `fromAiSdkTools`. Without a
 * policy service, the `beforeToolCall` taps themselves are asked. Undefined when the call would end
 * before the policy (unknown tool, invalid arguments): running it gives that error.
 */
export async function judgmentOf(harness: AnyAgentHarness, call: ToolCall): Promise<Judgment> {
  const prepared = await harness.prepareCall(call);
  if (!prepared.ok) return { decision: undefined, digest: undefined };
  const { tool, args, access } = prepared;
  let digest: string | undefined;
  try {
    digest = callDigest({ name: tool.name, args, ...(access && { access }) });
  } catch {
    digest = undefined;
  }
  return { decision: await decisionFor(harness, call, prepared), digest };
}

async function decisionFor(harness: AnyAgentHarness, call: ToolCall, prepared: Extract<PreparedToolCall, { ok: true }>): Promise<PolicyDecision | undefined> {
  const { tool, args, access } = prepared;
  const policy = harness.getService("policy");
  let decision: PolicyDecision | undefined;
  if (policy !== undefined) {
    decision = (await policy.explain({ tool: call.name, args, ...(access && { access }) })).decision;
  } else if (harness.hooks.beforeToolCall.taps.length > 0) {
    try {
      const decided = await harness.hooks.beforeToolCall.promise({ toolCall: call, tool, args, ...(access && { access }), context: harness.toolContext }, new AbortController().signal);
      decision = decided === undefined ? undefined : "block" in decided ? "deny" : "ask" in decided ? "ask" : "allow";
    } catch {
      // The call will be refused when it runs (a failing check fails closed): nothing to approve.
      return "deny";
    }
  }
  if (decision === "deny" || decision === "ask") return decision;
  return (await ownAsk(tool, args, call.id)) ? "ask" : decision;
}
