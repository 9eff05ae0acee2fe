/*
 * OpenTelemetry for the CLI's commands: when OTEL_EXPORTER_OTLP_ENDPOINT (or the traces or metrics
 * one) is set and @toolhost/otel is installed beside the CLI, its OTLP/HTTP exporters are started
 * before the host is made, so the spans and the metric of a config's `@toolhost/otel` plugin leave
 * the process. When the config names no `@toolhost/otel`, the plugin beside the CLI is applied with
 * its defaults, so the variable alone gives every call its span (a config that names it sets its
 * options). Nothing is imported otherwise: a run without the variables pays nothing.
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

/** The plugin's name, as configs name it. */
const OTEL_PLUGIN = "@toolhost/otel";

/**
 * With the exporters running, the host's calls need the plugin that makes their spans: applied
 * here, from beside the CLI, when no config named it (the exporters alone would send nothing).
 * Returns what to tell the user, or undefined when the config names the plugin.
 */
export async function traceCalls(host: { harness: { use(plugin: unknown, options?: Record<string, unknown>): Promise<unknown> }; plugins: ReadonlyArray<{ name: string }> }): Promise<string | undefined> {
  if (host.plugins.some((plugin) => plugin.name === OTEL_PLUGIN)) return undefined;
  const otel = (await import(OTEL_PLUGIN as string)) as { default: unknown };
  await host.harness.use(otel.default, {});
  return `${OTEL_PLUGIN} is not in the config, so toolhost applied it with its defaults because OTEL_EXPORTER_OTLP_ENDPOINT is set: every call gets an execute_tool span. Name it in "plugins" to set its options (content capture, the tool type).`;
}
