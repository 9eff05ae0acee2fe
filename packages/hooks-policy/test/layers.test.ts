import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { AskingPart } from "@toolhost/core";
import { createPolicy, type PolicyLayer, type PolicyOptions } from "../src/index.js";
import { harnessWith, makeWorkspace, withAccess } from "./_helpers.js";

let ws = "";
let cleanup = () => {};
beforeEach(() => {
  ({ ws, cleanup } = makeWorkspace());
});
afterEach(() => cleanup());

const policyOf = (options: PolicyOptions) => withAccess(createPolicy(options, { cwd: ws, workspace: ws }), ws);
const bash = (options: PolicyOptions, command: string) => policyOf(options).decide("bash", { command });

const org: PolicyLayer = {
  name: "org",
  locked: true,
  rules: [
    { id: "no-force-push", tool: "bash", command: "git push --force *", decision: "deny" },
    { tool: "bash", command: "rm -rf *", decision: "ask", reason: "the organisation reviews deletions" },
  ],
};
const team: PolicyLayer = { name: "team", rules: [{ tool: "bash", command: "rm -rf *", decision: "deny" }] };

describe("layers: a later layer overrides, a locked layer holds", () => {
  it("the config's allow for `rm -rf out` relaxes recommended's ask for that command only", () => {
    const options: PolicyOptions = { extends: ["recommended"], rules: [{ tool: "bash", command: "rm -rf out", decision: "allow" }] };
    expect(bash(options, "rm -rf out").decision).toBe("allow");
    expect(bash(options, "rm -rf src").decision).toBe("ask");
  });

  it("within one layer deny beats ask beats allow", () => {
    const options: PolicyOptions = {
      rules: [
        { tool: "bash", command: "git *", decision: "allow" },
        { tool: "bash", command: "git push *", decision: "ask" },
        { tool: "bash", command: "git push * main", decision: "deny" },
      ],
    };
    expect(bash(options, "git status").decision).toBe("allow");
    expect(bash(options, "git push origin dev").decision).toBe("ask");
    expect(bash(options, "git push origin main").decision).toBe("deny");
  });

  it("a later layer overrides an earlier one both ways; `extends` order decides", () => {
    expect(bash({ extends: [{ name: "a", rules: [{ tool: "bash", command: "ls", decision: "deny" }] }], rules: [{ tool: "bash", command: "ls", decision: "allow" }] }, "ls").decision).toBe("allow");
    const relaxed: PolicyLayer = { name: "relaxed", rules: [{ tool: "bash", command: "rm -rf *", decision: "allow" }] };
    expect(bash({ extends: [team, relaxed], default: "allow" }, "rm -rf x").decision).toBe("allow");
    expect(bash({ extends: [relaxed, team], default: "allow" }, "rm -rf x").decision).toBe("deny");
  });

  it("a locked deny holds against a later allow rule, in the config or in a later layer", () => {
    const allowAll: PolicyLayer = { name: "loose", rules: [{ tool: "bash", command: "git *", decision: "allow" }] };
    const viaRule = bash({ extends: [org], rules: [{ tool: "bash", command: "git push --force origin main", decision: "allow" }] }, "git push --force origin main");
    expect(viaRule.decision).toBe("deny");
    expect(viaRule.rules).toEqual(["no-force-push"]);
    expect(bash({ extends: [org, allowAll] }, "git push --force origin main").decision).toBe("deny");
    // Tightening is allowed: a later deny on the locked layer's ask denies.
    expect(bash({ extends: [org, team] }, "rm -rf build").decision).toBe("deny");
  });

  it("a locked ask holds against a later allow; its reason is what the approver sees", () => {
    const explained = bash({ extends: [org], rules: [{ tool: "bash", command: "rm -rf *", decision: "allow" }] }, "rm -rf build");
    expect(explained.decision).toBe("ask");
    expect(explained.reason).toContain("the organisation reviews deletions");
  });

  it("a locked layer's default is a floor for later defaults", () => {
    const strict: PolicyLayer = { name: "strict", locked: true, default: "deny", rules: [] };
    expect(policyOf({ extends: [strict], default: "allow" }).decide("some_tool", {}).decision).toBe("deny");
    const open: PolicyLayer = { name: "open", default: "deny", rules: [] };
    expect(policyOf({ extends: [open], default: "allow" }).decide("some_tool", {}).decision).toBe("allow");
  });

  it("lists every rule with its layer, locked or not, in order", () => {
    const policy = createPolicy({ extends: [org, "readonly"], rules: [{ tool: "bash", command: "ls", decision: "allow" }] }, { cwd: ws, workspace: ws });
    const layers = policy.rules.map((rule) => `${rule.layer}${rule.locked ? " (locked)" : ""}`);
    expect(layers[0]).toBe("org (locked)");
    expect(layers.at(-1)).toBe("config");
    expect(layers).toContain("readonly");
    expect(policy.rules.at(-1)?.id).toBe("rules[0]");
    expect(policy.rules[1]?.id).toBe("org:rules[1]");
  });

  it("an invalid inline layer is a load-time error naming the problem", () => {
    expect(() => createPolicy({ extends: [{ name: "x", rules: [{ decision: "maybe" } as never] }] }, { cwd: ws, workspace: ws })).toThrow(/extends/);
  });
});

describe("decisions name the rule by layer, matcher and id", () => {
  it("a preset's rule: `denied by recommended › \"…\" (rules[n])`", () => {
    const policy = createPolicy({ extends: ["recommended"] }, { cwd: ws, workspace: ws });
    const explained = withAccess(policy, ws).decide("bash", { command: "rm -rf /" });
    expect(explained.decision).toBe("deny");
    const rule = policy.rules.find((each) => each.id === explained.rules[0]);
    const index = policy.rules.filter((each) => each.layer === "recommended").indexOf(rule as never);
    expect(explained.reason).toContain(`denied by recommended › ${JSON.stringify(rule?.command ?? rule?.path)}`);
    expect(explained.reason).toContain(`(${rule?.id?.startsWith("recommended:") ? `rules[${index}]` : rule?.id})`);
  });

  it("a locked layer says so, with the rule's own id", () => {
    const explained = bash({ extends: [org], rules: [] }, "git push --force origin main");
    expect(explained.reason).toBe('git push --force origin main: denied by org (locked) › "git push --force *" (no-force-push)');
  });
});

describe("an ask's details tell an approver which rules asked, their layers and locks", () => {
  const asksOf = async (options: PolicyOptions, command: string) => {
    const { harness } = await harnessWith(options, ws);
    const [result] = await harness.executeToolCalls([{ id: "1", name: "bash", arguments: { command } }]);
    return (result?.details as { policy: { asks: AskingPart[] } }).policy.asks;
  };

  it("a preset's ask: its rule id, layer and matcher, not locked", async () => {
    const asks = await asksOf({ extends: ["recommended"] }, "ls && rm -rf out");
    expect(asks).toHaveLength(1);
    expect(asks[0]).toMatchObject({ kind: "command", subject: "rm -rf out", locked: false, rules: [{ decision: "ask", layer: "recommended", locked: false, matcher: expect.stringContaining("rm") }] });
    expect(asks[0]?.rules[0]?.id).toMatch(/^recommended:rules\[\d+\]$/);
  });

  it("a locked layer's ask is locked, and says which layer holds it, even where a later layer allows", async () => {
    const asks = await asksOf({ extends: [org], rules: [{ tool: "bash", command: "rm -rf *", decision: "allow" }] }, "rm -rf build");
    expect(asks[0]).toMatchObject({ subject: "rm -rf build", locked: true, lockedBy: { layer: "org" }, rules: [{ id: "org:rules[1]", layer: "org", locked: true }] });
  });

  it("an ask of the default is locked when a locked layer's default asks", async () => {
    const strict: PolicyLayer = { name: "strict", locked: true, default: "ask", rules: [] };
    expect((await asksOf({ extends: [strict], default: "allow" }, "make"))[0]).toMatchObject({ rules: [], locked: true, lockedBy: { layer: "strict" } });
    expect((await asksOf({ default: "ask" }, "make"))[0]).toMatchObject({ rules: [], locked: false });
  });
});
