// A confined call whose network goes through the policy's proxy: each connection the proxy is asked
// to open comes back to beforeToolCall through execution.authorize with only that destination, and
// is judged by url and host rules; one that no such rule names gets the default (ask), never an
// allow by a rule written for the call.
import { AgentHarness, type AgentTool, type AuthorizeOutcome, type ToolExecution, Type } from "@toolhost/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import policyPlugin, { type PolicyOptions } from "../src/index.js";
import { makeWorkspace } from "./_helpers.js";
import { contained } from "./inventory-classes.js";

let ws = "";
let cleanup = () => {};
beforeEach(() => {
  ({ ws, cleanup } = makeWorkspace());
});
afterEach(() => cleanup());

/** A bash-like tool in the proxied sandbox: running, it asks the authorize stage about each destination its arguments name. */
function proxiedBash(outcomes: AuthorizeOutcome[]): AgentTool {
  return {
    name: "bash",
    label: "bash",
    description: "test bash behind the policy's proxy",
    parameters: Type.Object({ command: Type.String(), connects: Type.Array(Type.String()) }),
    access: (params: { command: string }) => ({ commands: [{ command: params.command, cwd: ws }], confinement: contained(ws) }),
    async execute(_id: string, params: { connects: string[] }, _signal: AbortSignal, _update: unknown, _context: unknown, execution?: ToolExecution) {
      for (const url of params.connects) outcomes.push(await (execution as ToolExecution).authorize({ network: [{ url }] }));
      return { content: [{ type: "text", text: outcomes.map((each) => (each.allowed ? "allowed" : each.code)).join(" ") }], details: {} };
    },
  } as AgentTool;
}

async function run(options: PolicyOptions, connects: string[], approve?: (reason: string) => boolean) {
  const outcomes: AuthorizeOutcome[] = [];
  const harness = new AgentHarness({ cwd: ws, workspace: ws, tools: [proxiedBash(outcomes)] });
  await harness.use(policyPlugin, options);
  const decisions: Array<{ decision: string; access?: unknown; reason?: string }> = [];
  harness.subscribe((event) => {
    if (event.type === "tool_execution_decision") decisions.push(event as never);
  });
  if (approve) harness.hooks.approve.tapPromise("test approver", async (request) => ({ approved: approve(request.reason) }));
  const [result] = await harness.executeToolCalls([{ id: "c1", name: "bash", arguments: { command: "npm install left-pad", connects } }]);
  return { result, outcomes, decisions };
}

/** recommended with rules a user could write for the tool and its arguments: none of them names a destination. */
const GENEROUS: PolicyOptions = {
  extends: ["recommended"],
  rules: [
    { tool: "bash", decision: "allow" },
    { tool: "bash", args: { command: "npm *" }, decision: "allow" },
    { host: "registry.npmjs.org", decision: "allow" },
    { host: "*.evil.example", decision: "deny", reason: "a known bad host" },
  ],
};

describe("connections a confined call's proxy asks about", () => {
  it("allows a destination a host rule allows, and denies one a host rule denies", async () => {
    const { result, outcomes } = await run(GENEROUS, ["registry.npmjs.org:443", "cdn.evil.example:443"]);
    expect(result?.isError).toBe(false);
    expect(outcomes[0]).toEqual({ allowed: true });
    expect(outcomes[1]).toMatchObject({ allowed: false, code: "TOOLHOST_BLOCKED" });
    expect((outcomes[1] as { reason: string }).reason).toContain("a known bad host");
  });

  it("asks about a destination no url or host rule names: refused with no approver, though every rule of the call allows", async () => {
    const { outcomes, decisions } = await run(GENEROUS, ["example.org:443", "https://example.org/pkg.tgz"]);
    for (const outcome of outcomes) expect(outcome).toMatchObject({ allowed: false, code: "TOOLHOST_NOT_APPROVED" });
    // The decision event of each connection names it, with the access it was about.
    const asked = decisions.filter((each) => each.access !== undefined);
    expect(asked).toHaveLength(2);
    for (const each of asked) {
      expect(each.decision).toBe("ask");
      expect(each.reason).toContain("default");
    }
  });

  it("lets an approver answer the ask, connection by connection", async () => {
    const { outcomes } = await run(GENEROUS, ["example.org:443", "example.net:443"], (reason) => reason.includes("example.org"));
    expect(outcomes.map((each) => each.allowed)).toEqual([true, false]);
  });

  it("judges the same destinations of a call that declares them itself as before (a tool with only args rules keeps its decisions)", async () => {
    const harness = new AgentHarness({ cwd: ws, workspace: ws });
    await harness.use(policyPlugin, GENEROUS);
    const explained = await harness.getService<{ explain: (request: unknown) => Promise<{ decision: string }> }>("policy")?.explain({ tool: "bash", args: { command: "npm install" }, access: { network: [{ url: "https://example.org/" }] } });
    // A call's own declaration (not a proxy's connection): the rule for every call of bash allows it.
    expect(explained?.decision).toBe("allow");
  });
});
