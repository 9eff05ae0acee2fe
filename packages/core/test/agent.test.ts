import { Type } from "@toolhost/core";
import {
  Agent,
  AgentHarness,
  ErrorCode,
  type AgentTool,
  type AssistantMessage,
  type AssistantStreamEvent,
  type StreamFn,
  type ToolCall,
  type ToolResultMessage,
} from "@toolhost/core";
import { describe, expect, it } from "vitest";
import { deferred, textOf } from "./_helpers.js";

const usage = (n: number) => ({
  input: n,
  output: n,
  cacheRead: 0,
  cacheWrite: 0,
  totalTokens: 2 * n,
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0.001 * n },
});

function assistant(content: AssistantMessage["content"], stopReason: AssistantMessage["stopReason"] = "stop"): AssistantMessage {
  return { role: "assistant", content, stopReason, usage: usage(1), timestamp: Date.now() };
}

function toolCall(id: string, name: string, args: unknown): ToolCall {
  return { type: "toolCall", id, name, arguments: args };
}

/** A model that answers each turn from a script, streaming the text and tool calls of each message, and records what it was given. */
function scriptedModel(turns: AssistantMessage[]) {
  const seen: { tools: string[]; messages: string[] }[] = [];
  const streamFn: StreamFn = async function* (_model, context) {
    seen.push({
      tools: context.tools.map((tool) => tool.name),
      messages: context.messages.map((m) => m.role),
    });
    const message = turns.shift();
    if (!message) throw new Error("the script has no more turns");
    for (const block of message.content) {
      if (block.type === "text") yield { type: "text_delta", delta: block.text } satisfies AssistantStreamEvent;
      if (block.type === "toolCall") {
        yield { type: "toolcall_delta", index: 0, id: block.id, name: block.name, argumentsDelta: JSON.stringify(block.arguments) };
      }
    }
    yield { type: "done", message };
  };
  return { streamFn, seen };
}

const echoSchema = Type.Object({ text: Type.String() });
function echoTool(name: string, extra: Partial<AgentTool<typeof echoSchema>> = {}): AgentTool<typeof echoSchema> {
  return {
    name,
    label: name,
    description: `echoes (${name})`,
    parameters: echoSchema,
    async execute(_id, { text }) {
      return { content: [{ type: "text", text: `${name}: ${text}` }], details: {} };
    },
    ...extra,
  };
}

describe("Agent", () => {
  it("runs the model's tool calls, gives it the results, and stops when it answers without calls", async () => {
    const harness = new AgentHarness({ tools: [echoTool("a"), echoTool("b")] });
    const { streamFn, seen } = scriptedModel([
      assistant([toolCall("1", "a", { text: "x" }), toolCall("2", "b", { text: "y" })], "toolUse"),
      assistant([{ type: "text", text: "all done" }]),
    ]);
    const agent = new Agent({ initialState: { model: { id: "test" }, systemPrompt: "be brief" }, streamFn, harness });
    const events: string[] = [];
    agent.subscribe((event) => events.push(event.type));
    await agent.prompt("go");
    const { messages, usage: sum, error } = agent.state;
    expect(error).toBeUndefined();
    expect(messages.map((m) => m.role)).toEqual(["user", "assistant", "toolResult", "toolResult", "assistant"]);
    expect(messages.slice(2, 4).map((m) => textOf(m as ToolResultMessage))).toEqual(["a: x", "b: y"]);
    expect(seen.map((s) => s.messages)).toEqual([["user"], ["user", "assistant", "toolResult", "toolResult"]]);
    expect(sum.totalTokens).toBe(4);
    expect(events[0]).toBe("agent_start");
    expect(events.at(-1)).toBe("agent_end");
    expect(events.filter((e) => e === "turn_start")).toHaveLength(2);
    expect(events).toContain("message_update");
    expect(events).toContain("tool_execution_end");
  });

  it("stops when every result of a batch says terminate", async () => {
    const harness = new AgentHarness({
      tools: [echoTool("done", { execute: async () => ({ content: [{ type: "text", text: "bye" }], details: {}, terminate: true }) })],
    });
    const { streamFn, seen } = scriptedModel([assistant([toolCall("1", "done", { text: "" })], "toolUse")]);
    const agent = new Agent({ initialState: { model: { id: "t" } }, streamFn, harness });
    await agent.prompt("finish");
    expect(seen).toHaveLength(1);
    expect(agent.state.messages.at(-1)?.role).toBe("toolResult");
  });

  it("makes tools named in addedToolNames active from the next turn on", async () => {
    const harness = new AgentHarness({
      tools: [
        echoTool("unlock", { execute: async () => ({ content: [{ type: "text", text: "ok" }], details: {}, addedToolNames: ["secret"] }) }),
        echoTool("secret"),
      ],
    });
    const { streamFn, seen } = scriptedModel([
      assistant([toolCall("1", "unlock", { text: "" })], "toolUse"),
      assistant([{ type: "text", text: "thanks" }]),
    ]);
    const agent = new Agent({ initialState: { model: { id: "t" }, activeTools: ["unlock"] }, streamFn, harness });
    await agent.prompt("hi");
    expect(seen.map((s) => s.tools)).toEqual([["unlock"], ["unlock", "secret"]]);
    expect(agent.state.activeTools).toEqual(["unlock", "secret"]);
  });

  it("fails the tool calls of a message cut off for length instead of running them", async () => {
    let ran = false;
    const harness = new AgentHarness({
      tools: [echoTool("w", { execute: async () => { ran = true; return { content: [], details: {} }; } })],
    });
    const { streamFn } = scriptedModel([assistant([toolCall("1", "w", { text: "half" })], "length")]);
    const agent = new Agent({ initialState: { model: { id: "t" } }, streamFn, harness });
    await agent.prompt("write a lot");
    const last = agent.state.messages.at(-1) as ToolResultMessage;
    expect(ran).toBe(false);
    expect(last.isError).toBe(true);
    expect(textOf(last)).toContain("cut off");
    expect((last.details as { code: string }).code).toBe(ErrorCode.OUTPUT_CUT_OFF);
    expect(agent.state.error).toContain("cut off");
  });

  it("uses the agent's toolExecution over the harness's", async () => {
    const log: string[] = [];
    const slow = echoTool("s", {
      async execute(_id, { text }) {
        log.push(`start ${text}`);
        await new Promise((r) => setImmediate(r));
        log.push(`end ${text}`);
        return { content: [], details: {} };
      },
    });
    const harness = new AgentHarness({ tools: [slow] });
    const { streamFn } = scriptedModel([
      assistant([toolCall("1", "s", { text: "1" }), toolCall("2", "s", { text: "2" })], "toolUse"),
      assistant([{ type: "text", text: "ok" }]),
    ]);
    const agent = new Agent({ initialState: { model: { id: "t" } }, streamFn, harness, toolExecution: "sequential" });
    await agent.prompt("go");
    expect(log).toEqual(["start 1", "end 1", "start 2", "end 2"]);
  });

  it("ends the run with the error when the stream throws, and can continue after", async () => {
    let fail = true;
    const streamFn: StreamFn = async function* () {
      if (fail) throw new Error("connection reset");
      yield { type: "done", message: assistant([{ type: "text", text: "back" }]) };
    };
    const agent = new Agent({ initialState: { model: { id: "t" } }, streamFn });
    await agent.prompt("hi");
    expect(agent.state.error).toBe("the model's stream failed: connection reset");
    expect((agent.state.messages.at(-1) as AssistantMessage).stopReason).toBe("error");
    fail = false;
    await agent.continue();
    expect(agent.state.error).toBeUndefined();
    expect(textOf(agent.state.messages.at(-1) as never)).toBe("back");
  });

  it("aborts in the middle of a stream", async () => {
    const streaming = deferred();
    const streamFn: StreamFn = async function* (_m, _c, { signal }) {
      yield { type: "text_delta", delta: "thinking about it" };
      streaming.resolve();
      await new Promise((resolve) => signal?.addEventListener("abort", resolve, { once: true }));
      yield { type: "done", message: { ...assistant([{ type: "text", text: "thinking about it" }], "aborted"), errorMessage: "aborted" } };
    };
    const agent = new Agent({ initialState: { model: { id: "t" } }, streamFn });
    const run = agent.prompt("hi");
    await streaming.promise;
    agent.abort();
    await run;
    expect(agent.state.error).toBe("aborted");
    expect(agent.state.isRunning).toBe(false);
  });

  it("aborts in the middle of a tool: the call ends aborted and the model is not asked again", async () => {
    const started = deferred();
    const hang = echoTool("hang", {
      execute: (_id, _args, signal) => {
        started.resolve();
        return new Promise((_r, reject) => signal.addEventListener("abort", () => reject(new Error("stop")), { once: true }));
      },
    });
    const { streamFn, seen } = scriptedModel([assistant([toolCall("1", "hang", { text: "" })], "toolUse")]);
    const agent = new Agent({ initialState: { model: { id: "t" } }, streamFn, harness: new AgentHarness({ tools: [hang] }) });
    const run = agent.prompt("hi");
    await started.promise;
    agent.abort();
    await run;
    const last = agent.state.messages.at(-1) as ToolResultMessage;
    expect((last.details as { code: string }).code).toBe(ErrorCode.ABORTED);
    expect(seen).toHaveLength(1);
    expect(agent.state.error).toBe("aborted");
  });

  it("refuses a second run while one is going", async () => {
    const gate = deferred();
    const streamFn: StreamFn = async function* () {
      await gate.promise;
      yield { type: "done", message: assistant([{ type: "text", text: "ok" }]) };
    };
    const agent = new Agent({ initialState: { model: { id: "t" } }, streamFn });
    const first = agent.prompt("one");
    await expect(agent.prompt("two")).rejects.toThrow(/already running/);
    gate.resolve();
    await first;
  });

  it("stops after maxTurns", async () => {
    const harness = new AgentHarness({ tools: [echoTool("a")] });
    const streamFn: StreamFn = async function* () {
      yield { type: "done", message: assistant([toolCall(String(Math.random()), "a", { text: "again" })], "toolUse") };
    };
    const agent = new Agent({ initialState: { model: { id: "t" } }, streamFn, harness, maxTurns: 3 });
    await agent.prompt("loop");
    expect(agent.state.messages.filter((m) => m.role === "assistant")).toHaveLength(3);
    expect(agent.state.error).toContain("maxTurns");
  });
});
