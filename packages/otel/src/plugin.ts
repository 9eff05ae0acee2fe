import { createRequire } from "node:module";
import { type Histogram, type MeterProvider, type TracerProvider, context, metrics, trace } from "@opentelemetry/api";
import { type AgentEvent, type AnyAgentHarness, type ToolhostPlugin, definePlugin } from "@toolhost/core";
import { AgentSpans } from "./_agent-spans.js";
import { injectSpan } from "./_carrier.js";
import { RuleLayers } from "./_decision.js";
import { ToolSpans } from "./_tool-spans.js";
import { DURATION_BUCKETS, EXECUTE_TOOL_DURATION } from "./names.js";
import { OtelOptions, captureContentFrom } from "./options.js";

const { version } = createRequire(import.meta.url)("../package.json") as { version: string };

/** The plugin's name: its taps', and the instrumentation scope of its tracer and meter. */
export const PLUGIN_NAME = "@toolhost/otel";

/**
 * Where the plugin's spans and metrics go. Default: the global providers of `@opentelemetry/api`,
 * which the application's SDK registers (`NodeSDK.start()`, `startOtlpFromEnvironment()`); until
 * one does, they are no-ops and a call costs next to nothing.
 */
export interface OtelProviders {
  tracerProvider?: TracerProvider;
  meterProvider?: MeterProvider;
}

/**
 * The plugin with its own providers (a test's in-memory exporter, an SDK the application does not
 * register globally). `otelPlugin`, the package's default export, uses the global ones.
 */
export function createOtelPlugin(providers: OtelProviders = {}): ToolhostPlugin<typeof OtelOptions> {
  return definePlugin({
    name: PLUGIN_NAME,
    version,
    options: OtelOptions,
    async apply(harness, options) {
      const captureContent = captureContentFrom(options);
      const tracer = (providers.tracerProvider ?? trace.getTracerProvider()).getTracer(PLUGIN_NAME, version);
      // The global meter provider is looked up at the first call, not here: the API has no proxy for
      // meters, and an SDK the application starts after the plugins are applied would be missed.
      let histogram: Histogram | undefined;
      const duration = (): Histogram =>
        (histogram ??= (providers.meterProvider ?? metrics.getMeterProvider()).getMeter(PLUGIN_NAME, version).createHistogram(EXECUTE_TOOL_DURATION, {
          unit: "s",
          description: "The duration of a single tool execution.",
          advice: { explicitBucketBoundaries: [...DURATION_BUCKETS] },
        }));
      const layers = new RuleLayers(harness);
      // With the policy applied before this plugin, its rules are known before the first call.
      await layers.load();
      const agents = options.agentSpans ? new AgentSpans(tracer, harness, options.agentName) : undefined;
      const tools = new ToolSpans({
        tracer,
        duration,
        harness,
        layers,
        captureContent,
        maxContentLength: options.maxContentLength,
        toolType: options.toolType,
        parentOf: agents ? (id) => agents.parentOf(id) : () => context.active(),
      });
      tapEvents(harness, tools, agents, layers);
      harness.hooks.propagate.tap(PLUGIN_NAME, (carrier, ctx) => {
        const span = tools.spanOf(ctx.toolCall.id);
        if (span) injectSpan(span, carrier);
      });
      return {
        settings: {
          tracer: providers.tracerProvider ? "the given TracerProvider" : "the global TracerProvider",
          captureContent,
          toolType: options.toolType,
          agentSpans: options.agentSpans,
        },
      };
    },
  });
}

function tapEvents(harness: AnyAgentHarness, tools: ToolSpans, agents: AgentSpans | undefined, layers: RuleLayers): void {
  harness.hooks.event.tap(PLUGIN_NAME, (event: AgentEvent) => {
    switch (event.type) {
      case "tool_execution_start":
        layers.loadAtFirstCall();
        tools.start(event);
        return;
      case "tool_execution_decision":
        tools.decide(event);
        return;
      case "tool_execution_end":
        tools.end(event);
        return;
      default:
        agents?.on(event);
    }
  });
}

/**
 * OpenTelemetry for every tool call: a GenAI `execute_tool {tool}` span (the policy's decision and
 * the approval as `toolhost.*` attributes and events), the `gen_ai.execute_tool.duration`
 * histogram, `invoke_agent` / `chat` spans for the agent loop, and each call's trace context for
 * the processes and servers it reaches (the `propagate` hook: `traceparent`, `tracestate`).
 */
export const otelPlugin = createOtelPlugin();
