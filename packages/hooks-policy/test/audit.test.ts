import { mkdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { type AgentEvent, type ApprovalResult, policyDetailsOf, textOf } from "@toolhost/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { AuditEntry, PolicyOptions } from "../src/index.js";
import { harnessWith, makeWorkspace } from "./_helpers.js";

let ws = "";
let cleanup = () => {};
beforeEach(() => {
  ({ ws, cleanup } = makeWorkspace());
});
afterEach(() => cleanup());

const RULES: PolicyOptions = {
  rules: [
    { id: "ls", tool: "bash", command: "ls", decision: "allow" },
    { id: "push", tool: "bash", command: "git push *", decision: "ask", reason: "pushes leave the machine" },
  ],
  audit: "audit.jsonl",
};
const bash = (command: string, id: string) => ({ id, name: "bash", arguments: { command } });
const lines = () => readFileSync(join(ws, "audit.jsonl"), "utf8").trim().split("\n").map((line) => JSON.parse(line) as AuditEntry);

describe("the audit log: what became of every ask", () => {
  it("one line per answer, beside its decision: once, for the session, always with the rule, refused, no one to ask", async () => {
    const { harness } = await harnessWith(RULES, ws);
    const answers: Record<string, ApprovalResult | undefined> = {
      once: { approved: true, scope: "once", via: "terminal", reason: "approved in the terminal" },
      session: { approved: true, scope: "session", via: "terminal" },
      always: { approved: true, scope: "always", via: "terminal", rule: 'allow bash "git push *" in ./toolhost.config.json' },
      flag: { approved: true, via: "--approve 'bash:git push *'" },
      env: { approved: true, via: "TOOLHOST_APPROVE line 2" },
      mcp: { approved: false, via: "MCP elicitation", reason: "the client's user said no" },
      none: undefined,
    };
    harness.hooks.approve.tap("test approver", (request) => answers[request.toolCall.id]);
    const ids = Object.keys(answers);
    await harness.executeToolCalls(ids.map((id) => bash(`git push origin ${id}`, id)), { toolExecution: "sequential" });
    const log = lines();
    expect(log.filter((line) => line.event === "decision").map((line) => [line.toolCallId, line.decision])).toEqual(ids.map((id) => [id, "ask"]));
    const approvals = log.filter((line) => line.event === "approval");
    expect(approvals.map((line) => [line.toolCallId, line.outcome, line.via, line.answeredBy])).toEqual([
      ["once", "approved once", "terminal", "test approver"],
      ["session", "approved for the session", "terminal", "test approver"],
      ["always", "approved always", "terminal", "test approver"],
      ["flag", "approved once", "--approve 'bash:git push *'", "test approver"],
      ["env", "approved once", "TOOLHOST_APPROVE line 2", "test approver"],
      ["mcp", "refused", "MCP elicitation", "test approver"],
      ["none", "no one to ask", undefined, undefined],
    ]);
    expect(approvals.find((line) => line.toolCallId === "always")).toMatchObject({ rule: 'allow bash "git push *" in ./toolhost.config.json', askedBy: "@toolhost/hooks-policy" });
    // Each answer comes right after its own decision.
    for (const id of ids) {
      const at = log.findIndex((line) => line.toolCallId === id && line.event === "decision");
      expect(log[at + 1]).toMatchObject({ event: "approval", toolCallId: id });
    }
  });

  it("an answer's texts are redacted like every line", async () => {
    const { harness } = await harnessWith(RULES, ws);
    const token = `ghp_${"a1B2".repeat(9)}`;
    harness.hooks.approve.tap("test approver", () => ({ approved: true, via: `--approve 'bash:git push https://x:${token}@example.com/r.git'`, reason: `approved for ${token}` }));
    await harness.executeToolCalls([bash(`git push https://x:${token}@example.com/r.git`, "1")]);
    const text = readFileSync(join(ws, "audit.jsonl"), "utf8");
    expect(text).not.toContain(token);
    expect(lines().find((line) => line.event === "approval")).toMatchObject({ outcome: "approved once", via: expect.stringContaining("[redacted") });
  });

  it("an approved call whose answer cannot be recorded does not run", async () => {
    const { harness, runs } = await harnessWith(RULES, ws);
    harness.hooks.approve.tap("test approver", () => {
      // The log's file becomes a folder between the decision and its answer.
      rmSync(join(ws, "audit.jsonl"));
      mkdirSync(join(ws, "audit.jsonl"));
      return { approved: true, via: "terminal" };
    });
    const [result] = await harness.executeToolCalls([bash("git push origin main", "1")]);
    expect(runs).toEqual([]);
    expect(result?.details).toMatchObject({ code: "TOOLHOST_POLICY_AUDIT_FAILED" });
    expect(textOf(result as never)).toContain("was approved, but the approval could not be recorded in the audit log");
  });

  it("another tap's refusal is recorded with its code and what it refused (a host that left code out)", async () => {
    const { harness } = await harnessWith(RULES, ws);
    const refused = [{ code: "TOOLHOST_UNTRUSTED_CODE", owner: "project", kind: "config", file: join(ws, "toolhost.config.mjs"), configPath: join(ws, "toolhost.config.mjs") }];
    harness.hooks.beforeToolCall.tap({ name: "toolhost config", stage: -10_000 }, () => ({ block: true, reason: "the config in force is not whole", details: { code: "TOOLHOST_UNTRUSTED_CODE", notLoaded: refused } }));
    await harness.executeToolCalls([bash("ls", "1")]);
    expect(lines()).toEqual([
      expect.objectContaining({ event: "decision", toolCallId: "1", decision: "deny", by: "toolhost config", code: "TOOLHOST_UNTRUSTED_CODE", notLoaded: [{ code: "TOOLHOST_UNTRUSTED_CODE", owner: "project", kind: "config", file: join(ws, "toolhost.config.mjs") }] }),
    ]);
  });
});

describe("an allowed call's answer", () => {
  it("carries the allowing rules and their layers in the decision event", async () => {
    const { harness } = await harnessWith({ extends: ["recommended"], rules: [{ id: "ls", tool: "bash", command: "ls", decision: "allow" }] }, ws);
    const events: AgentEvent[] = [];
    harness.subscribe((event) => events.push(event));
    await harness.executeToolCalls([bash("ls", "1")]);
    const decision = events.find((event) => event.type === "tool_execution_decision");
    expect(decision).toMatchObject({ decision: "allow", by: "@toolhost/hooks-policy", reason: expect.stringContaining("allowed by config") });
    const details = policyDetailsOf((decision as { details?: unknown }).details);
    expect(details).toMatchObject({ decision: "allow", rules: expect.arrayContaining(["ls"]) });
    // The parts are counted, not listed (every allowed call pays for this record); each id names one
    // rule, whose layer and owner the service's rules give.
    expect(details).toMatchObject({ parts: [], partsOmitted: 1 });
    const service = harness.getService("policy");
    const layers = new Map(((await service?.rules?.()) ?? []).map((rule) => [rule.id, rule.layer]));
    expect(details?.rules).toContain("ls");
    expect(new Set(details?.rules.map((id) => layers.get(id)))).toEqual(new Set(["config", "recommended"]));
    const explained = await service?.explain({ tool: "bash", args: { command: "ls" } });
    expect(explained?.parts[0]?.matched).toContainEqual(expect.objectContaining({ id: "ls", layer: "config", role: "decided" }));
    expect(explained?.parts[0]?.matched).toContainEqual(expect.objectContaining({ layer: "recommended", role: "agreed" }));
  });
});
