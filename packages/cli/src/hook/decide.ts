import { ErrorCode, ToolhostError, Type, messageOf, toolError, type AgentHarness, type AnyAgentTool, type SandboxOffer, type ToolAccess, type ToolConfinement, type WrappedCommand } from "@toolhost/core";
import type { Host } from "@toolhost/core/config";
import type { HookHost } from "./hosts.js";
import { askOnPage, type PageAsk } from "./page.js";
import type { HookCall } from "./payload.js";

// Read by hook/serve.ts from here; the payload's own module loads no core (the forwarding client reads it too).
export { parsePayload } from "./payload.js";

/** toolhost's answer to one call. */
export interface HookVerdict {
  decision: "allow" | "ask" | "deny";
  reason: string;
  /** An allowed shell call rewritten to run in toolhost's sandbox: the tool's new input. */
  updatedInput?: Record<string, unknown>;
  /** For the user: that an allowed shell call runs unconfined, and why. */
  note?: string;
  /** A person approved it on the approvals page: the host gets an allow outright (its own prompt would ask again, or refuse). */
  approvedOnPage?: boolean;
}

/** How a judge decides: whether it lives on while the host runs the command (`hook serve`), which the proxy needs. */
export interface JudgeOptions {
  holds: boolean;
}

/** What a call being judged carries from the stages to the verdict. */
interface Pending {
  tool: AnyAgentTool;
  asked?: string;
  access?: ToolAccess;
  /** A shell call offered the sandbox: its command and place; once allowed, the command line that runs it there. */
  confined?: { command: string; cwd: string; wrapped?: WrappedCommand };
  /** Asked on the approvals page instead of back to the host; and whether a person approved it there. */
  page?: PageAsk;
  approvedOnPage?: boolean;
}

const HOOK_TAP = { name: "toolhost hook", stage: -100_000 };
/** Before the judge's own tap, which hands every ask back to the host. */
const PAGE_TAP = { name: "toolhost hook (approvals page)", stage: -200_000 };

/** The services a confining hook loads plugins for: the policy that judges, the sandbox that holds shell calls. */
export const HOOK_SERVICES: readonly string[] = ["policy", "sandbox"];
const ALLOWED = "toolhost hook: allowed";
const ForeignParameters = Type.Object({}, { additionalProperties: true });

/**
 * Decides other hosts' calls with the policy of a host's harness, through the harness's own
 * pipeline (validate, access, beforeToolCall, approve), so the audit log, redaction and every other
 * tap apply as for toolhost's own calls. Nothing runs: the execute stage answers "allowed".
 */
export class HookJudge {
  readonly #pending = new Map<string, Pending>();
  #sequence = 0;
  readonly #holds: boolean;

  constructor(
    readonly host: Host,
    options: JudgeOptions = { holds: false },
  ) {
    this.#holds = options.holds;
    const hooks = host.harness.hooks;
    hooks.resolveTool.tap(HOOK_TAP, (call) => this.#pending.get(call.id)?.tool);
    // A call to be asked on the approvals page is asked there; every other ask goes back to the host.
    hooks.approve.tapPromise(PAGE_TAP, async (request, signal) => {
      const pending = this.#pending.get(request.toolCall.id);
      if (!pending?.page) return undefined;
      const answer = await askOnPage(host, request, signal, pending.page);
      if (answer.approved) pending.approvedOnPage = true;
      return answer;
    });
    hooks.approve.tap(HOOK_TAP, (request) => {
      const pending = this.#pending.get(request.toolCall.id);
      if (pending) pending.asked = `${request.reason} (asked by ${request.askedBy})`;
      return { approved: false, reason: "an ask is answered by the host that called the hook" };
    });
    hooks.executeToolCall.tapPromise(HOOK_TAP, async (ctx) => {
      const pending = this.#pending.get(ctx.toolCall.id);
      if (!pending) return undefined;
      // What the pipeline declared for the call: the tree check below reads it instead of declaring again.
      if (ctx.access) pending.access = ctx.access;
      const confined = pending.confined;
      const sandbox = host.harness.getService("sandbox");
      if (confined && sandbox) {
        try {
          confined.wrapped = await sandbox.wrap(confined.command, { cwd: confined.cwd, holds: this.#holds }, ctx.execution);
        } catch (error) {
          const code = (error as { code?: unknown }).code;
          return toolError(typeof code === "string" ? code : "TOOLHOST_HOOK_CONFINE_FAILED", `toolhost refused this call: it was to run in toolhost's sandbox, and ${messageOf(error)}.`);
        }
      }
      return { content: [{ type: "text", text: ALLOWED }], details: { allowed: true } };
    });
  }

  /** What the sandbox offers a shell call (undefined for another tool, or when confining is off). */
  async #offer(hookHost: HookHost, call: HookCall, confine: boolean): Promise<{ offer: SandboxOffer; command: string; cwd: string } | undefined> {
    const command = call.input.command;
    if (!confine || call.tool !== hookHost.shell || typeof command !== "string") return undefined;
    const sandbox = this.host.harness.getService("sandbox");
    const access = hookHost.tools[call.tool]?.(call.input, { cwd: call.cwd, workspace: this.host.harness.workspace });
    const cwd = access?.commands?.[0]?.cwd ?? call.cwd;
    if (!sandbox) return { offer: { unconfined: "no plugin of the config provides a sandbox (add @toolhost/tool-bash to its plugins)" }, command, cwd };
    try {
      return { offer: await sandbox.offer(command, { cwd, holds: this.#holds }), command, cwd };
    } catch (error) {
      return { offer: { unconfined: `the sandbox could not say how it would hold the command: ${messageOf(error)}` }, command, cwd };
    }
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

  /**
   * The verdict on one call. Never throws: a failure anywhere is a deny that says what failed. With
   * `confine`, a shell call the sandbox can hold is judged as confined and, allowed, comes back
   * rewritten to run there; one it cannot hold is judged unconfined, and the verdict says why.
   * With `page`, an ask goes to the approvals page (see `askOnPage`) instead of back to the host.
   */
  async decide(hookHost: HookHost, call: HookCall, confine = false, page?: PageAsk): Promise<HookVerdict> {
    const harness: AgentHarness = this.host.harness;
    // A host that left something out refuses every call itself (Host.refused), saying what and why.
    if (this.host.refused.length === 0 && !harness.getService("policy")) {
      const where = this.host.configPath ?? "a toolhost.config.json (toolhost init writes one)";
      return { decision: "deny", reason: `toolhost has no policy to decide with: add "@toolhost/hooks-policy" to the plugins of ${where}.` };
    }
    const command = call.tool === hookHost.shell ? call.input.command : undefined;
    if (typeof command === "string" && command.includes("\0")) {
      return { decision: "deny", reason: `toolhost refused this call: the ${call.tool} command holds a NUL byte, which no shell can be given (TOOLHOST_HOOK_NUL_IN_COMMAND).` };
    }
    const id = `${call.session ?? "-"}/${call.id}#${++this.#sequence}`;
    const offered = await this.#offer(hookHost, call, confine);
    if (offered && "refused" in offered.offer) return { decision: "deny", reason: `toolhost refused this call: ${offered.offer.refused} (TOOLHOST_BASH_SANDBOX_UNAVAILABLE).` };
    const confinement = offered && "confinement" in offered.offer ? offered.offer.confinement : undefined;
    const pending: Pending = { tool: foreignTool(hookHost, call.tool, confinement), ...(page && { page }) };
    if (offered && confinement) pending.confined = { command: offered.command, cwd: offered.cwd };
    this.#pending.set(id, pending);
    const unconfined = offered && "unconfined" in offered.offer ? offered.offer.unconfined : undefined;
    try {
      const judged = await this.#judge(hookHost, call, id, pending);
      const verdict = judged.decision === "allow" && pending.approvedOnPage ? { ...judged, approvedOnPage: true } : judged;
      if (unconfined === undefined) return verdict;
      const note = `toolhost: this ${call.tool} command runs unconfined: ${unconfined}.`;
      return verdict.decision === "allow" ? { ...verdict, note } : { ...verdict, reason: `${verdict.reason} (judged unconfined: ${unconfined})` };
    } finally {
      this.#pending.delete(id);
    }
  }

  async #judge(hookHost: HookHost, call: HookCall, id: string, pending: Pending): Promise<HookVerdict> {
    try {
      const [result] = await this.host.harness.executeToolCalls([{ id, name: call.tool, arguments: call.input }]);
      const text = result?.content.map((block) => (block.type === "text" ? block.text : "")).join("\n") ?? "";
      const code = (result?.details as { code?: unknown } | undefined)?.code;
      const allowed = result !== undefined && !result.isError && text === ALLOWED;
      // Judged as confined, it is allowed only as the command line that confines it.
      if (allowed && pending.confined) {
        const wrapped = pending.confined.wrapped;
        if (wrapped) return { decision: "allow", reason: `toolhost: ${wrapped.summary}`, updatedInput: { ...call.input, command: wrapped.commandLine } };
        return { decision: "deny", reason: "toolhost refused this call: it was judged as confined, and no sandbox made its command line (TOOLHOST_HOOK_CONFINE_FAILED)." };
      }
      if (allowed) return await this.#treeCheck(hookHost, call, pending.access?.readTrees ?? []);
      if (code === ErrorCode.NOT_APPROVED && pending.asked) return { decision: "ask", reason: pending.asked };
      return { decision: "deny", reason: text || `refused (${String(code)})` };
    } catch (error) {
      pending.confined?.wrapped?.release();
      return { decision: "deny", reason: `toolhost could not decide, so the call is refused: ${(error as Error).message}` };
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

/** A stand-in for another host's tool: its access as the host table says (with the sandbox's confinement, for a shell call it holds); it never runs. */
function foreignTool(hookHost: HookHost, name: string, confinement?: ToolConfinement): AnyAgentTool {
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
        return confinement ? { ...access, confinement } : access;
      },
    }),
    execute: async () => ({ content: [{ type: "text", text: ALLOWED }], details: { allowed: true } }),
  };
}
