import { Type, type AgentContext, type AnyAgentTool } from "@toolhost/core";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createOpenAIStreamFn } from "../src/index.js";
import { type FakeOpenAI, startFakeOpenAI, textTurn } from "./_fake-openai.js";
import { collect, userContext } from "./_helpers.js";

let fake: FakeOpenAI | undefined;
beforeEach(() => {
  vi.stubEnv("OPENAI_API_KEY", "");
  vi.stubEnv("OPENAI_BASE_URL", "");
});
afterEach(async () => {
  vi.unstubAllEnvs();
  await fake?.close();
  fake = undefined;
});

const readTool: AnyAgentTool = {
  name: "read",
  label: "Read",
  description: "Reads a file.",
  parameters: Type.Object({
    path: Type.String({ description: "The file to read." }),
    limit: Type.Optional(Type.Integer({ minimum: 1 })),
  }),
  execute: async () => ({ content: [], details: undefined }),
};

const PIXEL = "iVBORw0KGgo=";

/** A conversation with every kind of message: text, parallel calls, results (one with an image), an aborted turn. */
function fullContext(): AgentContext {
  return {
    systemPrompt: "You are terse.",
    tools: [readTool],
    messages: [
      { role: "user", content: "Read a.txt and b.png", timestamp: 1 },
      {
        role: "assistant",
        content: [
          { type: "thinking", thinking: "two reads" },
          { type: "text", text: "Reading both." },
          { type: "toolCall", id: "c1", name: "read", arguments: { path: "a.txt" } },
          { type: "toolCall", id: "c2", name: "read", arguments: '{"path": "b.png"' },
        ],
        stopReason: "toolUse",
        timestamp: 2,
      },
      {
        role: "toolResult",
        toolCallId: "c1",
        toolName: "read",
        content: [{ type: "text", text: "alpha" }],
        details: {},
        isError: false,
        timestamp: 3,
      },
      {
        role: "toolResult",
        toolCallId: "c2",
        toolName: "read",
        content: [{ type: "image", data: PIXEL, mimeType: "image/png" }],
        details: {},
        isError: false,
        timestamp: 4,
      },
      {
        role: "assistant",
        content: [{ type: "toolCall", id: "c3", name: "read", arguments: { path: "half" } }],
        stopReason: "aborted",
        errorMessage: "Aborted",
        timestamp: 5,
      },
      {
        role: "user",
        content: [
          { type: "text", text: "And this one?" },
          { type: "image", data: PIXEL, mimeType: "image/jpeg" },
        ],
        timestamp: 6,
      },
    ],
  };
}

describe("the request", () => {
  it("sends the model, stream options, tools as plain JSON Schema, and every message in Chat Completions form", async () => {
    fake = await startFakeOpenAI([textTurn("ok")]);
    const streamFn = createOpenAIStreamFn({ baseURL: fake.url, temperature: 0.2, maxTokens: 512 });
    await collect(streamFn, fullContext());

    const request = fake.requests[0]!;
    expect(request.method).toBe("POST");
    expect(request.path).toBe("/v1/chat/completions");
    const body = request.body;
    expect(body).toMatchObject({
      model: "fake-model",
      stream: true,
      stream_options: { include_usage: true },
      temperature: 0.2,
      // Not api.openai.com: the widely understood name.
      max_tokens: 512,
    });
    expect(body.max_completion_tokens).toBeUndefined();
    expect(body.tools).toEqual([
      {
        type: "function",
        function: {
          name: "read",
          description: "Reads a file.",
          parameters: {
            type: "object",
            properties: {
              path: { type: "string", description: "The file to read." },
              limit: { type: "integer", minimum: 1 },
            },
            required: ["path"],
          },
        },
      },
    ]);
    expect(body.messages).toEqual([
      { role: "system", content: "You are terse." },
      { role: "user", content: "Read a.txt and b.png" },
      {
        role: "assistant",
        content: "Reading both.",
        tool_calls: [
          { id: "c1", type: "function", function: { name: "read", arguments: '{"path":"a.txt"}' } },
          // Arguments that were not JSON go back exactly as the model wrote them.
          { id: "c2", type: "function", function: { name: "read", arguments: '{"path": "b.png"' } },
        ],
      },
      { role: "tool", tool_call_id: "c1", content: "alpha" },
      { role: "tool", tool_call_id: "c2", content: "(1 image follows in the next user message)" },
      {
        role: "user",
        content: [
          { type: "text", text: "Image of tool call c2 (read):" },
          { type: "image_url", image_url: { url: `data:image/png;base64,${PIXEL}` } },
        ],
      },
      // The aborted assistant message had only an unanswered call: it is left out.
      {
        role: "user",
        content: [
          { type: "text", text: "And this one?" },
          { type: "image_url", image_url: { url: `data:image/jpeg;base64,${PIXEL}` } },
        ],
      },
    ]);
  });

  it("sends no tools key when no tool is active, and no sampling options when none are set", async () => {
    fake = await startFakeOpenAI([textTurn("ok")]);
    await collect(createOpenAIStreamFn({ baseURL: fake.url }), userContext("hi"));
    const body = fake.requests[0]!.body;
    expect(Object.keys(body).sort()).toEqual(["messages", "model", "stream", "stream_options"]);
    expect(body.messages).toEqual([{ role: "user", content: "hi" }]);
  });

  it("sends the API key as a bearer token, and the extra headers", async () => {
    fake = await startFakeOpenAI([textTurn("ok")]);
    const streamFn = createOpenAIStreamFn({
      baseURL: fake.url,
      apiKey: "sk-test-123",
      headers: { "HTTP-Referer": "https://example.test", "X-Title": "toolhost tests" },
    });
    await collect(streamFn, userContext("hi"));
    const headers = fake.requests[0]!.headers;
    expect(headers.authorization).toBe("Bearer sk-test-123");
    expect(headers["http-referer"]).toBe("https://example.test");
    expect(headers["x-title"]).toBe("toolhost tests");
  });

  it("takes the key from OPENAI_API_KEY, or from the variable apiKeyEnv names", async () => {
    fake = await startFakeOpenAI([textTurn("ok"), textTurn("ok")]);
    vi.stubEnv("OPENAI_API_KEY", "sk-from-env");
    vi.stubEnv("MY_ROUTER_KEY", "sk-router");
    await collect(createOpenAIStreamFn({ baseURL: fake.url }), userContext("hi"));
    await collect(createOpenAIStreamFn({ baseURL: fake.url, apiKeyEnv: "MY_ROUTER_KEY" }), userContext("hi"));
    expect(fake.requests.map((request) => request.headers.authorization)).toEqual(["Bearer sk-from-env", "Bearer sk-router"]);
  });

  it("sends no Authorization header to a custom endpoint when there is no key", async () => {
    fake = await startFakeOpenAI([textTurn("ok")]);
    const { message } = await collect(createOpenAIStreamFn({ baseURL: fake.url }), userContext("hi"));
    expect(message.stopReason).toBe("stop");
    expect(fake.requests[0]!.headers.authorization).toBeUndefined();
  });

  it("uses OPENAI_BASE_URL when no baseURL is given", async () => {
    fake = await startFakeOpenAI([textTurn("ok")]);
    vi.stubEnv("OPENAI_BASE_URL", fake.url);
    const { message } = await collect(createOpenAIStreamFn(), userContext("hi"));
    expect(message.stopReason).toBe("stop");
    expect(fake.requests).toHaveLength(1);
  });
});
