import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { MeterProvider, MetricReader, type ResourceMetrics } from "@opentelemetry/sdk-metrics";
import { BasicTracerProvider, InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { context } from "@opentelemetry/api";
import { type AgentTool, Type } from "@toolhost/core";

const run = promisify(execFile);

/** A temporary folder, removed by the returned function. */
export function tempFolder(): { dir: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), "toolhost-otel-test-"));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A metric reader the test collects from when it wants. */
class CollectingReader extends MetricReader {
  protected override async onForceFlush(): Promise<void> {}
  protected override async onShutdown(): Promise<void> {}
}

/** A meter provider whose metrics the test collects when it wants. */
export function inMemoryMeter() {
  const reader = new CollectingReader();
  const meterProvider = new MeterProvider({ readers: [reader] });
  return {
    meterProvider,
    async metrics(): Promise<ResourceMetrics> {
      const { resourceMetrics, errors } = await reader.collect();
      if (errors.length > 0) throw new Error(`collecting metrics failed: ${errors.join("; ")}`);
      return resourceMetrics;
    },
  };
}

/**
 * The real SDK, in memory: a tracer provider whose finished spans the test reads, a meter provider
 * it collects; the API's context manager (global) is the SDK's AsyncLocalStorage one.
 */
export function inMemoryTelemetry() {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  const exporter = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  return {
    tracerProvider,
    ...inMemoryMeter(),
    spans: (): ReadableSpan[] => exporter.getFinishedSpans(),
    reset: () => exporter.reset(),
  };
}

/** A tool that echoes its text. */
export const echoTool: AgentTool = {
  name: "echo",
  label: "Echo",
  description: "Says the text back.",
  parameters: Type.Object({ text: Type.String() }),
  executionMode: "parallel",
  async execute(_id, params) {
    return { content: [{ type: "text", text: (params as { text: string }).text }], details: {} };
  },
};

/** A tool that waits until its call is stopped. */
export const waitTool: AgentTool = {
  name: "wait",
  label: "Wait",
  description: "Waits until stopped.",
  parameters: Type.Object({}),
  async execute(_id, _params, signal) {
    await new Promise((_resolve, reject) => {
      signal.addEventListener("abort", () => reject(signal.reason), { once: true });
    });
    throw new Error("unreachable");
  },
};

/**
 * A tool that does what tool-bash does with its call's trace context: the carrier
 * (`execution.carrier()`) in a child's environment, keys upper-cased (the OpenTelemetry
 * environment-carrier convention), and the child prints `$TRACEPARENT|$TRACESTATE`.
 */
export const childTool: AgentTool = {
  name: "child",
  label: "Child",
  description: "Runs a child process that prints the trace context it was given.",
  parameters: Type.Object({}),
  async execute(_id, _params, signal, _onUpdate, _context, execution) {
    const carrier = execution?.carrier() ?? {};
    const env: NodeJS.ProcessEnv = { PATH: process.env.PATH };
    for (const [key, value] of Object.entries(carrier)) env[key.toUpperCase()] = value;
    const { stdout } = await run("sh", ["-c", 'printf "%s|%s" "$TRACEPARENT" "$TRACESTATE"'], { env, signal });
    return { content: [{ type: "text", text: stdout }], details: { carrier } };
  },
};

export function attributesOf(span: ReadableSpan): Record<string, unknown> {
  return { ...span.attributes };
}

/** The parent span id of a finished span (SDK 2.x keeps the parent's span context). */
export function parentIdOf(span: ReadableSpan): string | undefined {
  return span.parentSpanContext?.spanId;
}
