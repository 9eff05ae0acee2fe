import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPolicy, type PolicyOptions } from "../src/index.js";
import { CLASSES } from "./classes.js";
import { decide, harnessWith, inWorkspace, makeWorkspace } from "./_helpers.js";

let ws = "";
let cleanup = () => {};
beforeAll(() => {
  ({ ws, cleanup } = makeWorkspace());
});
afterAll(() => cleanup());

for (const each of CLASSES) {
  describe(`${each.name}, through createPolicy().decide`, () => {
    it.each(each.cases)("$command → $expect", ({ command, expect: expected }) => {
      const policy = createPolicy(inWorkspace(each.options, ws) as PolicyOptions, { cwd: ws, workspace: ws });
      const explanation = decide(policy, ws, "bash", { command });
      expect(explanation.decision, explanation.reason).toBe(expected);
      if (expected !== "allow") expect(explanation.reason).not.toBe("");
    });
  });

  describe(`${each.name}, through a real AgentHarness`, () => {
    it("runs the allowed calls and refuses the others, saying why", async () => {
      const runs: string[] = [];
      const { harness } = await harnessWith(inWorkspace(each.options, ws) as PolicyOptions, ws, runs);
      const calls = each.cases.map((one, index) => ({ id: String(index), name: "bash", arguments: { command: one.command } }));
      const results = await harness.executeToolCalls(calls, { toolExecution: "sequential" });
      const got = results.map((result) => {
        const details = result.details as { code?: string };
        return result.isError ? (details.code === "TOOLHOST_BLOCKED" ? "deny" : details.code === "TOOLHOST_NOT_APPROVED" ? "ask" : `error ${details.code}`) : "allow";
      });
      expect(Object.fromEntries(each.cases.map((one, index) => [one.command, got[index]]))).toEqual(
        Object.fromEntries(each.cases.map((one) => [one.command, one.expect])),
      );
      expect(runs).toHaveLength(each.cases.filter((one) => one.expect === "allow").length);
    });
  });
}
