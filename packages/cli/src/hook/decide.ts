import { ErrorCode, ToolhostError, Type, type AgentHarness, type AnyAgentTool, type ToolAccess } from "@toolhost/core";
import type { Host } from "@toolhost/core/config";
import type { HookHost } from "./hosts.js";
import type { HookCall } from "./payload.js";

// Read by hook/serve.ts from here; the payload's own module loads no core (the forwarding client reads it too).
export { parsePayload } from "./payload.js";

/** toolhost's answer to one call. */
export interface HookVerdict {
  decision: "allow" | "ask" | "deny";
  reason: string;
}

const HOOK_TAP = { name: "toolhost hook", stage: -100_000 };
const ALLOWED = "toolhost hook: allowed";
const ForeignParameters = Type.Object({}, { additionalProperties: true });

/**
 * Decides other hosts' calls with the policy of a host's harness, through the harness's own
 * pipeline (validate, access, beforeToolCall, approve), so the audit log, redaction and every other
 * tap apply as for toolhost's own calls. Nothing runs: the execute stage answers "allowed".
 */
export class HookJudge {
  readonly #pending = new Map<string, { tool: AnyAgentTool; asked?: string; access?: ToolAccess }>();
  #sequence = 0;

  constructor(readonly host: Host) {
    const hooks = host.harness.hooks;
    hooks.resolveTool.tap(HOOK_TAP, (call) => this.#pending.get(call.id)?.tool);
    hooks.approve.tap(HOOK_TAP, (request) => {
      const pending = this.#pending.get(request.toolCall.id);
      if (pending) pending.asked = `${request.reason} (asked by ${request.askedBy})`;
      return { approved: false, reason: "an ask is answered by the host that called the hook" };
    });
    hooks.executeToolCall.tap(HOOK_TAP, (ctx) => {
      const pending = this.#pending.get(ctx.toolCall.id);
      if (!pending) return undefined;
      // What the pipeline declared for the call: the tree check below reads it instead of declaring again.
      if (ctx.access) pending.access = ctx.access;
      return { content: [{ type: "text", text: ALLOWED }], details: { allowed: true } };
    });
  }

  /**
   * An allowed call that reads a tree: toolhost's own tools leave out what the policy denies, the
   * host's cannot, so a tree that holds such a path is asked about, naming them.
   */
  async #treeCheck(hookHost: HookHost, call: HookCall, trees: readonly string[]): Promise<HookVerdict> {
    const hidden = trees.length > 0 ? await hiddenIn(this.host.harness, trees) : [];
    if (hidden.length === 0) return { decision: "allow", reason: "allowed by toolhost's policy" };
    const shown = hidden.slice(0, 3).join(", ") + (hidden.length > 3 ? ` and ${hidden.length - 3} more` : "");
    return {
      decision: "ask",
      reason: `${call.tool} reads a tree that holds paths toolhost's policy denies to read (${shown}), and ${hookHost.title}'s tool cannot leave them out`,
    };
  }

  /** The verdict on one call. Never throws: a failure anywhere is a deny that says what failed. */
  async decide(hookHost: HookHost, call: HookCall): Promise<HookVerdict> {
    const harness: AgentHarness = this.host.harness;
    // A host that left something out refuses every call itself (Host.refused), saying what and why.
    if (this.host.refused.length === 0 && !harness.getService("policy")) {
      const where = this.host.configPath ?? "a toolhost.config.json (toolhost init writes one)";
      return { decision: "deny", reason: `toolhost has no policy to decide with: add "@toolhost/hooks-policy" to the plugins of ${where}.` };
    }
    const id = `${call.id}#${++this.#sequence}`;
    const tool = foreignTool(hookHost, call.tool);
    this.#pending.set(id, { tool });
    try {
      const [result] = await harness.executeToolCalls([{ id, name: call.tool, arguments: call.input }]);
      const pending = this.#pending.get(id);
      const text = result?.content.map((block) => (block.type === "text" ? block.text : "")).join("\n") ?? "";
      const code = (result?.details as { code?: unknown } | undefined)?.code;
      if (result && !result.isError && text === ALLOWED) return await this.#treeCheck(hookHost, call, pending?.access?.readTrees ?? []);
      if (code === ErrorCode.NOT_APPROVED && pending?.asked) return { decision: "ask", reason: pending.asked };
      return { decision: "deny", reason: text || `refused (${String(code)})` };
    } catch (error) {
      return { decision: "deny", reason: `toolhost could not decide, so the call is refused: ${(error as Error).message}` };
    } finally {
      this.#pending.delete(id);
    }
  }
}

/** The paths under `trees` that the policy denies to read. */
async function hiddenIn(harness: AgentHarness, trees: readonly string[]): Promise<string[]> {
  const policy = harness.getService("policy");
  const hidden: string[] = [];
  for (const tree of trees) hidden.push(...((await policy?.protectedPaths(tree))?.denyRead ?? []));
  return hidden;
}

/** A stand-in for another host's tool: its access as the host table says; it never runs. */
function foreignTool(hookHost: HookHost, name: string): AnyAgentTool {
  const declare = hookHost.tools[name];
  return {
    name,
    label: `${hookHost.title} ${name}`,
    description: `${hookHost.title}'s ${name} tool, judged by toolhost's policy`,
    parameters: ForeignParameters,
    ...(declare && {
      access: (input: Record<string, unknown>, env: { cwd: string; workspace: string }) => {
        const access = declare(input, env);
        if (Object.keys(access).length === 0) {
          throw new ToolhostError(
            "TOOLHOST_HOOK_UNKNOWN_ACCESS",
            `${hookHost.title}'s ${name} call does not say what it touches (its input lacks the usual fields), so it is refused.`,
          );
        }
        return access;
      },
    }),
    execute: async () => ({ content: [{ type: "text", text: ALLOWED }], details: { allowed: true } }),
  };
}
