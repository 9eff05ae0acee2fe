import { createHash } from "node:crypto";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { AgentHarness, type PolicyService } from "@toolhost/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import policyPlugin, { type PolicyOptions } from "../src/index.js";
import { harnessWith, makeWorkspace, recordingTool } from "./_helpers.js";

let ws = "";
let cleanup = () => {};
beforeEach(() => {
  ({ ws, cleanup } = makeWorkspace());
});
afterEach(() => cleanup());

const textOf = (result: { content: Array<{ type: string; text?: string }> } | undefined) =>
  result?.content.map((block) => block.text ?? "").join("") ?? "";

const RULES: PolicyOptions = {
  default: "ask",
  rules: [
    { id: "all", tool: "bash", command: "*", decision: "allow" },
    { id: "no-rm", tool: "bash", command: "rm", decision: "deny", reason: "rm is not allowed here" },
    { id: "push", tool: "bash", command: "git push *", decision: "ask", reason: "pushes leave the machine" },
  ],
};

const call = (command: string, id = "1") => ({ id, name: "bash", arguments: { command } });

describe("deciding calls in the harness", () => {
  it("deny: the tool does not run, and the result says why and who", async () => {
    const { harness, runs } = await harnessWith(RULES, ws);
    const [result] = await harness.executeToolCalls([call("ls && rm -rf /tmp/x")]);
    expect(runs).toEqual([]);
    expect(result?.isError).toBe(true);
    expect(textOf(result)).toBe(`Blocked by @toolhost/hooks-policy: rm -rf /tmp/x: denied by config › "rm" (no-rm) (rm is not allowed here)`);
    const details = result?.details as { code: string; blockedBy: string; policy: { decision: string; rules: string[]; parts: unknown[] } };
    expect(details.code).toBe("TOOLHOST_BLOCKED");
    expect(details.policy.rules).toEqual(["no-rm"]);
    // ls, rm, and the folder rm deletes (a write).
    expect(details.policy.parts).toHaveLength(3);
  });

  it("ask with no approver: refused, saying no one could approve it", async () => {
    const { harness, runs } = await harnessWith(RULES, ws);
    const [result] = await harness.executeToolCalls([call("git push origin main")]);
    expect(runs).toEqual([]);
    expect(textOf(result)).toContain(`Not run: bash needs approval (git push origin main: asked by config › "git push *" (push) (pushes leave the machine)), and no one could approve it`);
    expect(textOf(result)).toContain("no one could approve it");
  });

  it("ask: the approver is asked with the reason; yes runs the call, no refuses it", async () => {
    const { harness, runs } = await harnessWith(RULES, ws);
    const asked: Array<{ reason: string; askedBy: string }> = [];
    let answer = true;
    harness.hooks.approve.tapPromise("test approver", async (request) => {
      asked.push({ reason: request.reason, askedBy: request.askedBy });
      return answer ? { approved: true } : { approved: false, reason: "the user said no" };
    });
    const [yes] = await harness.executeToolCalls([call("git push origin main")]);
    expect(yes?.isError).toBe(false);
    expect(runs).toEqual(["bash"]);
    answer = false;
    const [no] = await harness.executeToolCalls([call("git push origin main")]);
    expect(no?.isError).toBe(true);
    expect(textOf(no)).toContain("the user said no");
    expect(runs).toEqual(["bash"]);
    expect(asked).toEqual([
      { reason: `git push origin main: asked by config › "git push *" (push) (pushes leave the machine)`, askedBy: "@toolhost/hooks-policy" },
      { reason: `git push origin main: asked by config › "git push *" (push) (pushes leave the machine)`, askedBy: "@toolhost/hooks-policy" },
    ]);
  });

  it("allow: the tool runs and nothing is asked", async () => {
    const { harness, runs } = await harnessWith(RULES, ws);
    let asked = 0;
    harness.hooks.approve.tap("test approver", () => {
      asked += 1;
      return { approved: false };
    });
    const [result] = await harness.executeToolCalls([call("git status && ls -la | wc -l")]);
    expect(result?.isError).toBe(false);
    expect(runs).toEqual(["bash"]);
    expect(asked).toBe(0);
  });

  it("a refused result carries at most 100 parts, those that decided", async () => {
    const { harness } = await harnessWith(RULES, ws);
    const command = `${Array.from({ length: 500 }, (_, i) => `echo ${i}`).join("; ")}; rm x`;
    const [result] = await harness.executeToolCalls([call(command)]);
    const policy = (result?.details as { policy: { parts: Array<{ subject: string }>; partsOmitted: number } }).policy;
    expect(policy.parts.map((part) => part.subject)).toEqual(["rm x"]);
    // 500 echo commands and the write of x (asked: no write rule) are left out.
    expect(policy.partsOmitted).toBe(501);
  });

  it("an ask lists at most 100 asking parts for approvers, and counts the rest", async () => {
    const { harness } = await harnessWith(RULES, ws);
    const command = Array.from({ length: 150 }, (_, i) => `git push origin b${i}`).join("; ");
    const [result] = await harness.executeToolCalls([call(command)]);
    const policy = (result?.details as { policy: { asks: Array<{ subject: string; rules: Array<{ id: string }> }>; asksOmitted: number } }).policy;
    expect(policy.asks).toHaveLength(100);
    expect(policy.asks[0]).toMatchObject({ subject: "git push origin b0", rules: [{ id: "push" }] });
    expect(policy.asksOmitted).toBe(50);
  });

  it("judges the resolved tool's name and the prepared arguments", async () => {
    const { harness, runs } = await harnessWith(RULES, ws);
    harness.hooks.prepareArguments.tap("test rewrite", (args) => ({ ...(args as object), command: "rm -rf /" }));
    const [result] = await harness.executeToolCalls([call("ls")]);
    expect(result?.isError).toBe(true);
    expect(runs).toEqual([]);
  });
});

describe("the policy service (explain)", () => {
  it("is a dry run: nothing runs, no one is asked, nothing is audited", async () => {
    const { harness, runs, policy } = await harnessWith({ ...RULES, audit: "audit.jsonl" }, ws);
    let asked = 0;
    harness.hooks.approve.tap("test approver", () => {
      asked += 1;
      return { approved: true };
    });
    const explanation = await policy.explain({ tool: "bash", args: { command: "git push" } });
    expect(explanation).toMatchObject({ decision: "ask", tool: "bash", rules: ["push"] });
    expect(runs).toEqual([]);
    expect(asked).toBe(0);
    expect(() => readFileSync(join(ws, "audit.jsonl"))).toThrow();
  });

  it("never throws: a bad request is a deny with the error in the reason", async () => {
    const { policy } = await harnessWith(RULES, ws);
    const bad = await policy.explain(null as never);
    expect(bad.decision).toBe("deny");
    expect(bad.reason).toMatch(/^policy error: /);
    // Arguments the tool refuses: the call would end before the policy, so explain denies, saying why.
    const odd = await policy.explain({ tool: "bash", args: "not an object" });
    expect(odd.decision).toBe("deny");
    expect(odd.reason).toMatch(/^the call would end before the policy: Invalid arguments for tool "bash"/);
  });

  it("judges the arguments the pipeline would judge: after the tool's prepare and the taps", async () => {
    const { harness, policy } = await harnessWith(RULES, ws);
    expect((await policy.explain({ tool: "bash", args: { command: "ls" } })).decision).toBe("allow");
    harness.hooks.prepareArguments.tap("test rewrite", (args) => ({ ...(args as object), command: "rm -rf /" }));
    const explanation = await policy.explain({ tool: "bash", args: { command: "ls" } });
    expect(explanation).toMatchObject({ decision: "deny", rules: ["no-rm"] });
  });

  it("resolves relative paths against the request's cwd", async () => {
    const { policy } = await harnessWith(
      { rules: [{ tool: "bash", command: "*", decision: "allow" }, { tool: "write", path: "${workspace}/sub/**", decision: "allow" }] },
      ws,
    );
    expect((await policy.explain({ tool: "bash", args: { command: "echo x > y" }, cwd: join(ws, "sub") })).decision).toBe("allow");
    expect((await policy.explain({ tool: "bash", args: { command: "echo x > y" } })).decision).toBe("ask");
  });
});

describe("the audit file", () => {
  it("gets one JSON line per decision: time, tool, args digest, decision, rules, reason", async () => {
    const { harness } = await harnessWith({ ...RULES, audit: ".toolhost/logs/audit.jsonl" }, ws);
    await harness.executeToolCalls([call("ls", "a"), call("rm x", "b"), call("git push", "c")], { toolExecution: "sequential" });
    const lines = readFileSync(join(ws, ".toolhost", "logs", "audit.jsonl"), "utf8").trimEnd().split("\n");
    const all = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    // The ask's answer (no one to ask here) is a line of its own, after its decision.
    expect(all.at(-1)).toMatchObject({ event: "approval", toolCallId: "c", outcome: "no one to ask", approved: false });
    const entries = all.filter((entry) => entry.event === "decision");
    expect(entries.map((entry) => [entry.tool, entry.decision, entry.rules])).toEqual([
      ["bash", "allow", ["all"]],
      ["bash", "deny", ["no-rm"]],
      ["bash", "ask", ["push"]],
    ]);
    const digest = createHash("sha256").update('{"command":"ls"}').digest("hex");
    expect(entries[0]?.argsDigest).toBe(digest);
    expect(Date.parse(entries[0]?.time as string)).not.toBeNaN();
    expect(entries[1]?.reason).toBe(`rm x: denied by config › "rm" (no-rm) (rm is not allowed here)`);
    // The call's id pairs a decision with the answer to its ask; `deciding` names each rule's layer and owner.
    expect(Object.keys(entries[0] ?? {}).sort()).toEqual(["argsDigest", "deciding", "decision", "event", "reason", "rules", "time", "tool", "toolCallId"]);
  });

  it("digests arguments canonically: key order does not matter", async () => {
    const { harness } = await harnessWith({ rules: [{ tool: "*", decision: "allow" }], audit: "audit.jsonl" }, ws);
    await harness.executeToolCalls([{ id: "1", name: "make_api_call", arguments: { b: 1, a: { d: 2, c: 3 } } }]);
    await harness.executeToolCalls([{ id: "2", name: "make_api_call", arguments: { a: { c: 3, d: 2 }, b: 1 } }]);
    const [first, second] = readFileSync(join(ws, "audit.jsonl"), "utf8").trimEnd().split("\n").map((line) => JSON.parse(line));
    expect(first.argsDigest).toBe(second.argsDigest);
    expect(first.argsDigest).toBe(createHash("sha256").update('{"a":{"c":3,"d":2},"b":1}').digest("hex"));
  });

  it("a call whose decision cannot be recorded is refused", async () => {
    mkdirSync(join(ws, "audit-is-a-folder"));
    const { harness, runs } = await harnessWith({ rules: [{ tool: "*", decision: "allow" }], audit: "audit-is-a-folder" }, ws);
    const [result] = await harness.executeToolCalls([call("ls")]);
    expect(runs).toEqual([]);
    expect(result?.isError).toBe(true);
    expect(textOf(result)).toContain("could not write the audit log");
  });
});

describe("redaction", () => {
  const AWS = "AKIAIOSFODNN7EXAMPLE";
  const GITHUB = `ghp_${"a1B2".repeat(9)}`;
  const JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U";
  const KEY = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\nAAAAAAAAAA==\n-----END OPENSSH PRIVATE KEY-----";

  async function run(options: PolicyOptions, text: string, details: unknown) {
    const harness = new AgentHarness({ cwd: ws, workspace: ws, tools: [recordingTool("leaky", [], () => ({ text, details }))] });
    await harness.use(policyPlugin, { rules: [{ tool: "*", decision: "allow" }], ...options });
    const [result] = await harness.executeToolCalls([{ id: "1", name: "leaky", arguments: {} }]);
    return result;
  }

  it("built-ins cover cloud keys, tokens, JWTs and private key blocks, in text and deep in details", async () => {
    const text = [
      `aws ${AWS}`,
      `gh ${GITHUB}`,
      "slack xoxb-1234567890-abcdefghij",
      `openai sk-proj-${"x".repeat(30)}`,
      `anthropic sk-ant-api03-${"y".repeat(30)}`,
      `google AIza${"0".repeat(35)}`,
      `jwt ${JWT}`,
      KEY,
      "DB_PASSWORD=hunter2hunter2",
      "postgres://admin:s3cr3tpass@db.local/x",
      "nothing secret here: 42 apples",
    ].join("\n");
    const result = await run({}, text, { nested: { list: [`token ${GITHUB}`, 7, null], key: KEY }, exitCode: 0 });
    const out = textOf(result);
    for (const secret of [AWS, GITHUB, "xoxb-1234567890", "sk-proj-", "sk-ant-", "AIza000", JWT, "b3BlbnNzaC1rZXktdjEAAAAA", "hunter2hunter2", "s3cr3tpass"]) {
      expect(out).not.toContain(secret);
    }
    expect(out).toContain("[redacted AWS key]");
    expect(out).toContain("[redacted GitHub token]");
    expect(out).toContain("[redacted private key]");
    expect(out).toContain("[redacted JWT]");
    expect(out).toContain("nothing secret here: 42 apples");
    expect(result?.details).toEqual({
      nested: { list: ["token [redacted GitHub token]", 7, null], key: "[redacted private key]" },
      exitCode: 0,
    });
  });

  it("user patterns apply with their replacement; built-ins can be turned off", async () => {
    const options: PolicyOptions = { redact: [{ pattern: "INTERNAL-[0-9]+", replacement: "[ticket]" }, { pattern: "acme", flags: "i" }], redactBuiltins: false };
    const result = await run(options, `see INTERNAL-1234 at ACME, key ${AWS}`, { msg: "INTERNAL-99" });
    expect(textOf(result)).toBe(`see [ticket] at [redacted], key ${AWS}`);
    expect(result?.details).toEqual({ msg: "[ticket]" });
  });

  it("a result whose details cannot all be read passes no secret", async () => {
    const details = {
      secret: AWS,
      get broken(): string {
        throw new Error("cannot read this field");
      },
    };
    const result = await run({}, `key ${AWS}`, details);
    expect(textOf(result)).toBe("key [redacted AWS key]");
    expect(JSON.stringify(result)).not.toContain(AWS);
  });

  it("an invalid pattern is an error at load time that names it", async () => {
    const harness = new AgentHarness({ cwd: ws, workspace: ws });
    await expect(harness.use(policyPlugin, { redact: [{ pattern: "([unclosed" }] })).rejects.toMatchObject({
      code: "TOOLHOST_INVALID_PLUGIN_OPTIONS",
      message: expect.stringContaining("redact[0].pattern"),
    });
    await expect(harness.use(policyPlugin, { redact: [{ pattern: "x*" }] })).rejects.toThrow(/matches empty text/);
  });
});

describe("loading", () => {
  it("a typo in the options fails harness.use with its path", async () => {
    const harness = new AgentHarness({ cwd: ws, workspace: ws });
    await expect(harness.use(policyPlugin, { rules: [{ tool: "bash", command: "ls", decison: "allow" }] })).rejects.toMatchObject({
      code: "TOOLHOST_INVALID_PLUGIN_OPTIONS",
      message: expect.stringMatching(/rules\/0/),
    });
  });

  it("provides the policy service once", async () => {
    const { harness } = await harnessWith(RULES, ws);
    expect(typeof (harness.getService("policy") as PolicyService | undefined)?.explain).toBe("function");
    await expect(harness.use(policyPlugin, RULES)).rejects.toMatchObject({ code: "TOOLHOST_DUPLICATE_SERVICE" });
  });
});
