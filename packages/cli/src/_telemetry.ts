/*
 * OpenTelemetry for the CLI's commands: when OTEL_EXPORTER_OTLP_ENDPOINT (or the traces or metrics
 * one) is set and @toolhost/otel is installed beside the CLI, its OTLP/HTTP exporters are started
 * before the host is made, so the spans and the metric of a config's `@toolhost/otel` plugin leave
 * the process. Nothing is imported otherwise: a run without the variables pays nothing.
 */

/** What `startOtlpFromEnvironment` of @toolhost/otel returns. */
interface Exporting {
  shutdown(): Promise<void>;
}

const ENDPOINTS = ["OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT"];

/**
 * Starts the exporters when the environment asks for them; undefined otherwise. @toolhost/otel is
 * resolved from the CLI's own install, never from the working directory (whose code may not be trusted).
 */
export async function startTelemetry(warn: (text: string) => void): Promise<Exporting | undefined> {
  if (!ENDPOINTS.some((name) => (process.env[name] ?? "") !== "")) return undefined;
  const otel = await import("@toolhost/otel" as string).catch(() => undefined);
  if (otel === undefined) {
    warn("OTEL_EXPORTER_OTLP_ENDPOINT is set, but @toolhost/otel is not installed beside toolhost, so nothing is exported: npm i -D @toolhost/otel and the OpenTelemetry SDK packages its README names.");
    return undefined;
  }
  return (await (otel as { startOtlpFromEnvironment(options: { warn(text: string): void }): Promise<Exporting | undefined> }).startOtlpFromEnvironment({ warn })) ?? undefined;
}
