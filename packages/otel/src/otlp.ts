import { type MeterProvider, type TracerProvider, context, metrics, trace } from "@opentelemetry/api";

/** What `startOtlpFromEnvironment` takes; every field is optional. */
export interface StartOtlpOptions {
  /** The environment to read `OTEL_*` from. Default `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** Told why nothing was started although an endpoint is set (an SDK package missing, a protocol not offered). */
  warn?: (message: string) => void;
  /** `service.name` when `OTEL_SERVICE_NAME` is not set. Default `toolhost`. */
  serviceName?: string;
  /** How often metrics are sent, in ms. Default `OTEL_METRIC_EXPORT_INTERVAL`, else 60,000. */
  metricIntervalMs?: number;
}

/** The exporters started: where they send, the providers registered globally, and how to stop them. */
export interface OtlpHandle {
  /** The traces URL (`…/v1/traces`), or undefined when traces are off (`OTEL_TRACES_EXPORTER=none`). */
  tracesUrl: string | undefined;
  /** The metrics URL (`…/v1/metrics`), or undefined when metrics are off. */
  metricsUrl: string | undefined;
  tracerProvider: TracerProvider | undefined;
  meterProvider: MeterProvider | undefined;
  /** Sends what is buffered now. Never rejects. */
  flush(): Promise<void>;
  /** Sends what is buffered and stops, within `timeoutMs` (default 5,000). Never rejects: call it before the process exits. */
  shutdown(timeoutMs?: number): Promise<void>;
}

/** The optional packages, installed beside `@toolhost/otel` by an application that wants OTLP from toolhost itself. */
const SDK_PACKAGES = [
  "@opentelemetry/sdk-trace-base",
  "@opentelemetry/sdk-metrics",
  "@opentelemetry/exporter-trace-otlp-http",
  "@opentelemetry/exporter-metrics-otlp-http",
  "@opentelemetry/resources",
  "@opentelemetry/context-async-hooks",
] as const;

/**
 * Starts OTLP/HTTP (JSON) exporters of traces and metrics and registers them as the global
 * providers, when `OTEL_EXPORTER_OTLP_ENDPOINT` (or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` /
 * `…_METRICS_ENDPOINT`) is set and the SDK packages are installed; for a host with no SDK of its
 * own (the `toolhost` CLI). Resolves to undefined when nothing was started: no endpoint,
 * `OTEL_SDK_DISABLED=true`, a protocol other than HTTP, or a package missing (then `warn` says
 * which, and the `npm i` line). Reads `OTEL_EXPORTER_OTLP_HEADERS`, `OTEL_SERVICE_NAME`,
 * `OTEL_TRACES_EXPORTER` / `OTEL_METRICS_EXPORTER` (`none` turns one off).
 */
export async function startOtlpFromEnvironment(options: StartOtlpOptions = {}): Promise<OtlpHandle | undefined> {
  const env = options.env ?? process.env;
  const warn = options.warn ?? (() => {});
  const tracesUrl = env.OTEL_TRACES_EXPORTER?.trim() === "none" ? undefined : signalUrl(env, "TRACES", "traces");
  const metricsUrl = env.OTEL_METRICS_EXPORTER?.trim() === "none" ? undefined : signalUrl(env, "METRICS", "metrics");
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === "true" || (tracesUrl === undefined && metricsUrl === undefined)) return undefined;
  const protocol = env.OTEL_EXPORTER_OTLP_PROTOCOL?.trim();
  if (protocol !== undefined && protocol !== "" && protocol !== "http/json" && protocol !== "http/protobuf") {
    warn(`OTEL_EXPORTER_OTLP_PROTOCOL is "${protocol}", but toolhost sends OTLP over HTTP (JSON) only: set it to http/json (a collector's port 4318), or unset it. No telemetry is sent.`);
    return undefined;
  }
  const sdk = await importSdk(warn);
  if (sdk === undefined) return undefined;
  const resource = sdk.resources.defaultResource().merge(
    sdk.resources.resourceFromAttributes({ "service.name": env.OTEL_SERVICE_NAME?.trim() || (options.serviceName ?? "toolhost") }),
  );
  const headers = parseHeaders(env.OTEL_EXPORTER_OTLP_HEADERS);
  context.setGlobalContextManager(new sdk.contextAsyncHooks.AsyncLocalStorageContextManager().enable());
  const tracerProvider = tracesUrl
    ? new sdk.traceBase.BasicTracerProvider({
        resource,
        spanProcessors: [new sdk.traceBase.BatchSpanProcessor(new sdk.traceExporter.OTLPTraceExporter({ url: tracesUrl, headers }))],
      })
    : undefined;
  if (tracerProvider) trace.setGlobalTracerProvider(tracerProvider);
  const interval = options.metricIntervalMs ?? (Number(env.OTEL_METRIC_EXPORT_INTERVAL) || 60_000);
  const meterProvider = metricsUrl
    ? new sdk.metrics.MeterProvider({
        resource,
        readers: [
          new sdk.metrics.PeriodicExportingMetricReader({
            exporter: new sdk.metricExporter.OTLPMetricExporter({ url: metricsUrl, headers }),
            exportIntervalMillis: interval,
            exportTimeoutMillis: Math.min(interval, 30_000),
          }),
        ],
      })
    : undefined;
  if (meterProvider) metrics.setGlobalMeterProvider(meterProvider);
  return handleOf(tracesUrl, metricsUrl, tracerProvider, meterProvider);
}

function handleOf(
  tracesUrl: string | undefined,
  metricsUrl: string | undefined,
  tracerProvider: { forceFlush(): Promise<void>; shutdown(): Promise<void> } & TracerProvider | undefined,
  meterProvider: { forceFlush(): Promise<void>; shutdown(): Promise<void> } & MeterProvider | undefined,
): OtlpHandle {
  const providers = [tracerProvider, meterProvider].filter((each) => each !== undefined);
  const all = async (step: "forceFlush" | "shutdown"): Promise<void> => {
    await Promise.allSettled(providers.map((each) => each[step]()));
  };
  return {
    tracesUrl,
    metricsUrl,
    tracerProvider,
    meterProvider,
    flush: () => all("forceFlush"),
    async shutdown(timeoutMs = 5_000) {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, timeoutMs);
        timer.unref();
      });
      try {
        await Promise.race([all("shutdown"), late]);
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

/** A signal's URL: its own endpoint as it is, else the general endpoint with `/v1/<signal>` (the OTLP exporter spec). */
function signalUrl(env: NodeJS.ProcessEnv, signal: "TRACES" | "METRICS", path: string): string | undefined {
  const own = env[`OTEL_EXPORTER_OTLP_${signal}_ENDPOINT`]?.trim();
  if (own) return own;
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  if (!base) return undefined;
  return `${base.replace(/\/+$/, "")}/v1/${path}`;
}

/** `OTEL_EXPORTER_OTLP_HEADERS`: `key=value` pairs separated by commas, values URL-encoded. */
function parseHeaders(text: string | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const pair of (text ?? "").split(",")) {
    const at = pair.indexOf("=");
    if (at <= 0) continue;
    try {
      headers[decodeURIComponent(pair.slice(0, at).trim())] = decodeURIComponent(pair.slice(at + 1).trim());
    } catch {
      // A pair that is not URL-encoded text is left out, as the SDK does.
    }
  }
  return headers;
}

/** The SDK's modules, or undefined (told) when one is not installed. */
async function importSdk(warn: (message: string) => void) {
  try {
    const [traceBase, sdkMetrics, traceExporter, metricExporter, resources, contextAsyncHooks] = await Promise.all([
      import("@opentelemetry/sdk-trace-base"),
      import("@opentelemetry/sdk-metrics"),
      import("@opentelemetry/exporter-trace-otlp-http"),
      import("@opentelemetry/exporter-metrics-otlp-http"),
      import("@opentelemetry/resources"),
      import("@opentelemetry/context-async-hooks"),
    ]);
    return { traceBase, metrics: sdkMetrics, traceExporter, metricExporter, resources, contextAsyncHooks };
  } catch (error) {
    const missing = (error as { code?: string }).code === "ERR_MODULE_NOT_FOUND" || (error as { code?: string }).code === "MODULE_NOT_FOUND";
    warn(
      missing
        ? `OTEL_EXPORTER_OTLP_ENDPOINT is set, but the OpenTelemetry SDK is not installed beside @toolhost/otel, so no telemetry is sent. Install it: npm i -D ${SDK_PACKAGES.join(" ")}`
        : `OTEL_EXPORTER_OTLP_ENDPOINT is set, but the OpenTelemetry SDK failed to load, so no telemetry is sent: ${(error as Error).message}`,
    );
    return undefined;
  }
}
