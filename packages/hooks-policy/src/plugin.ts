import { createRequire } from "node:module";
import { type AgentHarness, type BeforeToolCallResult, definePlugin, messageOf, type PluginContext, type PluginReport, type ToolCallContext } from "@toolhost/core";
import { policyDetails } from "./explain/_asking.js";
import { AuditLog, auditFilesOf } from "./audit/_audit.js";
import { decisionLine, recordOutcomes } from "./audit/_audit-lines.js";
import { ExampleChecks } from "./explain/_examples.js";
import { composedRedaction, ownedOptionsOf } from "./layers/_owners.js";
import { policyService } from "./explain/_service.js";
import { type PolicyOptions, PolicyOptionsSchema } from "./options.js";
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
 * the kernel (`redact`), records decisions and the answers to asks in the audit files, and offers
 * `explain`, `protectedPaths`, `deniedReads` and `rules` as the `policy` service. Configured by
 * several owners (`context.layers`: managed, user, project), it composes them: each one's rules
 * as layers in that order, each one's redaction and audit file together.
 */
const plugin = definePlugin({
  name: PLUGIN_NAME,
  version,
  options: PolicyOptionsSchema,
  async apply(harness: AgentHarness, options: PolicyOptions, context: PluginContext): Promise<PluginReport> {
    const owned = ownedOptionsOf(options, context, harness.workspace);
    const policy = compilePolicy(owned, { cwd: harness.cwd, workspace: harness.workspace, trustedWorkspace: trustedWorkspace(context) });
    const redaction = composedRedaction(owned);
    const redactor = new Redactor(redaction.redact, redaction.builtins, { names: redaction.env });
    const examples = new ExampleChecks(policy, harness);
    harness.provideService(POLICY_SERVICE, policyService(harness, policy, () => examples.settle()));
    const files = auditFilesOf(owned, harness.workspace);
    // The audit log is an outward channel too: its lines quote commands, so they pass through the
    // same redaction as everything else (every tap of `redact`, not only this plugin's).
    const audit = files.length > 0 ? new AuditLog(files, (text) => harness.hooks.redact.call(text)) : undefined;
    await examples.atLoad();
    if (audit || examples.pending) {
      const decide = audit ? (ctx: ToolCallContext) => decideAudited(policy, audit, ctx) : (ctx: ToolCallContext) => answerOf(policy, decideOne(policy, ctx));
      harness.hooks.beforeToolCall.tapPromise(PLUGIN_NAME, (ctx) => (examples.pending ? afterExamples(examples, () => decide(ctx)) : Promise.resolve(decide(ctx))));
    } else {
      // Synchronous: with nothing to wait for, the kernel answers the call at once.
      harness.hooks.beforeToolCall.tap(PLUGIN_NAME, (ctx) => answerOf(policy, decideOne(policy, ctx)));
    }
    if (audit) recordOutcomes(harness, audit, PLUGIN_NAME);
    if (redactor.active) harness.hooks.redact.tap(PLUGIN_NAME, (text) => redactor.text(text));
    // The policy files and packages of `extends`: a long-lived host reloads when one changes. The
    // audit files, every owner's, are a setting (which owners name the plugin, the host says itself).
    return { sources: policy.sources, ...(files.length > 0 && { settings: { audit: files.map((each) => each.file) } }) };
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

function decideOne(policy: Policy, ctx: ToolCallContext) {
  const request = { tool: ctx.tool.name, args: ctx.args, ...(ctx.access && { access: ctx.access }) };
  const explanation = isConnection(ctx) ? policy.decideConnection(request) : policy.decide(request);
  if (ctx.access?.confinement?.network === "proxy") proxied.set(ctx.toolCall, true);
  return explanation;
}

/**
 * The policy's answer: a block or an ask with the details approvers read, or an allow with the
 * rules and parts that allowed it (for the decision event and the spans made from it).
 */
function answerOf(policy: Policy, explanation: ReturnType<Policy["decide"]>): BeforeToolCallResult {
  const details = { policy: policyDetails(explanation, policy) };
  if (explanation.decision === "allow") return { allow: true, reason: explanation.reason, details };
  return explanation.decision === "deny" ? { block: true, reason: explanation.reason, details } : { ask: true, reason: explanation.reason, details };
}

/** A decision once the examples left from the load have passed; while they fail, every call is refused with their failures. */
async function afterExamples(examples: ExampleChecks, decide: () => BeforeToolCallResult | Promise<BeforeToolCallResult>): Promise<BeforeToolCallResult> {
  try {
    await examples.settle();
  } catch (error) {
    return { block: true, reason: `policy error: ${messageOf(error)}` };
  }
  return decide();
}

/** The policy's answer, recorded in the audit log first (a call whose decision cannot be recorded is refused). */
async function decideAudited(policy: Policy, audit: AuditLog, ctx: ToolCallContext): Promise<BeforeToolCallResult> {
  const explanation = decideOne(policy, ctx);
  const connection = isConnection(ctx) ? ctx.access?.network : undefined;
  try {
    await audit.record(decisionLine({ toolCallId: ctx.toolCall.id, tool: ctx.tool.name, args: ctx.args }, explanation, policy, connection));
  } catch (error) {
    return { block: true, reason: `policy error: could not write the audit log ${audit.file} (${messageOf(error)}), so the call was refused. Fix the file's folder or permissions, or remove "audit" from the policy options.` };
  }
  return answerOf(policy, explanation);
}

/** A decision of a call already decided, whose sandbox proxies its network, about network destinations only. */
function isConnection(ctx: ToolCallContext): boolean {
  const access = ctx.access;
  if (!access || !proxied.has(ctx.toolCall) || (access.network?.length ?? 0) === 0) return false;
  return [access.commands, access.reads, access.writes, access.readTrees].every((list) => (list?.length ?? 0) === 0);
}

export default plugin;
