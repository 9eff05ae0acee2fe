import { readFileSync } from "node:fs";
import { join } from "node:path";
import { type AgentEvent, AgentHarness, type AgentTool, Type } from "@toolhost/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { digest } from "../src/audit/_audit.js";
import policyPlugin, { type AuditDecision, type AuditEntry, type PolicyOptions } from "../src/index.js";
import { makeWorkspace } from "./_helpers.js";

// Put together at run time, so no literal in this file looks like a live key.
const GITHUB = `ghp_${"Zx9Qw".repeat(7)}a`;
const AWS = `AKIA${"Q7RT".repeat(4)}`;
const ENV_NAME = "TOOLHOST_TEST_SECRETS_TOKEN";
const ENV_VALUE = "plain-words-no-format-would-find";

let ws = "";
let cleanup = () => {};
beforeEach(() => {
  ({ ws, cleanup } = makeWorkspace());
  process.env[ENV_NAME] = ENV_VALUE;
});
afterEach(() => {
  delete process.env[ENV_NAME];
  cleanup();
});

const RULES: PolicyOptions = {
  default: "deny",
  rules: [
    { id: "echo", tool: "bash", command: "echo *", decision: "allow" },
    { id: "curl", tool: "bash", command: "curl", decision: "deny", reason: "no network" },
    { id: "push", tool: "bash", command: "git push *", decision: "ask" },
    { tool: ["leaky", "streamer", "thrower"], decision: "allow" },
  ],
};

/** `bash` that echoes its command; `leaky` returns secrets; `streamer` streams them; `thrower` throws one. */
function tools(): AgentTool[] {
  const tool = (name: string, execute: AgentTool["execute"], parameters = Type.Object({})): AgentTool => ({
    name,
    label: name,
    description: `test tool ${name}`,
    parameters,
    execute,
  });
  return [
    {
      ...tool("bash", async (_id, params) => ({ content: [{ type: "text", text: `ran ${(params as { command: string }).command}` }], details: {} }), Type.Object({ command: Type.String() })),
      // What it runs, as tool-bash declares it: the policy judges calls by what their tool declares.
      access: (params, { cwd }) => ({ commands: [{ command: (params as { command: string }).command, cwd }] }),
    },
    tool("leaky", async () => ({
      content: [{ type: "text", text: `env: ${ENV_NAME}=${ENV_VALUE}\nkey ${AWS}` }],
      details: { token: GITHUB, nested: [{ env: ENV_VALUE }] },
    })),
    tool("streamer", async (_id, _params, _signal, onUpdate) => {
      onUpdate?.({ content: [{ type: "text", text: `so far: ${GITHUB}` }], details: { partial: AWS } });
      onUpdate?.({ content: [{ type: "text", text: `more: ${ENV_VALUE}` }] });
      return { content: [{ type: "text", text: "done" }], details: {} };
    }),
    tool("thrower", async () => {
      throw new Error(`could not log in with ${GITHUB}`);
    }),
  ];
}

async function harnessWith(options: PolicyOptions = RULES) {
  const harness = new AgentHarness({ cwd: ws, workspace: ws, tools: tools() });
  await harness.use(policyPlugin, options);
  const events: AgentEvent[] = [];
  harness.subscribe((event) => events.push(event));
  return { harness, events };
}

const raw = [GITHUB, AWS, ENV_VALUE];
function expectNoSecret(value: unknown, where: string) {
  const text = typeof value === "string" ? value : JSON.stringify(value);
  for (const secret of raw) expect(text, `${where} holds ${secret.slice(0, 8)}…`).not.toContain(secret);
}

describe("the policy plugin taps the redact hook", () => {
  it("every text given to harness.hooks.redact comes back masked: formats and known environment values", async () => {
    const { harness } = await harnessWith();
    expect(harness.hooks.redact.call(`a ${GITHUB} b ${ENV_VALUE} c`)).toBe(`a [redacted GitHub token] b [redacted $${ENV_NAME}] c`);
    expect(harness.hooks.redact.call("nothing secret: 42 apples")).toBe("nothing secret: 42 apples");
  });

  it("redactEnv chooses the variables; [] turns known values off; a bad value fails at load", async () => {
    const { harness: off } = await harnessWith({ ...RULES, redactEnv: [] });
    expect(off.hooks.redact.call(ENV_VALUE)).toBe(ENV_VALUE);
    const { harness: chosen } = await harnessWith({ ...RULES, redactEnv: ["toolhost_test_*"] });
    expect(chosen.hooks.redact.call(ENV_VALUE)).toBe(`[redacted $${ENV_NAME}]`);
    const bad = new AgentHarness({ cwd: ws, workspace: ws });
    await expect(bad.use(policyPlugin, { redactEnv: "*_TOKEN" })).rejects.toMatchObject({ code: "TOOLHOST_INVALID_PLUGIN_OPTIONS" });
  });

  it("a result's text and details come out masked", async () => {
    const { harness } = await harnessWith();
    const [result] = await harness.executeToolCalls([{ id: "1", name: "leaky", arguments: {} }]);
    expectNoSecret(result, "the result");
    expect(JSON.stringify(result)).toContain(`[redacted $${ENV_NAME}]`);
  });
});

describe("the audit log holds no secret", () => {
  it("a secret in a command: arguments as a digest, the reason masked, for allow, ask and deny", async () => {
    const { harness } = await harnessWith({ ...RULES, audit: "logs/audit.jsonl" });
    const calls = [
      { id: "1", name: "bash", arguments: { command: `curl -H "Authorization: token ${GITHUB}" https://api.example.com` } },
      { id: "2", name: "bash", arguments: { command: `echo ${AWS} ${ENV_VALUE}` } },
      { id: "3", name: "bash", arguments: { command: `git push https://me:${GITHUB}@example.com/r.git` } },
    ];
    await harness.executeToolCalls(calls);
    const text = readFileSync(join(ws, "logs", "audit.jsonl"), "utf8");
    expectNoSecret(text, "the audit log");
    // The decision lines (the ask's answer has a line of its own).
    const lines = text.trim().split("\n").map((line) => JSON.parse(line) as AuditEntry).filter((line): line is AuditDecision => line.event === "decision");
    expect(lines.map((line) => line.decision).sort()).toEqual(["allow", "ask", "deny"]);
    for (const call of calls) expect(lines.map((line) => line.argsDigest)).toContain(digest(call.arguments));
    const denied = lines.find((line) => line.decision === "deny");
    expect(denied?.reason).toContain("Authorization: token [redacted");
    expect(denied?.reason).toContain(`denied by config › "curl" (curl)`);
  });

  it("a redactor that fails leaves the reason out of the line, never raw", async () => {
    const { harness } = await harnessWith({ ...RULES, audit: "audit.jsonl" });
    harness.hooks.redact.tap("broken redactor", () => {
      throw new Error("cannot redact");
    });
    await harness.executeToolCalls([{ id: "1", name: "bash", arguments: { command: `curl ${GITHUB}` } }]);
    const [line] = readFileSync(join(ws, "audit.jsonl"), "utf8").trim().split("\n").map((each) => JSON.parse(each) as AuditDecision);
    expect(line?.decision).toBe("deny");
    expect(line?.reason).toBe("[reason withheld: redaction failed]");
  });
});

// These need the kernel to pass every outward channel through `hooks.redact` (issue 13, core's part).
describe("every outward channel of the harness", () => {
  it("streamed updates: tool_execution_update events carry no secret", async () => {
    const { harness, events } = await harnessWith();
    const updates: unknown[] = [];
    harness.hooks.toolUpdate.tap("test", (update) => updates.push(update));
    await harness.executeToolCalls([{ id: "1", name: "streamer", arguments: {} }]);
    const streamed = events.filter((event) => event.type === "tool_execution_update");
    expect(streamed).toHaveLength(2);
    expectNoSecret(streamed, "tool_execution_update events");
    expect(JSON.stringify(streamed)).toContain("[redacted GitHub token]");
  });

  it("refusals (denied, not approved): the text, details.policy and the events carry no secret", async () => {
    const { harness, events } = await harnessWith();
    const results = await harness.executeToolCalls([
      { id: "1", name: "bash", arguments: { command: `curl -H "Authorization: token ${GITHUB}" -H "X: ${AWS}" https://x` } },
      { id: "2", name: "bash", arguments: { command: `git push https://me:${GITHUB}@example.com/r.git` } },
    ]);
    expect(results.map((result) => (result.details as { code?: string }).code)).toEqual(["TOOLHOST_BLOCKED", "TOOLHOST_NOT_APPROVED"]);
    expectNoSecret(results, "refused results");
    expectNoSecret(events, "events");
    expect(JSON.stringify(results[0])).toContain("[redacted");
  });

  it("an error a tool throws: the result and the events carry no secret", async () => {
    const { harness, events } = await harnessWith();
    const [result] = await harness.executeToolCalls([{ id: "1", name: "thrower", arguments: {} }]);
    expect(result?.isError).toBe(true);
    expectNoSecret(result, "the error result");
    expectNoSecret(events, "events");
  });

  it("arguments in events: tool_execution_start and _end carry no secret", async () => {
    const { harness, events } = await harnessWith();
    await harness.executeToolCalls([{ id: "1", name: "bash", arguments: { command: `echo ${AWS} ${GITHUB}` } }]);
    const start = events.find((event) => event.type === "tool_execution_start");
    expect(start).toBeDefined();
    expectNoSecret(events, "events");
  });

  it("a redactor that throws withholds the item: nothing raw reaches a listener", async () => {
    const { harness, events } = await harnessWith();
    harness.hooks.redact.tap("broken redactor", (text) => {
      if (text.includes("[redacted")) throw new Error("refusing to pass this on");
      return text;
    });
    const results = await harness.executeToolCalls([
      { id: "1", name: "leaky", arguments: {} },
      { id: "2", name: "streamer", arguments: {} },
    ]);
    expectNoSecret(results, "results");
    expectNoSecret(events, "events");
    expect(results[0]?.isError).toBe(true);
  });
});
