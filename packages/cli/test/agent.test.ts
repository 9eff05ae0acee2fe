import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Agent, AgentHarness, type AgentEvent, type AgentTool, type ToolResultMessage, Type } from "@toolhost/core";
import policy from "@toolhost/hooks-policy";
import { createOpenAIStreamFn } from "@toolhost/provider-openai";
import bash from "@toolhost/tool-bash";
import fs from "@toolhost/tool-fs";
import { afterEach, describe, expect, it } from "vitest";
import {
  type FakeOpenAI,
  type FakeRequest,
  chunk,
  startFakeOpenAI,
  textTurn,
  toolCallsTurn,
} from "../../provider-openai/test/_fake-openai.js";
import { inTerminal, jsonLines, removeDir, tempDir, toolhost, trust, writeConfig } from "./_helpers.js";

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function fake(script: Parameters<typeof startFakeOpenAI>[0]): Promise<FakeOpenAI> {
  const server = await startFakeOpenAI(script);
  cleanups.push(() => server.close());
  return server;
}

function workspace(): string {
  // Trusted by its user: the config chooses the model's endpoint (baseURL), which only a trusted config may (docs/trust.md).
  const dir = trust(tempDir("toolhost-agent-"));
  cleanups.push(() => removeDir(dir));
  writeFileSync(join(dir, "notes.txt"), "the answer is 42\n");
  return dir;
}

/** An agent on a real harness with the real fs and bash plugins, asking the fake endpoint. */
async function agentFor(server: FakeOpenAI, dir: string, extra: (harness: AgentHarness) => Promise<unknown> | void = () => {}) {
  const harness = new AgentHarness({ cwd: dir, workspace: dir });
  await harness.use(fs);
  // Unsandboxed: a test reads the pid a command writes, which inside tool-bash's sandbox is one of its own PID namespace.
  await harness.use(bash, { timeout: 30, sandbox: "off" });
  await extra(harness);
  cleanups.push(() => harness.dispose());
  const agent = new Agent({
    initialState: { model: { id: "fake-model" }, systemPrompt: "You are a test." },
    streamFn: createOpenAIStreamFn({ baseURL: server.url, maxRetries: 0 }),
    harness,
  });
  const events: AgentEvent[] = [];
  agent.subscribe((event) => events.push(event));
  return { agent, harness, events };
}

/** The tool messages the model was sent in a request. */
function toolMessages(request: FakeRequest | undefined): { tool_call_id: string; content: string }[] {
  return (request?.body.messages as { role: string; tool_call_id: string; content: string }[]).filter((m) => m.role === "tool");
}

describe("the agent loop against an OpenAI-compatible endpoint", () => {
  it("runs read and bash in parallel, gives the model both results, and ends with its answer", async () => {
    const dir = workspace();
    const server = await fake([
      toolCallsTurn(
        [
          { id: "call_read", name: "read", arguments: { path: "notes.txt" } },
          { id: "call_bash", name: "bash", arguments: { command: "echo from-bash" } },
        ],
        { interleave: true, pieceSize: 5 },
      ),
      textTurn("The notes say 42."),
    ]);
    const { agent, events } = await agentFor(server, dir);
    await agent.prompt("What do the notes say?");

    expect(agent.state.error).toBeUndefined();
    const second = server.requests[1];
    const results = toolMessages(second);
    expect(results.map((r) => r.tool_call_id)).toEqual(["call_read", "call_bash"]);
    expect(results[0]?.content).toContain("the answer is 42");
    expect(results[1]?.content).toContain("from-bash");
    expect(server.requests[0]?.body.tools.map((t: { function: { name: string } }) => t.function.name)).toEqual(
      expect.arrayContaining(["read", "write", "edit", "bash"]),
    );
    const last = agent.state.messages.at(-1);
    expect(last?.role).toBe("assistant");
    expect(JSON.stringify(last)).toContain("The notes say 42.");
    expect(events.filter((e) => e.type === "turn_start")).toHaveLength(2);
  });

  it("keeps a sequential tool (bash) a barrier inside a batch", async () => {
    const dir = workspace();
    const server = await fake([
      toolCallsTurn([
        { id: "r1", name: "read", arguments: { path: "notes.txt" } },
        { id: "b1", name: "bash", arguments: { command: "echo between" } },
        { id: "r2", name: "read", arguments: { path: "notes.txt" } },
      ]),
      textTurn("ok"),
    ]);
    const { agent, events } = await agentFor(server, dir);
    await agent.prompt("go");
    const order = events
      .filter((e) => e.type === "tool_execution_start" || e.type === "tool_execution_end")
      .map((e) => `${e.type === "tool_execution_start" ? "start" : "end"} ${"toolCallId" in e ? e.toolCallId : ""}`);
    expect(order.indexOf("start b1")).toBeGreaterThan(order.indexOf("end r1"));
    expect(order.indexOf("start r2")).toBeGreaterThan(order.indexOf("end b1"));
  });

  it("gives the model a blocked call as an error result, and the command does not run", async () => {
    const dir = workspace();
    const server = await fake([
      toolCallsTurn([{ id: "c1", name: "bash", arguments: { command: "rm -f notes.txt" } }]),
      textTurn("I could not delete it."),
    ]);
    const { agent } = await agentFor(server, dir, (harness) =>
      harness.use(policy, { default: "allow", rules: [{ tool: "bash", command: "rm", decision: "deny", reason: "no deleting" }] }),
    );
    await agent.prompt("delete the notes");
    const [result] = toolMessages(server.requests[1]);
    expect(result?.content).toContain("no deleting");
    expect(existsSync(join(dir, "notes.txt"))).toBe(true);
    const toolResult = agent.state.messages.find((m): m is ToolResultMessage => m.role === "toolResult");
    expect(toolResult?.isError).toBe(true);
  });

  it("stops after a batch whose results all say terminate, and activates addedToolNames", async () => {
    const dir = workspace();
    const schema = Type.Object({});
    const finish: AgentTool<typeof schema> = {
      name: "finish",
      label: "Finish",
      description: "ends the run",
      parameters: schema,
      async execute() {
        return { content: [{ type: "text", text: "finished" }], details: {}, terminate: true };
      },
    };
    const unlock: AgentTool<typeof schema> = {
      name: "unlock",
      label: "Unlock",
      description: "makes finish available",
      parameters: schema,
      async execute() {
        return { content: [{ type: "text", text: "unlocked" }], details: {}, addedToolNames: ["finish"] };
      },
    };
    const server = await fake([
      toolCallsTurn([{ id: "u", name: "unlock", arguments: {} }]),
      toolCallsTurn([{ id: "f", name: "finish", arguments: {} }]),
      textTurn("never asked"),
    ]);
    const harness = new AgentHarness({ cwd: dir, tools: [finish, unlock] });
    const agent = new Agent({
      initialState: { model: { id: "m" }, activeTools: ["unlock"] },
      streamFn: createOpenAIStreamFn({ baseURL: server.url, maxRetries: 0 }),
      harness,
    });
    await agent.prompt("go");
    const names = (request: FakeRequest | undefined) => request?.body.tools.map((t: { function: { name: string } }) => t.function.name);
    expect(names(server.requests[0])).toEqual(["unlock"]);
    expect(names(server.requests[1])).toEqual(["finish", "unlock"]);
    expect(server.requests).toHaveLength(2);
    expect(agent.state.messages.at(-1)?.role).toBe("toolResult");
  });

  it("aborts in the middle of a stream: the endpoint sees the connection closed", async () => {
    const dir = workspace();
    const server = await fake([{ chunks: [chunk({ content: "Let me think" })], hang: true }]);
    const { agent, events } = await agentFor(server, dir);
    const run = agent.prompt("hi");
    await until(() => events.some((e) => e.type === "message_update"));
    agent.abort();
    await run;
    expect((agent.state.messages.at(-1) as { stopReason?: string }).stopReason).toBe("aborted");
    expect(agent.state.error).toMatch(/abort/i);
    await server.requests[0]?.closed;
    expect(server.requests[0]?.closedEarly).toBe(true);
  });

  it("aborts in the middle of a tool: the command's process ends and the model is not asked again", async () => {
    const dir = workspace();
    const server = await fake([
      toolCallsTurn([{ id: "slow", name: "bash", arguments: { command: "echo $$ > pid.txt; sleep 30" } }]),
      textTurn("never"),
    ]);
    const { agent } = await agentFor(server, dir);
    const run = agent.prompt("wait");
    await until(() => existsSync(join(dir, "pid.txt")) && readFileSync(join(dir, "pid.txt"), "utf8").trim() !== "");
    agent.abort();
    await run;
    const pid = Number(readFileSync(join(dir, "pid.txt"), "utf8"));
    await until(() => !alive(pid));
    const result = agent.state.messages.at(-1) as ToolResultMessage;
    expect(result.role).toBe("toolResult");
    expect(result.isError).toBe(true);
    expect(server.requests).toHaveLength(1);
    expect(agent.state.error).toBe("aborted");
  });

  it("ends with the endpoint's answer when it fails with a 500", async () => {
    const dir = workspace();
    const server = await fake([{ status: 500, body: { error: { message: "model overloaded", type: "server_error" } } }]);
    const { agent } = await agentFor(server, dir);
    await agent.prompt("hi");
    expect(agent.state.error).toContain("500");
    expect(agent.state.error).toContain("model overloaded");
  });

  it("ends with a clear error on a malformed chunk", async () => {
    const dir = workspace();
    const server = await fake([{ chunks: [chunk({ content: "ok" }), "{not json"] }]);
    const { agent } = await agentFor(server, dir);
    await agent.prompt("hi");
    expect(agent.state.error).toMatch(/not json|malformed|parse/i);
  });
});

describe("toolhost agent", () => {
  function config(dir: string, server: FakeOpenAI, extra: unknown[] = []): void {
    writeConfig(dir, {
      plugins: [
        ["@toolhost/provider-openai", { model: "fake-model", baseURL: server.url, maxRetries: 0 }],
        "@toolhost/tool-fs",
        ["@toolhost/hooks-policy", { default: "allow" }],
        ...extra,
      ],
      agent: { systemPrompt: "You are a test." },
    });
  }

  it("streams the answer to stdout and each tool call to stderr", async () => {
    const dir = workspace();
    const server = await fake([
      toolCallsTurn([{ id: "c1", name: "read", arguments: { path: "notes.txt" } }]),
      textTurn("The notes say 42."),
    ]);
    config(dir, server);
    const run = await toolhost(["agent", "What do the notes say?"], { cwd: dir });
    expect(run.stderr).toContain('read {"path":"notes.txt"}');
    expect(run.stderr).toMatch(/✓ read/);
    expect(run.stdout).toBe("The notes say 42.\n");
    expect(run.code).toBe(0);
    expect(server.requests[0]?.body.messages[0]).toEqual({ role: "system", content: "You are a test." });
    expect(toolMessages(server.requests[1])[0]?.content).toContain("the answer is 42");
  });

  it("reads the prompt from stdin and prints every event as JSON lines with --json", async () => {
    const dir = workspace();
    const server = await fake([textTurn("hello")]);
    config(dir, server);
    const run = await toolhost(["agent", "--json"], { cwd: dir, input: "say hello\n" });
    expect(run.code).toBe(0);
    const types = jsonLines(run.stdout).map((event) => (event as { type: string }).type);
    expect(types[0]).toBe("agent_start");
    expect(types).toContain("message_update");
    expect(types.at(-1)).toBe("agent_end");
    expect(server.requests[0]?.body.messages.at(-1)).toEqual({ role: "user", content: "say hello" });
  });

  it("exits 1 with the endpoint's error", async () => {
    const dir = workspace();
    const server = await fake([{ status: 500, body: { error: { message: "model overloaded" } } }]);
    config(dir, server);
    const run = await toolhost(["agent", "hi"], { cwd: dir });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("model overloaded");
  });

  it("shows each tool's own time with a one-line preview of its result, and the run's usage at the end", async () => {
    const dir = workspace();
    const server = await fake([
      toolCallsTurn([{ id: "c1", name: "read", arguments: { path: "notes.txt" } }]),
      textTurn("The notes say 42.", { usage: { prompt: 1200, completion: 34 } }),
    ]);
    config(dir, server);
    const run = await toolhost(["agent", "What do the notes say?"], { cwd: dir });
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/^✓ read \(\d+ ms\) {2}.*the answer is 42$/m);
    expect(run.stderr).toContain("usage: 1,210 input + 39 output tokens in 2 model turns, cost not reported by the provider");
  });

  it("says an empty final answer, and the endpoint's retries", async () => {
    const dir = workspace();
    const server = await fake([{ status: 503 }, textTurn("")]);
    writeConfig(dir, { plugins: [["@toolhost/provider-openai", { model: "fake-model", baseURL: server.url, maxRetries: 2 }]] });
    const run = await toolhost(["agent", "hi"], { cwd: dir });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("");
    expect(run.stderr).toContain("the model endpoint was retried 1 time before it answered");
    expect(run.stderr).toContain("the model's final answer was empty (stop reason: stop)");
  });

  it("shows the cause of a connection failure (code, host and port), without doubled punctuation", async () => {
    const dir = workspace();
    const closed = await startFakeOpenAI([]);
    const url = closed.url;
    await closed.close();
    const port = new URL(url).port;
    writeConfig(dir, { plugins: [["@toolhost/provider-openai", { model: "fake-model", baseURL: url, maxRetries: 0 }]] });
    const run = await toolhost(["agent", "hi"], { cwd: dir });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`ECONNREFUSED 127.0.0.1:${port}`);
    expect(run.stderr).not.toMatch(/[.:]: |\.\./);
  });

  it("leaves the wait for approval out of the tool's time", async () => {
    const dir = workspace();
    const server = await fake([toolCallsTurn([{ id: "c1", name: "bash", arguments: { command: "echo approved-run" } }]), textTurn("done")]);
    writeConfig(dir, {
      plugins: [
        ["@toolhost/provider-openai", { model: "fake-model", baseURL: server.url, maxRetries: 0 }],
        ["@toolhost/tool-bash", { timeout: 30 }],
        ["@toolhost/hooks-policy", { default: "allow", rules: [{ tool: "bash", decision: "ask", reason: "a test asks" }] }],
      ],
    });
    const waitMs = 4000;
    const started = performance.now();
    const session = await inTerminal(["agent", "run it"], {
      cwd: dir,
      // Down to "Yes", then Enter, a while after the question shows.
      steps: [{ waitFor: "Run it?", send: "\u001B[B", delayMs: waitMs }, { waitFor: "● Yes", send: "\r" }],
    });
    expect(session.code).toBe(0);
    const shown = /✓ bash \((\d+) ms\)/.exec(session.output);
    expect(shown, session.output).not.toBeNull();
    // The wait was at least waitMs (the answer was typed that long after the question showed), and
    // the call lasted less than the whole run: its own time is at most the run less the wait,
    // however slow the machine. Counted in, the wait would make it at least waitMs, past that bound
    // unless starting the CLI alone took longer than the wait.
    const wall = performance.now() - started;
    expect(Number(shown?.[1])).toBeLessThanOrEqual(wall - waitMs);
    expect(session.output).toContain("approved-run");
  });

  it("refuses to start without a model provider, or without a key for OpenAI's endpoint", async () => {
    const dir = workspace();
    writeConfig(dir, { plugins: ["@toolhost/tool-fs"] });
    const none = await toolhost(["agent", "hi"], { cwd: dir });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain("No model provider is configured");
    expect(none.stderr).toContain("@toolhost/provider-openai");

    writeConfig(dir, { plugins: [["@toolhost/provider-openai", { model: "gpt-4o-mini" }]] });
    const noKey = await toolhost(["agent", "hi"], { cwd: dir, env: { OPENAI_API_KEY: undefined, OPENAI_BASE_URL: undefined } });
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toContain("OPENAI_API_KEY");
  });
});

/** Waits for the thing itself: the test's own (generous) bound ends a wait that never ends. */
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((r) => setTimeout(r, 10));
}

function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return !/\) Z /.test(stat);
  } catch {
    return false;
  }
}
