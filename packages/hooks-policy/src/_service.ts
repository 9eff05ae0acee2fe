import { resolve } from "node:path";
import { type AgentHarness, messageOf, type PolicyExplanation, type PolicyService, textOf } from "@toolhost/core";
import { ruleInfo } from "./_asking.js";
import type { Policy } from "./types.js";

/**
 * The `policy` service over a compiled policy: `explain` judges a call as the pipeline would (for
 * a tool of this harness, after its prepare stage and with the access it declares), and never
 * throws; the rest is the policy's.
 */
export function policyService(harness: AgentHarness, policy: Policy): PolicyService {
  return {
    async explain(request) {
      try {
        if (typeof request !== "object" || request === null || typeof request.tool !== "string") {
          throw new TypeError("explain takes { tool: string, args, cwd?, access? }");
        }
        const cwd = typeof request.cwd === "string" ? resolve(harness.cwd, request.cwd) : harness.cwd;
        if (request.access !== undefined || !harness.getTool(request.tool)) {
          return policy.decide({ tool: request.tool, args: request.args, cwd, ...(request.access && { access: request.access }) });
        }
        // A call of this harness's tool is judged as the pipeline would: on the arguments after the
        // tool's prepareArguments and the taps (another spelling, a prefix), with their access.
        const prepared = await harness.prepareCall({ id: "explain", name: request.tool, arguments: request.args });
        if (!prepared.ok) return denied(request.tool, `the call would end before the policy: ${textOf(prepared.result)}`);
        const access = cwd === harness.cwd ? prepared.access : await prepared.tool.access?.(prepared.args, { cwd, workspace: harness.workspace });
        return policy.decide({ tool: request.tool, args: prepared.args, cwd, ...(access && { access }) });
      } catch (error) {
        return denied(String((request as { tool?: unknown } | null)?.tool ?? ""), `policy error: ${messageOf(error)}`);
      }
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

/** An explanation that denies the whole call, for a reason outside the rules. */
function denied(tool: string, reason: string): PolicyExplanation {
  return { decision: "deny", reason, tool, rules: [], parts: [{ kind: "call", subject: tool, decision: "deny", matched: [], note: reason }] };
}
