import { createRequire } from "node:module";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { BasicTracerProvider, InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { createOtelPlugin } from "@toolhost/otel";
import { generateText, stepCountIs } from "ai";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { toolhostTools } from "../src/index.js";
import { workspace } from "./_helpers.js";
import { scriptedModel } from "./_model.js";

// The context manager is registered through the newest copy of the OpenTelemetry API in this
// install (the AI SDK's own), which every older copy (the SDK's, toolhost's) accepts; an
// application with one copy of the API registers it once as usual.
const aiApi = createRequire(createRequire(import.meta.url).resolve("ai"))("@opentelemetry/api") as typeof import("@opentelemetry/api");

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const tracer = provider.getTracer("application");

beforeAll(() => {
  aiApi.context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
});

let ws: Awaited<ReturnType<typeof workspace>>;
beforeEach(async () => {
  exporter.reset();
  ws = await workspace();
  await ws.harness.use(createOtelPlugin({ tracerProvider: provider }), {});
});
afterEach(async () => {
  await ws.remove();
});

const parentOf = (span: ReadableSpan | undefined) => span?.parentSpanContext?.spanId;
const named = (name: string) => exporter.getFinishedSpans().filter((span) => span.name === name);

describe("toolhostTools with @toolhost/otel", () => {
  it("a model's parallel calls are sibling execute_tool spans under the application's span", async () => {
    const { model } = scriptedModel([
      {
        calls: [
          { id: "a", name: "read", input: { path: "notes.txt" } },
          { id: "b", name: "grep", input: { pattern: "note", path: "." } },
        ],
      },
      { text: "done" },
    ]);
    await tracer.startActiveSpan("application turn", async (turn) => {
      try {
        await generateText({ model, tools: toolhostTools(ws.harness), prompt: "look", stopWhen: stepCountIs(3) });
      } finally {
        turn.end();
      }
    });
    const [turn] = named("application turn");
    const calls = [...named("execute_tool read"), ...named("execute_tool grep")];
    expect(calls).toHaveLength(2);
    for (const span of calls) expect(parentOf(span)).toBe(turn?.spanContext().spanId);
    // One batch: the kernel started both calls before either ended.
    const starts = ws.events.filter((event) => event.type === "tool_execution_start").map((event) => (event as { toolCallId: string }).toolCallId);
    const firstEnd = ws.events.findIndex((event) => event.type === "tool_execution_end");
    expect(ws.events.slice(0, firstEnd).filter((event) => event.type === "tool_execution_start")).toHaveLength(2);
    expect(starts).toEqual(["a", "b"]);
  });

  it("with the SDK's own telemetry on, each call's span is a child of its ai.toolCall span", async () => {
    const { model } = scriptedModel([
      {
        calls: [
          { id: "c", name: "read", input: { path: "notes.txt" } },
          { id: "d", name: "ls", input: { path: "." } },
        ],
      },
      { text: "done" },
    ]);
    await generateText({
      model,
      tools: toolhostTools(ws.harness),
      prompt: "look",
      stopWhen: stepCountIs(3),
      experimental_telemetry: { isEnabled: true, tracer: provider.getTracer("ai") },
    });
    const toolCalls = named("ai.toolCall");
    expect(toolCalls).toHaveLength(2);
    for (const [name, id] of [
      ["execute_tool read", "c"],
      ["execute_tool ls", "d"],
    ] as const) {
      const [span] = named(name);
      const aiSpan = toolCalls.find((each) => each.attributes["ai.toolCall.id"] === id);
      expect(span?.attributes["gen_ai.tool.call.id"]).toBe(id);
      expect(parentOf(span)).toBe(aiSpan?.spanContext().spanId);
    }
  });
});
