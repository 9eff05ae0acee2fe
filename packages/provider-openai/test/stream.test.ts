import { afterEach, describe, expect, it } from "vitest";
import { createOpenAIStreamFn } from "../src/index.js";
import { chunk, type FakeOpenAI, startFakeOpenAI, textTurn, toolCallsTurn, usageChunk } from "./_fake-openai.js";
import { collect, MODEL, textOf, userContext } from "./_helpers.js";

let fake: FakeOpenAI | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

async function streamFnFor(script: Parameters<typeof startFakeOpenAI>[0]) {
  fake = await startFakeOpenAI(script);
  return createOpenAIStreamFn({ baseURL: fake.url, apiKey: "test-key", maxRetries: 0 });
}

describe("streaming text", () => {
  it("yields each piece as a text_delta, then one done with the whole text, stop and usage", async () => {
    const streamFn = await streamFnFor([textTurn("Hello from the fake model.", { pieceSize: 5, usage: { prompt: 42, completion: 7 } })]);
    const { events, message } = await collect(streamFn, userContext("hi"));

    const deltas = events.flatMap((event) => (event.type === "text_delta" ? [event.delta] : []));
    expect(deltas).toEqual(["Hello", " from", " the ", "fake ", "model", "."]);
    expect(message).toMatchObject({
      role: "assistant",
      content: [{ type: "text", text: "Hello from the fake model." }],
      stopReason: "stop",
      model: "fake-model",
      usage: { input: 42, output: 7, cacheRead: 0, cacheWrite: 0, totalTokens: 49 },
    });
    expect(message.errorMessage).toBeUndefined();
    expect(typeof message.timestamp).toBe("number");
  });

  it("streams reasoning_content as thinking, before the text", async () => {
    const streamFn = await streamFnFor([
      {
        chunks: [
          chunk({ role: "assistant", reasoning_content: "Let me " }),
          chunk({ reasoning_content: "think." }),
          chunk({ content: "Answer." }),
          chunk({}, { finishReason: "stop" }),
        ],
      },
    ]);
    const { events, message } = await collect(streamFn, userContext("hi"));
    expect(events.map((event) => event.type)).toEqual(["thinking_delta", "thinking_delta", "text_delta", "done"]);
    expect(message.content).toEqual([
      { type: "thinking", thinking: "Let me think." },
      { type: "text", text: "Answer." },
    ]);
    // No usage chunk was sent: the message has none rather than zeros.
    expect(message.usage).toBeUndefined();
  });

  it("streams OpenRouter's and Ollama's reasoning field as thinking too", async () => {
    const streamFn = await streamFnFor([
      { chunks: [chunk({ reasoning: "Hmm." }), chunk({ content: "Yes." }), chunk({}, { finishReason: "stop" })] },
    ]);
    const { message } = await collect(streamFn, userContext("hi"));
    expect(message.content).toEqual([
      { type: "thinking", thinking: "Hmm." },
      { type: "text", text: "Yes." },
    ]);
  });
});

describe("tool calls", () => {
  const read = { id: "call_read", name: "read", arguments: { path: "src/index.ts", offset: 10, limit: 200 } };
  const bash = { id: "call_bash", name: "bash", arguments: { command: "ls -la && git status --short", timeout: 30 } };

  it("assembles two parallel calls whose arguments arrive interleaved across many chunks", async () => {
    const turn = toolCallsTurn([read, bash], { interleave: true, pieceSize: 3, text: "Looking." });
    const streamFn = await streamFnFor([turn]);
    const { events, message } = await collect(streamFn, userContext("look"));

    const toolDeltas = events.filter((event) => event.type === "toolcall_delta");
    expect(toolDeltas.length).toBeGreaterThan(20);
    // Deltas of both calls alternate, each tagged with the call's place in the message.
    expect(toolDeltas.slice(2, 6).map((event) => event.index)).toEqual([0, 1, 0, 1]);
    expect(toolDeltas[0]).toEqual({ type: "toolcall_delta", index: 0, id: "call_read", name: "read", argumentsDelta: "" });
    const rebuilt = [0, 1].map((index) =>
      toolDeltas.filter((event) => event.index === index).map((event) => event.argumentsDelta).join(""),
    );
    expect(rebuilt).toEqual([JSON.stringify(read.arguments), JSON.stringify(bash.arguments)]);

    expect(message.stopReason).toBe("toolUse");
    expect(message.content).toEqual([
      { type: "text", text: "Looking." },
      { type: "toolCall", id: "call_read", name: "read", arguments: read.arguments },
      { type: "toolCall", id: "call_bash", name: "bash", arguments: bash.arguments },
    ]);
  });

  it("assembles calls sent one after the other", async () => {
    const streamFn = await streamFnFor([toolCallsTurn([read, bash], { pieceSize: 2 })]);
    const { message } = await collect(streamFn, userContext("look"));
    expect(message.content).toEqual([
      { type: "toolCall", id: "call_read", name: "read", arguments: read.arguments },
      { type: "toolCall", id: "call_bash", name: "bash", arguments: bash.arguments },
    ]);
  });

  it("keeps arguments that are not valid JSON as the raw string, for the kernel's validation to report", async () => {
    const streamFn = await streamFnFor([
      toolCallsTurn([{ id: "c1", name: "bash", arguments: '{"command": "ls' }, { id: "c2", name: "ls", arguments: "" }]),
    ]);
    const { message } = await collect(streamFn, userContext("go"));
    expect(message.stopReason).toBe("toolUse");
    expect(message.content).toEqual([
      { type: "toolCall", id: "c1", name: "bash", arguments: '{"command": "ls' },
      // A call with no arguments at all gets an empty object.
      { type: "toolCall", id: "c2", name: "ls", arguments: {} },
    ]);
  });

  it("tells calls apart by id when a server gives them all index 0", async () => {
    const streamFn = await streamFnFor([
      {
        chunks: [
          chunk({ tool_calls: [{ index: 0, id: "a", type: "function", function: { name: "read", arguments: '{"path":' } }] }),
          chunk({ tool_calls: [{ index: 0, function: { arguments: '"x"}' } }] }),
          chunk({ tool_calls: [{ index: 0, id: "b", type: "function", function: { name: "ls", arguments: "{}" } }] }),
          chunk({}, { finishReason: "tool_calls" }),
        ],
      },
    ]);
    const { message } = await collect(streamFn, userContext("go"));
    expect(message.content).toEqual([
      { type: "toolCall", id: "a", name: "read", arguments: { path: "x" } },
      { type: "toolCall", id: "b", name: "ls", arguments: {} },
    ]);
  });
});

describe("stop reasons and usage", () => {
  it("maps length to length, keeping the text written so far", async () => {
    const streamFn = await streamFnFor([textTurn("Cut o", { finishReason: "length" })]);
    const { message } = await collect(streamFn, userContext("write a lot"));
    expect(message.stopReason).toBe("length");
    expect(textOf(message)).toBe("Cut o");
  });

  it("maps content_filter to an error that says the filter stopped it", async () => {
    const streamFn = await streamFnFor([textTurn("I can", { finishReason: "content_filter" })]);
    const { message } = await collect(streamFn, userContext("?"));
    expect(message.stopReason).toBe("error");
    expect(message.errorMessage).toMatch(/content_filter/);
    expect(message.errorMessage).toMatch(/content filter/);
  });

  it("says toolUse when a server answers stop after writing tool calls", async () => {
    const streamFn = await streamFnFor([
      toolCallsTurn([{ id: "c1", name: "ls", arguments: {} }], { finishReason: "stop" }),
    ]);
    const { message } = await collect(streamFn, userContext("?"));
    expect(message.stopReason).toBe("toolUse");
  });

  it("reports cached prompt tokens as cacheRead, apart from input", async () => {
    const streamFn = await streamFnFor([textTurn("ok", { usage: { prompt: 1000, completion: 20, cached: 800 } })]);
    const { message } = await collect(streamFn, userContext("?"));
    expect(message.usage).toEqual({
      input: 200,
      output: 20,
      cacheRead: 800,
      cacheWrite: 0,
      totalTokens: 1020,
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
    });
  });

  it("is an error, not a stop, when the stream ends without a finish_reason", async () => {
    const streamFn = await streamFnFor([{ chunks: [chunk({ content: "Half an ans" }), usageChunk({ prompt: 1, completion: 1 })] }]);
    const { message } = await collect(streamFn, userContext("?"));
    expect(message.stopReason).toBe("error");
    expect(message.errorMessage).toMatch(/ended before the model finished/);
    expect(textOf(message)).toBe("Half an ans");
  });
});

describe("failures in the stream", () => {
  it("turns a malformed chunk into an error message that names the endpoint", async () => {
    const streamFn = await streamFnFor([{ chunks: [chunk({ content: "Hel" }), "{not json at all", chunk({ content: "lo" })] }]);
    const { events, message } = await collect(streamFn, userContext("?"));
    expect(events.filter((event) => event.type === "text_delta")).toHaveLength(1);
    expect(message.stopReason).toBe("error");
    expect(message.errorMessage).toContain(`${fake!.url}/chat/completions`);
    expect(message.errorMessage).toMatch(/not valid JSON \(.*\): "\{not json at all"\./);
    expect(textOf(message)).toBe("Hel");
  });

  it("turns an error object sent in the stream into an error message with its text", async () => {
    const streamFn = await streamFnFor([
      { chunks: [chunk({ content: "Hi" }), { error: { message: "model overloaded, try later", type: "server_error" } }] },
    ]);
    const { message } = await collect(streamFn, userContext("?"));
    expect(message.stopReason).toBe("error");
    expect(message.errorMessage).toMatch(/in the middle of its answer: model overloaded, try later/);
  });

  it("turns the server dropping the connection into an error message", async () => {
    const streamFn = await streamFnFor([{ chunks: [chunk({ content: "Hi" })], drop: true }]);
    const { message } = await collect(streamFn, userContext("?"));
    expect(message.stopReason).toBe("error");
    expect(message.errorMessage).toContain(`The stream from the model endpoint ${fake!.url}/chat/completions failed`);
    expect(textOf(message)).toBe("Hi");
  });
});

describe("abort", () => {
  it("ends mid-stream as aborted with the text so far, and the server sees the connection closed", async () => {
    const streamFn = await streamFnFor([
      { chunks: [chunk({ role: "assistant", content: "One " }), chunk({ content: "two " })], hang: true },
    ]);
    const controller = new AbortController();
    let deltas = 0;
    const { message } = await collect(streamFn, userContext("count"), {
      signal: controller.signal,
      onEvent: (event) => {
        if (event.type === "text_delta" && ++deltas === 2) controller.abort();
      },
    });
    expect(message.stopReason).toBe("aborted");
    expect(message.errorMessage).toMatch(/Aborted/);
    expect(textOf(message)).toBe("One two ");
    await fake!.requests[0]!.closed;
    expect(fake!.requests[0]!.closedEarly).toBe(true);
  });

  it("closes the connection when the consumer stops reading", async () => {
    const streamFn = await streamFnFor([{ chunks: [chunk({ content: "One " })], hang: true }]);
    for await (const event of await streamFn(MODEL, userContext("count"), {})) {
      expect(event.type).toBe("text_delta");
      break;
    }
    await fake!.requests[0]!.closed;
    expect(fake!.requests[0]!.closedEarly).toBe(true);
  });

  it("is aborted at once, without a request, when the signal is already aborted", async () => {
    const streamFn = await streamFnFor([textTurn("never")]);
    const { events, message } = await collect(streamFn, userContext("?"), { signal: AbortSignal.abort() });
    expect(events).toHaveLength(1);
    expect(message.stopReason).toBe("aborted");
    expect(fake!.requests).toHaveLength(0);
  });

  it("is aborted at once while the SDK waits to retry", async () => {
    fake = await startFakeOpenAI([{ status: 503, headers: { "retry-after": "20" } }, textTurn("never")]);
    const streamFn = createOpenAIStreamFn({ baseURL: fake.url, maxRetries: 1 });
    const controller = new AbortController();
    const pending = collect(streamFn, userContext("?"), { signal: controller.signal });
    while (fake.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort();
    const { message } = await pending;
    expect(message.stopReason).toBe("aborted");
    expect(fake.requests).toHaveLength(1);
  });

  it("is aborted when the signal fires before the endpoint answers", async () => {
    const streamFn = await streamFnFor([{ noAnswer: true }]);
    const controller = new AbortController();
    const pending = collect(streamFn, userContext("?"), { signal: controller.signal });
    while (fake!.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort();
    const { message } = await pending;
    expect(message.stopReason).toBe("aborted");
    await fake!.requests[0]!.closed;
    expect(fake!.requests[0]!.closedEarly).toBe(true);
  });
});
