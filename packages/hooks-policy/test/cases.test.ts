import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createPolicy, type PolicyOptions } from "../src/index.js";
import { type PolicyCase as Case, decide, harnessWith, inWorkspace, makeWorkspace, policyCases as file } from "./_helpers.js";

function agrees(decision: string, expected: Case["expect"]): boolean {
  return expected === "not-allow" ? decision !== "allow" : decision === expected;
}

let ws = "";
let cleanup = () => {};
beforeEach(() => {
  ({ ws, cleanup } = makeWorkspace());
});
afterEach(() => cleanup());

describe("policy-cases.json through createPolicy().decide", () => {
  it.each(file.cases)("$id $tool $expect ($note)", (c) => {
    const policy = createPolicy(inWorkspace(file.rulesets[c.ruleset] as PolicyOptions, ws), { cwd: ws, workspace: ws });
    const explanation = decide(policy, ws, c.tool, inWorkspace(c.args, ws));
    expect(agrees(explanation.decision, c.expect), `${c.id}: got ${explanation.decision} (${explanation.reason})`).toBe(true);
    expect(explanation.parts.length).toBeGreaterThan(0);
  });
});

describe("policy-cases.json through the harness's policy service (explain)", () => {
  it.each(file.cases)("$id $expect", async (c) => {
    const { policy } = await harnessWith(inWorkspace(file.rulesets[c.ruleset] as PolicyOptions, ws), ws);
    const explanation = await policy.explain({ tool: c.tool, args: inWorkspace(c.args, ws) });
    expect(agrees(explanation.decision, c.expect), `${c.id}: got ${explanation.decision} (${explanation.reason})`).toBe(true);
    expect(explanation.tool).toBe(c.tool);
    expect(typeof explanation.reason).toBe("string");
    expect(explanation.reason).not.toContain("\n");
  });
});

describe("policy-cases.json through a real AgentHarness and executeToolCalls", () => {
  it.each(file.cases)("$id $expect", async (c) => {
    const runs: string[] = [];
    const { harness } = await harnessWith(inWorkspace(file.rulesets[c.ruleset] as PolicyOptions, ws), ws, runs);
    const [result] = await harness.executeToolCalls([{ id: c.id, name: c.tool, arguments: inWorkspace(c.args, ws) }]);
    const details = result?.details as Record<string, unknown>;
    const text = result?.content.map((block) => (block.type === "text" ? block.text : "")).join("") ?? "";
    if (c.expect === "allow") {
      expect(result?.isError, text).toBe(false);
      expect(runs).toEqual([c.tool]);
      expect(text).toBe(`ran ${c.tool}`);
      return;
    }
    expect(runs).toEqual([]);
    expect(result?.isError).toBe(true);
    expect(details.blockedBy).toBe("@toolhost/hooks-policy");
    if (c.expect === "deny") expect(details.code).toBe("TOOLHOST_BLOCKED");
    if (c.expect === "ask") {
      expect(details.code).toBe("TOOLHOST_NOT_APPROVED");
      expect(text).toContain("no one could approve it");
    }
    if (c.expect === "not-allow") expect(["TOOLHOST_BLOCKED", "TOOLHOST_NOT_APPROVED"]).toContain(details.code);
  });

  it.each(file.cases.filter((c) => c.expect === "ask"))("$id ask with an approver that says yes runs the tool", async (c) => {
    const runs: string[] = [];
    const { harness } = await harnessWith(inWorkspace(file.rulesets[c.ruleset] as PolicyOptions, ws), ws, runs);
    const asked: string[] = [];
    harness.hooks.approve.tapPromise("test approver", async (request) => {
      asked.push(request.reason);
      return { approved: true };
    });
    const [result] = await harness.executeToolCalls([{ id: c.id, name: c.tool, arguments: inWorkspace(c.args, ws) }]);
    expect(result?.isError).toBe(false);
    expect(runs).toEqual([c.tool]);
    expect(asked).toHaveLength(1);
  });
});
