import { createRequire } from "node:module";
import { resolve } from "node:path";
import { type AgentHarness, type AgentToolResult, definePlugin, messageOf, type PolicyService } from "@toolhost/core";
import { AuditLog } from "./_audit.js";
import { askingParts, compilePolicy, matcherText, type Policy, type PolicyExplanation } from "./_policy.js";
import { Redactor } from "./_redact.js";
import { DEFAULT_REDACT_ENV, type PolicyOptions, PolicyOptionsSchema } from "./_schema.js";

const { version } = createRequire(import.meta.url)("../package.json") as { version: string };

/** The plugin's name: the name of its taps, and `blockedBy` / `askedBy` of the calls it stops. */
export const PLUGIN_NAME = "@toolhost/hooks-policy";

/** The name of the service the plugin provides (`harness.getService<PolicyService>("policy")`). */
export const POLICY_SERVICE = "policy";

/**
 * Decides every call before it runs (`beforeToolCall`: allow, ask, deny) from what its tool
 * declares it touches (`ctx.access`) and its arguments, masks secrets in every text that leaves
 * the kernel (`redact`), records decisions in the audit file, and offers `explain`,
 * `protectedPaths` and `deniedReads` as the `policy` service.
 */
const plugin = definePlugin({
  name: PLUGIN_NAME,
  version,
  options: PolicyOptionsSchema,
  apply(harness: AgentHarness, options: PolicyOptions) {
    const policy = compilePolicy(options, { cwd: harness.cwd, workspace: harness.workspace });
    const redactor = new Redactor(options.redact ?? [], options.redactBuiltins ?? true, {
      names: options.redactEnv ?? DEFAULT_REDACT_ENV,
    });
    // The audit log is an outward channel too: its reasons quote commands, so they pass through
    // the same redaction as everything else (every tap of `redact`, not only this plugin's).
    const audit = options.audit
      ? new AuditLog(resolve(harness.workspace, options.audit), (text) => harness.hooks.redact.call(text))
      : undefined;

    const service: PolicyService = {
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
        return policy.rules.map((rule) => ({
          id: rule.id,
          layer: rule.layer,
          locked: rule.locked,
          ...(rule.source ? { source: rule.source } : {}),
          decision: rule.decision,
          matcher: matcherText(rule),
          tool: [rule.tool ?? "*"].flat().join(", "),
        }));
      },
    };
    harness.provideService(POLICY_SERVICE, service);

    harness.hooks.beforeToolCall.tapPromise(PLUGIN_NAME, async (ctx) => {
      const tool = ctx.tool.name;
      const explanation = policy.decide({ tool, args: ctx.args, ...(ctx.access && { access: ctx.access }) });
      if (audit) {
        try {
          await audit.record(tool, ctx.args, explanation);
        } catch (error) {
          return { block: true, reason: `policy error: could not write the audit log ${audit.file} (${messageOf(error)}), so the call was refused. Fix the file's folder or permissions, or remove "audit" from the policy options.` };
        }
      }
      if (explanation.decision === "allow") return undefined;
      const details = { policy: brief(explanation, policy) };
      return explanation.decision === "deny"
        ? { block: true, reason: explanation.reason, details }
        : { ask: true, reason: explanation.reason, details };
    });

    if (redactor.active) {
      harness.hooks.redact.tap(PLUGIN_NAME, (text) => redactor.text(text));
    }
    // The policy files and packages of `extends`: a long-lived host reloads when one changes.
    return { sources: policy.sources };
  },
});

/** An explanation that denies the whole call, for a reason outside the rules. */
function denied(tool: string, reason: string): PolicyExplanation {
  return { decision: "deny", reason, tool, rules: [], parts: [{ kind: "call", subject: tool, decision: "deny", matched: [], note: reason }] };
}

function textOf(result: AgentToolResult): string {
  return result.content.map((block) => (block.type === "text" ? block.text : `[${block.type}]`)).join("\n");
}

const MAX_PARTS_IN_DETAILS = 100;

/**
 * What a refused result carries: the parts that decided first, so a huge command does not make a
 * huge result; for an ask, `asks`: each asking part with its rules' layers and locks (`AskingPart`),
 * which approvers read.
 */
function brief(explanation: PolicyExplanation, policy: Policy): Record<string, unknown> {
  const { decision, rules, parts } = explanation;
  const asking = decision === "ask" ? parts.filter((part) => part.decision === "ask").length : 0;
  // An approver must see every asking part, or know that some were left out (and refuse).
  const asks = decision === "ask" ? { asks: askingParts(policy, explanation, MAX_PARTS_IN_DETAILS), ...(asking > MAX_PARTS_IN_DETAILS && { asksOmitted: asking - MAX_PARTS_IN_DETAILS }) } : {};
  if (parts.length <= MAX_PARTS_IN_DETAILS) return { decision, rules, parts, ...asks };
  const deciding = parts.filter((part) => part.decision === decision).slice(0, MAX_PARTS_IN_DETAILS);
  return { decision, rules, parts: deciding, partsOmitted: parts.length - deciding.length, ...asks };
}

export default plugin;
