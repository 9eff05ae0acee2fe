import { execFile } from "node:child_process";
import { cpSync, mkdirSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { type IncomingMessage, type Server, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { promisify } from "node:util";
import { gunzipSync } from "node:zlib";
import { trace } from "@opentelemetry/api";
import { AgentHarness } from "@toolhost/core";
import policyPlugin from "@toolhost/hooks-policy";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import otelPlugin, { type OtlpHandle, startOtlpFromEnvironment } from "../src/index.js";
import { childTool, echoTool, tempFolder } from "./_helpers.js";

const run = promisify(execFile);

/** What an OTLP/JSON receiver got: each request's path and decoded body. */
interface Received {
  path: string;
  contentType: string | undefined;
  body: Record<string, unknown>;
}

/** A receiver of OTLP/HTTP on 127.0.0.1: it answers 200 and keeps each body, decoded (JSON, gzip or not). */
async function startReceiver(): Promise<{ server: Server; url: string; received: Received[] }> {
  const received: Received[] = [];
  const server = createServer((request: IncomingMessage, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      let raw = Buffer.concat(chunks);
      if (request.headers["content-encoding"] === "gzip") raw = gunzipSync(raw);
      received.push({ path: request.url ?? "", contentType: request.headers["content-type"], body: JSON.parse(raw.toString("utf8")) as Record<string, unknown> });
      response.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received };
}

interface OtlpAttribute {
  key: string;
  value: { stringValue?: string; intValue?: number | string; doubleValue?: number; boolValue?: boolean; arrayValue?: { values: OtlpAttribute["value"][] } };
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: OtlpAttribute[];
  events?: { name: string; attributes: OtlpAttribute[] }[];
  status?: { code?: number; message?: string };
}

/** An OTLP attribute list as plain values. */
function plain(attributes: OtlpAttribute[] = []): Record<string, unknown> {
  const value = (each: OtlpAttribute["value"]): unknown =>
    each.arrayValue ? each.arrayValue.values.map(value) : (each.stringValue ?? (each.intValue !== undefined ? Number(each.intValue) : (each.boolValue ?? each.doubleValue)));
  return Object.fromEntries(attributes.map((each) => [each.key, value(each.value)]));
}

describe("OTLP/HTTP to a receiver on 127.0.0.1", () => {
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let handle: OtlpHandle | undefined;
  let spans: OtlpSpan[] = [];
  let childOutput = "";
  let metricsBodies: Record<string, unknown>[] = [];
  let traceBodies: Received[] = [];
  const key = "AKIAIOSFODNN7EXAMPLE";

  beforeAll(async () => {
    receiver = await startReceiver();
    const harness = new AgentHarness({ tools: [echoTool, childTool] });
    await harness.use(policyPlugin, { default: "allow", rules: [{ id: "no-secrets", tool: "echo", args: { text: "*secret*" }, decision: "deny", reason: "no secrets" }] });
    await harness.use(otelPlugin, { captureContent: true });
    // Started after the plugin was applied, before the first call: the plugin finds the SDK's providers then.
    handle = await startOtlpFromEnvironment({ env: { OTEL_EXPORTER_OTLP_ENDPOINT: `${receiver.url}/`, OTEL_SERVICE_NAME: "otlp-test" }, metricIntervalMs: 60_000 });
    const results = await trace.getTracer("application").startActiveSpan("application turn", async (turn) => {
      try {
        return await harness.executeToolCalls([
          { id: "p1", name: "echo", arguments: { text: `key ${key}` } },
          { id: "p2", name: "child", arguments: {} },
          { id: "p3", name: "echo", arguments: { text: "the secret" } },
        ]);
      } finally {
        turn.end();
      }
    });
    childOutput = (results[1]?.content[0] as { text: string }).text;
    await harness.dispose();
    await handle?.shutdown();
    traceBodies = receiver.received.filter((each) => each.path === "/v1/traces");
    metricsBodies = receiver.received.filter((each) => each.path === "/v1/metrics").map((each) => each.body);
    spans = traceBodies.flatMap((each) =>
      (each.body.resourceSpans as { scopeSpans: { spans: OtlpSpan[] }[] }[]).flatMap((resource) => resource.scopeSpans.flatMap((scope) => scope.spans)),
    );
  });

  afterAll(async () => {
    await new Promise((resolve) => receiver.server.close(resolve));
  });

  it("sends the spans as OTLP/JSON to <endpoint>/v1/traces, with the service name", () => {
    expect(handle?.tracesUrl).toBe(`${receiver.url}/v1/traces`);
    expect(traceBodies.length).toBeGreaterThan(0);
    expect(traceBodies[0]?.contentType).toBe("application/json");
    const resource = (traceBodies[0]?.body.resourceSpans as { resource: { attributes: OtlpAttribute[] } }[])[0]?.resource;
    expect(plain(resource?.attributes)["service.name"]).toBe("otlp-test");
    expect(spans.map((span) => span.name).sort()).toEqual(["application turn", "execute_tool child", "execute_tool echo", "execute_tool echo"]);
  });

  it("exports the conventions' attribute names and values; the parallel calls are siblings under the caller's span", () => {
    const turn = spans.find((span) => span.name === "application turn") as OtlpSpan;
    const calls = spans.filter((span) => span.name.startsWith("execute_tool "));
    for (const span of calls) {
      expect(span.parentSpanId).toBe(turn.spanId);
      expect(span.traceId).toBe(turn.traceId);
      expect(span.kind).toBe(1); // SPAN_KIND_INTERNAL
    }
    const echo = plain(calls.find((span) => plain(span.attributes)["gen_ai.tool.call.id"] === "p1")?.attributes);
    expect(echo).toMatchObject({
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": "echo",
      "gen_ai.tool.call.id": "p1",
      "gen_ai.tool.type": "function",
      "gen_ai.tool.description": "Says the text back.",
    });
  });

  it("exports the policy's decision on a denied call, with error.type and an error status", () => {
    const denied = spans.find((span) => plain(span.attributes)["gen_ai.tool.call.id"] === "p3") as OtlpSpan;
    expect(plain(denied.attributes)).toMatchObject({
      "error.type": "TOOLHOST_BLOCKED",
      "toolhost.decision": "deny",
      "toolhost.decision.by": "@toolhost/hooks-policy",
      "toolhost.decision.rules": ["no-secrets"],
      "toolhost.decision.layers": ["config"],
    });
    expect(denied.status?.code).toBe(2); // STATUS_CODE_ERROR
    expect(denied.events?.map((event) => event.name)).toEqual(["toolhost.decision"]);
  });

  it("exports opted-in arguments redacted: the key never leaves the process", () => {
    const echo = plain(spans.find((span) => plain(span.attributes)["gen_ai.tool.call.id"] === "p1")?.attributes);
    expect(echo["gen_ai.tool.call.arguments"]).toBe('{"text":"key [redacted AWS key]"}');
    expect(JSON.stringify(receiver.received)).not.toContain(key);
  });

  it("a child process of a call gets the exported span's context as $TRACEPARENT", () => {
    const child = spans.find((span) => span.name === "execute_tool child") as OtlpSpan;
    expect(childOutput).toBe(`00-${child.traceId}-${child.spanId}-01|`);
  });

  it("sends gen_ai.execute_tool.duration to <endpoint>/v1/metrics on shutdown", () => {
    const metrics = metricsBodies.flatMap((body) =>
      (body.resourceMetrics as { scopeMetrics: { metrics: { name: string; unit: string; histogram?: { dataPoints: { attributes: OtlpAttribute[]; count: number | string }[] } }[] }[] }[]).flatMap(
        (resource) => resource.scopeMetrics.flatMap((scope) => scope.metrics),
      ),
    );
    const duration = metrics.find((metric) => metric.name === "gen_ai.execute_tool.duration");
    expect(duration?.unit).toBe("s");
    const points = duration?.histogram?.dataPoints.map((point) => ({ ...plain(point.attributes), count: Number(point.count) }));
    expect(points).toContainEqual({ "gen_ai.tool.name": "echo", "gen_ai.tool.type": "function", count: 1 });
    expect(points).toContainEqual({ "gen_ai.tool.name": "echo", "gen_ai.tool.type": "function", "error.type": "TOOLHOST_BLOCKED", count: 1 });
    expect(points).toContainEqual({ "gen_ai.tool.name": "child", "gen_ai.tool.type": "function", count: 1 });
  });
});

describe("startOtlpFromEnvironment without what it needs", () => {
  it("starts nothing without an endpoint, or when the SDK is disabled", async () => {
    expect(await startOtlpFromEnvironment({ env: {} })).toBeUndefined();
    expect(await startOtlpFromEnvironment({ env: { OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:9", OTEL_SDK_DISABLED: "true" } })).toBeUndefined();
  });

  it("says why for a protocol it does not send", async () => {
    const warnings: string[] = [];
    const handle = await startOtlpFromEnvironment({
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:9", OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" },
      warn: (message) => warnings.push(message),
    });
    expect(handle).toBeUndefined();
    expect(warnings).toEqual([expect.stringContaining('OTEL_EXPORTER_OTLP_PROTOCOL is "grpc"')]);
  });

  it("names the packages to install when the SDK is not installed beside it", async () => {
    const { dir, remove } = tempFolder();
    try {
      // The plugin's built otlp module installed alone, with only @opentelemetry/api beside it.
      const installed = join(dir, "node_modules", "@toolhost", "otel");
      mkdirSync(join(installed, "dist"), { recursive: true });
      cpSync(new URL("../dist/otlp.js", import.meta.url), join(installed, "dist", "otlp.js"));
      writeFileSync(join(installed, "package.json"), JSON.stringify({ name: "@toolhost/otel", type: "module" }));
      mkdirSync(join(dir, "node_modules", "@opentelemetry"));
      symlinkSync(realpathSync(new URL("../node_modules/@opentelemetry/api", import.meta.url)), join(dir, "node_modules", "@opentelemetry", "api"));
      const script = `const { startOtlpFromEnvironment } = await import(${JSON.stringify(join(installed, "dist", "otlp.js"))});
        const warnings = []; const handle = await startOtlpFromEnvironment({ env: { OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:9" }, warn: (m) => warnings.push(m) });
        console.log(JSON.stringify({ handle: handle === undefined ? null : "started", warnings }));`;
      const { stdout } = await run(process.execPath, ["--input-type=module", "-e", script], { cwd: dir });
      const { handle, warnings } = JSON.parse(stdout) as { handle: null | string; warnings: string[] };
      expect(handle).toBeNull();
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toContain("the OpenTelemetry SDK is not installed beside @toolhost/otel");
      expect(warnings[0]).toContain("npm i -D @opentelemetry/sdk-trace-base @opentelemetry/sdk-metrics @opentelemetry/exporter-trace-otlp-http");
    } finally {
      remove();
    }
  });
});
