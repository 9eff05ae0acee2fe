import { SpanKind, SpanStatusCode, context } from "@opentelemetry/api";
import { DataPointType, type HistogramMetricData } from "@opentelemetry/sdk-metrics";
import { Agent, AgentHarness, type AssistantMessage, type StreamFn } from "@toolhost/core";
import policyPlugin from "@toolhost/hooks-policy";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createOtelPlugin, DURATION_BUCKETS } from "../src/index.js";
import { attributesOf, childTool, echoTool, inMemoryMeter, inMemoryTelemetry, parentIdOf, waitTool } from "./_helpers.js";

const telemetry = inMemoryTelemetry();

const POLICY = {
  default: "allow",
  extends: [
    {
      name: "org",
      locked: true,
      rules: [{ id: "org-release", tool: "echo", args: { text: "release*" }, decision: "ask", reason: "releases need a person" }],
    },
  ],
  rules: [
    { id: "no-secrets", tool: "echo", args: { text: "*secret*" }, decision: "deny", reason: "no secrets here" },
    { id: "ask-deploy", tool: "echo", args: { text: "deploy*" }, decision: "ask", reason: "deploys leave the machine" },
  ],
};

async function makeHarness(otelOptions: Record<string, unknown> = {}): Promise<AgentHarness> {
  const harness = new AgentHarness({ tools: [echoTool, waitTool, childTool], abortGraceMs: 200 });
  await harness.use(policyPlugin, POLICY);
  await harness.use(createOtelPlugin({ tracerProvider: telemetry.tracerProvider, meterProvider: telemetry.meterProvider }), otelOptions);
  harness.hooks.approve.tap("test-person", () => ({ approved: true, via: "terminal", scope: "once" }));
  return harness;
}

const byName = (name: string) => telemetry.spans().filter((span) => span.name === name);

describe("execute_tool spans", () => {
  let harness: AgentHarness;
  beforeEach(async () => {
    telemetry.reset();
    harness = await makeHarness();
  });
  afterEach(async () => {
    await harness.dispose();
  });

  it("gives each call of a batch a span under the caller's active span: siblings, named and attributed as the conventions say", async () => {
    const tracer = telemetry.tracerProvider.getTracer("test");
    const results = await tracer.startActiveSpan("application turn", async (turn) => {
      try {
        return await harness.executeToolCalls([
          { id: "call-1", name: "echo", arguments: { text: "one" } },
          { id: "call-2", name: "echo", arguments: { text: "two" } },
          { id: "call-3", name: "echo", arguments: { text: "three" } },
        ]);
      } finally {
        turn.end();
      }
    });
    expect(results.map((result) => result.isError)).toEqual([false, false, false]);
    const [turn] = byName("application turn");
    const calls = byName("execute_tool echo");
    expect(calls).toHaveLength(3);
    for (const span of calls) {
      expect(parentIdOf(span)).toBe(turn?.spanContext().spanId);
      expect(span.spanContext().traceId).toBe(turn?.spanContext().traceId);
      expect(span.kind).toBe(SpanKind.INTERNAL);
      expect(span.status.code).toBe(SpanStatusCode.UNSET);
    }
    expect(calls.map((span) => attributesOf(span)["gen_ai.tool.call.id"]).sort()).toEqual(["call-1", "call-2", "call-3"]);
    expect(attributesOf(calls[0]!)).toMatchObject({
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": "echo",
      "gen_ai.tool.type": "function",
      "gen_ai.tool.description": "Says the text back.",
    });
    // Content is recorded only when the user opts in.
    expect(attributesOf(calls[0]!)["gen_ai.tool.call.arguments"]).toBeUndefined();
    expect(attributesOf(calls[0]!)["gen_ai.tool.call.result"]).toBeUndefined();
  });

  it("a call with no active span starts a trace of its own", async () => {
    await context.with(context.active(), () => harness.executeToolCalls([{ id: "solo", name: "echo", arguments: { text: "x" } }]));
    const [span] = byName("execute_tool echo");
    expect(parentIdOf(span!)).toBeUndefined();
  });

  it("records the policy's denial: error.type, status, the decision, the rule and its layer", async () => {
    const [result] = await harness.executeToolCalls([{ id: "d1", name: "echo", arguments: { text: "my secret" } }]);
    expect(result?.isError).toBe(true);
    const [span] = byName("execute_tool echo");
    expect(span?.status.code).toBe(SpanStatusCode.ERROR);
    expect(attributesOf(span!)).toMatchObject({
      "error.type": "TOOLHOST_BLOCKED",
      "toolhost.decision": "deny",
      "toolhost.decision.by": "@toolhost/hooks-policy",
      "toolhost.decision.rules": ["no-secrets"],
      "toolhost.decision.layers": ["config"],
    });
    // The reason quotes the call: it is content, off by default.
    expect(attributesOf(span!)["toolhost.decision.reason"]).toBeUndefined();
    const [event] = span!.events;
    expect(event?.name).toBe("toolhost.decision");
    expect(event?.attributes).toMatchObject({ "toolhost.decision": "deny", "toolhost.decision.rules": ["no-secrets"] });
  });

  it("records an ask and its approval, and a locked layer's ask as locked", async () => {
    await harness.executeToolCalls([
      { id: "a1", name: "echo", arguments: { text: "deploy now" } },
      { id: "a2", name: "echo", arguments: { text: "release 1.0" } },
    ]);
    const spans = byName("execute_tool echo");
    const deploy = attributesOf(spans.find((span) => span.attributes["gen_ai.tool.call.id"] === "a1")!);
    const release = attributesOf(spans.find((span) => span.attributes["gen_ai.tool.call.id"] === "a2")!);
    expect(deploy).toMatchObject({
      "toolhost.decision": "allow",
      "toolhost.decision.rules": ["ask-deploy"],
      "toolhost.decision.layers": ["config"],
      "toolhost.approval.asked": true,
      "toolhost.approval.approved": true,
      "toolhost.approval.answered_by": "test-person",
      "toolhost.approval.via": "terminal",
      "toolhost.approval.scope": "once",
    });
    expect(deploy["toolhost.approval.locked"]).toBeUndefined();
    expect(deploy["error.type"]).toBeUndefined();
    expect(release).toMatchObject({ "toolhost.decision.rules": ["org-release"], "toolhost.decision.layers": ["org"], "toolhost.approval.locked": true });
  });

  it("tells a refusal, an abort and a time-out apart by error.type", async () => {
    const refused = new AgentHarness({ tools: [echoTool] });
    await refused.use(policyPlugin, POLICY);
    await refused.use(createOtelPlugin({ tracerProvider: telemetry.tracerProvider, meterProvider: telemetry.meterProvider }), {});
    // No approver: the ask is refused as not approved.
    await refused.executeToolCalls([{ id: "n1", name: "echo", arguments: { text: "deploy" } }]);
    const controller = new AbortController();
    const aborted = harness.executeToolCalls([{ id: "ab", name: "wait", arguments: {} }], { signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    await aborted;
    await harness.executeToolCalls([{ id: "to", name: "wait", arguments: {} }], { timeoutMs: 50 });
    const type = (id: string) => telemetry.spans().find((span) => span.attributes["gen_ai.tool.call.id"] === id)?.attributes["error.type"];
    expect([type("n1"), type("ab"), type("to")]).toEqual(["TOOLHOST_NOT_APPROVED", "TOOLHOST_ABORTED", "TOOLHOST_TIMED_OUT"]);
    const status = (id: string) => telemetry.spans().find((span) => span.attributes["gen_ai.tool.call.id"] === id)?.status;
    expect(status("n1")).toEqual({ code: SpanStatusCode.ERROR, message: "refused (TOOLHOST_NOT_APPROVED)" });
    expect(status("ab")).toEqual({ code: SpanStatusCode.ERROR, message: "aborted" });
    expect(status("to")).toEqual({ code: SpanStatusCode.ERROR, message: "timed out" });
    await refused.dispose();
  });

  it("records gen_ai.execute_tool.duration in seconds, by tool and error type, with the advised buckets", async () => {
    const meter = inMemoryMeter();
    const harness = new AgentHarness({ tools: [echoTool] });
    await harness.use(policyPlugin, POLICY);
    await harness.use(createOtelPlugin({ tracerProvider: telemetry.tracerProvider, meterProvider: meter.meterProvider }), {});
    await harness.executeToolCalls([
      { id: "m1", name: "echo", arguments: { text: "a" } },
      { id: "m2", name: "echo", arguments: { text: "b" } },
      { id: "m3", name: "echo", arguments: { text: "a secret" } },
      { id: "m4", name: "no_such_tool", arguments: {} },
    ]);
    const { scopeMetrics } = await meter.metrics();
    const metric = scopeMetrics.flatMap((scope) => scope.metrics).find((each) => each.descriptor.name === "gen_ai.execute_tool.duration") as HistogramMetricData;
    expect(metric.descriptor.unit).toBe("s");
    expect(metric.dataPointType).toBe(DataPointType.HISTOGRAM);
    const points = metric.dataPoints.map((point) => ({ attributes: point.attributes, count: point.value.count }));
    expect(points).toContainEqual({ attributes: { "gen_ai.tool.name": "echo", "gen_ai.tool.type": "function" }, count: 2 });
    expect(points).toContainEqual({ attributes: { "gen_ai.tool.name": "echo", "gen_ai.tool.type": "function", "error.type": "TOOLHOST_BLOCKED" }, count: 1 });
    // A name the model made up stays out of the metric's attributes.
    expect(points).toContainEqual({ attributes: { "gen_ai.tool.name": "_OTHER", "gen_ai.tool.type": "function", "error.type": "TOOLHOST_TOOL_NOT_FOUND" }, count: 1 });
    const ok = metric.dataPoints.find((point) => point.attributes["error.type"] === undefined);
    expect(ok?.value.buckets.boundaries).toEqual([...DURATION_BUCKETS]);
    expect(ok!.value.sum).toBeGreaterThanOrEqual(0);
    expect(ok!.value.sum).toBeLessThan(60);
    await harness.dispose();
  });
});

describe("content capture", () => {
  it("records arguments and results only when opted in, through hooks.redact", async () => {
    telemetry.reset();
    const harness = await makeHarness({ captureContent: true });
    const key = "AKIAIOSFODNN7EXAMPLE";
    await harness.executeToolCalls([
      { id: "c1", name: "echo", arguments: { text: `key ${key}` } },
      { id: "c2", name: "echo", arguments: { text: "deploy the secret" } },
    ]);
    const spans = byName("execute_tool echo");
    const ok = attributesOf(spans.find((span) => span.attributes["gen_ai.tool.call.id"] === "c1")!);
    expect(ok["gen_ai.tool.call.arguments"]).toBe('{"text":"key [redacted AWS key]"}');
    expect(ok["gen_ai.tool.call.result"]).toBe('[{"type":"text","text":"key [redacted AWS key]"}]');
    expect(JSON.stringify(ok)).not.toContain(key);
    const denied = attributesOf(spans.find((span) => span.attributes["gen_ai.tool.call.id"] === "c2")!);
    // A failed call has no result attribute (the conventions: only if successful); its reason is content, now recorded.
    expect(denied["gen_ai.tool.call.result"]).toBeUndefined();
    expect(denied["toolhost.decision.reason"]).toContain("no secrets here");
    await harness.dispose();
  });

  it("cuts long content at maxContentLength, saying how much was left out", async () => {
    telemetry.reset();
    const harness = await makeHarness({ captureContent: true, maxContentLength: 100 });
    await harness.executeToolCalls([{ id: "long", name: "echo", arguments: { text: "x".repeat(500) } }]);
    const [span] = byName("execute_tool echo");
    const text = String(attributesOf(span!)["gen_ai.tool.call.arguments"]);
    expect(text.startsWith(`{"text":"${"x".repeat(91)}…`)).toBe(true);
    expect(text).toMatch(/… \(411 more characters\)$/);
    await harness.dispose();
  });
});

describe("trace context handed on", () => {
  it("fills the call's carrier with its own span: a child process prints $TRACEPARENT of the call's span", async () => {
    telemetry.reset();
    const harness = await makeHarness();
    const tracer = telemetry.tracerProvider.getTracer("test");
    const [result] = await tracer.startActiveSpan("outer", async (outer) => {
      try {
        return await harness.executeToolCalls([{ id: "k1", name: "child", arguments: {} }]);
      } finally {
        outer.end();
      }
    });
    const [span] = byName("execute_tool child");
    const { traceId, spanId } = span!.spanContext();
    const [traceparent, tracestate] = (result?.content[0] as { text: string }).text.split("|");
    expect(traceparent).toBe(`00-${traceId}-${spanId}-01`);
    expect(tracestate).toBe("");
    await harness.dispose();
  });

  it("hands on nothing when no SDK records (the API's no-op tracer and no parent)", async () => {
    const harness = new AgentHarness({ tools: [childTool] });
    await harness.use(createOtelPlugin(), {});
    const [result] = await harness.executeToolCalls([{ id: "k2", name: "child", arguments: {} }]);
    expect(result?.isError).toBe(false);
    expect(result?.details).toEqual({ carrier: {} });
    await harness.dispose();
  });
});

describe("the agent loop", () => {
  it("makes an invoke_agent span with a chat span per model turn; the calls of a turn are siblings under it", async () => {
    telemetry.reset();
    const harness = await makeHarness();
    const turns: AssistantMessage[] = [
      {
        role: "assistant",
        content: [
          { type: "toolCall", id: "t1", name: "echo", arguments: { text: "first" } },
          { type: "toolCall", id: "t2", name: "echo", arguments: { text: "second" } },
        ],
        stopReason: "toolUse",
        model: "scripted-1",
        usage: { input: 10, output: 5, cacheRead: 2, cacheWrite: 0, totalTokens: 17, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
        timestamp: Date.now(),
      },
      { role: "assistant", content: [{ type: "text", text: "done" }], stopReason: "stop", model: "scripted-1", timestamp: Date.now() },
    ];
    let turn = 0;
    const streamFn: StreamFn = async function* () {
      yield { type: "done", message: turns[turn++] as AssistantMessage };
    };
    harness.provideService("model", { model: { id: "scripted-1", provider: "test" }, streamFn });
    const agent = new Agent({ initialState: { model: { id: "scripted-1", provider: "test" } }, streamFn, harness });
    await agent.prompt("go");
    const [root] = byName("invoke_agent toolhost");
    const chats = byName("chat scripted-1");
    const calls = byName("execute_tool echo");
    expect(root).toBeDefined();
    expect(parentIdOf(root!)).toBeUndefined();
    expect(attributesOf(root!)).toMatchObject({ "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "toolhost", "gen_ai.request.model": "scripted-1" });
    expect(chats).toHaveLength(2);
    expect(calls).toHaveLength(2);
    for (const span of [...chats, ...calls]) expect(parentIdOf(span)).toBe(root!.spanContext().spanId);
    expect(chats[0]!.kind).toBe(SpanKind.CLIENT);
    expect(attributesOf(chats[0]!)).toMatchObject({
      "gen_ai.operation.name": "chat",
      "gen_ai.provider.name": "test",
      "gen_ai.response.model": "scripted-1",
      "gen_ai.usage.input_tokens": 12,
      "gen_ai.usage.output_tokens": 5,
      "gen_ai.usage.cache_read.input_tokens": 2,
      "gen_ai.response.finish_reasons": ["toolUse"],
    });
    await harness.dispose();
  });

  it("leaves the agent loop's spans out with agentSpans: false", async () => {
    telemetry.reset();
    const harness = await makeHarness({ agentSpans: false });
    const streamFn: StreamFn = async function* () {
      yield { type: "done", message: { role: "assistant", content: [{ type: "text", text: "hi" }], stopReason: "stop", timestamp: Date.now() } };
    };
    await new Agent({ initialState: { model: { id: "m" } }, streamFn, harness }).prompt("hi");
    expect(telemetry.spans()).toEqual([]);
    await harness.dispose();
  });
});

