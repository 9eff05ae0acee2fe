import { createRequire } from "node:module";
import { resolve } from "node:path";
import { type AgentHarness, type BeforeToolCallResult, definePlugin, messageOf, type PluginContext, type ToolCallContext } from "@toolhost/core";
import { policyDetails } from "./_asking.js";
import { AuditLog } from "./_audit.js";
import { policyService } from "./_service.js";
import { DEFAULT_REDACT_ENV, type PolicyOptions, PolicyOptionsSchema } from "./options.js";
import { compilePolicy } from "./policy.js";
import { Redactor } from "./redaction.js";
import type { Policy } from "./types.js";

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
  apply(harness: AgentHarness, options: PolicyOptions, context: PluginContext) {
    const policy = compilePolicy(options, { cwd: harness.cwd, workspace: harness.workspace, trustedWorkspace: trustedWorkspace(context) });
    const redactor = new Redactor(options.redact ?? [], options.redactBuiltins ?? true, { names: options.redactEnv ?? DEFAULT_REDACT_ENV });
    harness.provideService(POLICY_SERVICE, policyService(harness, policy));
    // The audit log is an outward channel too: its reasons quote commands, so they pass through
    // the same redaction as everything else (every tap of `redact`, not only this plugin's).
    const audit = options.audit ? new AuditLog(resolve(harness.workspace, options.audit), (text) => harness.hooks.redact.call(text)) : undefined;
    harness.hooks.beforeToolCall.tapPromise(PLUGIN_NAME, (ctx) => decideCall(policy, audit, ctx));
    if (redactor.active) harness.hooks.redact.tap(PLUGIN_NAME, (text) => redactor.text(text));
    // The policy files and packages of `extends`: a long-lived host reloads when one changes.
    return { sources: policy.sources };
  },
});

/**
 * Whether the workspace is trusted to run its own code: the project's config that names the
 * plugin is of a folder the user trusts (core's `PluginLayer.trusted`). Applied from code, with no
 * layers, it is not.
 */
function trustedWorkspace(context: PluginContext | undefined): boolean {
  return context?.layers?.some((layer) => layer.owner === "project" && layer.trusted === true) ?? false;
}

/**
 * The calls whose sandbox sends its connections through a proxy, by the call: a later decision of
 * the same call that names only network destinations is a connection its proxy asks about
 * (`ToolExecution.authorize`), judged by `decideConnection`.
 */
const proxied = new WeakMap<object, true>();

/** The policy's answer to one call, recorded in the audit log first (a call whose decision cannot be recorded is refused). */
async function decideCall(policy: Policy, audit: AuditLog | undefined, ctx: ToolCallContext): Promise<BeforeToolCallResult | undefined> {
  const tool = ctx.tool.name;
  const request = { tool, args: ctx.args, ...(ctx.access && { access: ctx.access }) };
  const explanation = isConnection(ctx) ? policy.decideConnection(request) : policy.decide(request);
  if (ctx.access?.confinement?.network === "proxy") proxied.set(ctx.toolCall, true);
  if (audit) {
    try {
      await audit.record(tool, ctx.args, explanation);
    } catch (error) {
      return { block: true, reason: `policy error: could not write the audit log ${audit.file} (${messageOf(error)}), so the call was refused. Fix the file's folder or permissions, or remove "audit" from the policy options.` };
    }
  }
  if (explanation.decision === "allow") return undefined;
  const details = { policy: policyDetails(explanation, policy) };
  return explanation.decision === "deny" ? { block: true, reason: explanation.reason, details } : { ask: true, reason: explanation.reason, details };
}

/** A decision of a call already decided, whose sandbox proxies its network, about network destinations only. */
function isConnection(ctx: ToolCallContext): boolean {
  const access = ctx.access;
  if (!access || !proxied.has(ctx.toolCall) || (access.network?.length ?? 0) === 0) return false;
  return [access.commands, access.reads, access.writes, access.readTrees].every((list) => (list?.length ?? 0) === 0);
}

export default plugin;
