import { resolve } from "node:path";
import { type AgentHarness, messageOf, type PolicyExplanation, type PolicyRequest, type PolicyService, textOf } from "@toolhost/core";
import { askingParts, MAX_PARTS_IN_DETAILS, ruleInfo } from "./_asking.js";
import { judgeMissingPath } from "./_missing-path.js";
import type { Policy } from "../types.js";

/** An explanation, and whether the call would end before the policy judged it (so it was not judged). */
export interface Explained {
  explanation: PolicyExplanation;
  /** Why the call would end before the policy (the pipeline's words); undefined when it was judged. */
  ended?: string;
}

/**
 * The `policy` service over a compiled policy: `explain` judges a call as the pipeline would (for
 * a tool of this harness, after its prepare stage and with the access it declares), and never
 * throws; the rest is the policy's. `ready`, when given, is awaited before each explanation (the
 * rules' examples that could not be checked at load), and its failure denies.
 */
export function policyService(harness: AgentHarness, policy: Policy, ready?: () => Promise<void> | undefined): PolicyService {
  return {
    async explain(request) {
      try {
        await ready?.();
      } catch (error) {
        return denied(String((request as { tool?: unknown } | null)?.tool ?? ""), messageOf(error));
      }
      return withAsks((await explainCall(harness, policy, request)).explanation, policy);
    },
    async protectedPaths(root, options) {
      return policy.protectedPaths(root, options);
    },
    async deniedReads(request) {
      return policy.deniedReads(request);
    },
    async rules() {
      return policy.rules.map(ruleInfo);
    },
  };
}

/** For an ask, the asking parts an approver would read in the ask's details (core's `AskingPart`), the default's asks included. */
function withAsks(explanation: PolicyExplanation, policy: Policy): PolicyExplanation {
  if (explanation.decision !== "ask") return explanation;
  const asking = explanation.parts.filter((part) => part.decision === "ask").length;
  const asks = askingParts(policy, explanation, MAX_PARTS_IN_DETAILS);
  return { ...explanation, asks, ...(asking > MAX_PARTS_IN_DETAILS && { asksOmitted: asking - MAX_PARTS_IN_DETAILS }) };
}

/**
 * Judges a call without running it. The call's access is `request.access` when given (another
 * host's call). Else, for a tool of this harness, the call goes through the pipeline's prepare stage
 * first, so the policy judges what a real call would hand it. A call the tool refuses because a
 * path it names does not exist yet is judged by that path, and says so; any other call that would
 * end before the policy is a deny saying why. Never throws.
 */
export async function explainCall(harness: AgentHarness, policy: Policy, request: PolicyRequest): Promise<Explained> {
  try {
    if (typeof request !== "object" || request === null || typeof request.tool !== "string") {
      throw new TypeError("explain takes { tool: string, args, cwd?, access? }");
    }
    const cwd = typeof request.cwd === "string" ? resolve(harness.cwd, request.cwd) : harness.cwd;
    // Connections a proxy would ask about: judged as its questions are, whatever tool is named.
    if (request.connection === true) return { explanation: policy.decideConnection({ tool: request.tool, args: request.args, cwd, ...(request.access && { access: request.access }) }) };
    if (request.access !== undefined || !harness.getTool(request.tool)) {
      return { explanation: policy.decide({ tool: request.tool, args: request.args, cwd, ...(request.access && { access: request.access }) }) };
    }
    // A call of this harness's tool is judged as the pipeline would: on the arguments after the
    // tool's prepareArguments and the taps (another spelling, a prefix), with their access.
    const prepared = await harness.prepareCall({ id: "explain", name: request.tool, arguments: request.args });
    if (!prepared.ok) {
      const missing = await judgeMissingPath(harness, policy, { tool: request.tool, args: request.args, cwd }, prepared.result);
      if (missing) return { explanation: missing };
      const ended = `the call would end before the policy: ${textOf(prepared.result)}`;
      return { explanation: denied(request.tool, ended), ended };
    }
    const access = cwd === harness.cwd ? prepared.access : await prepared.tool.access?.(prepared.args, { cwd, workspace: harness.workspace });
    return { explanation: policy.decide({ tool: request.tool, args: prepared.args, cwd, ...(access && { access }) }) };
  } catch (error) {
    const ended = `policy error: ${messageOf(error)}`;
    return { explanation: denied(String((request as { tool?: unknown } | null)?.tool ?? ""), ended), ended };
  }
}

/** An explanation that denies the whole call, for a reason outside the rules. */
function denied(tool: string, reason: string): PolicyExplanation {
  return { decision: "deny", reason, tool, rules: [], parts: [{ kind: "call", subject: tool, decision: "deny", matched: [], note: reason }] };
}
