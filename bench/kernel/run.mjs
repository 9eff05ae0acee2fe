// The kernel's cost per call: 1,000 calls of a no-op tool in one batch through the whole pipeline
// (one beforeToolCall and one afterToolCall hook, an event listener), beside calling tool.execute
// directly, in one run. The hooks are written both ways a user writes them: taps on
// `harness.hooks`, and the constructor options `beforeToolCall` / `afterToolCall`. Also measured:
// with an abort signal, with a per-call timeout (each call then has an AbortController of its own),
// and with a redact tap (without one, redaction must cost about nothing).
// Prints µs per call for each and the overhead over the direct call.
// The kernel measured is this checkout's build, or another build's index.js given as the first
// argument (to put an older kernel beside it: `node bench/kernel/run.mjs /tmp/old/dist/index.js`).
// Time is the process's CPU time (user + system), which other processes on a busy machine disturb
// far less than wall time.
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import { cpuPerCall } from "../_cpu.mjs";

const entry = process.argv[2] ? new URL(process.argv[2], `file://${process.cwd()}/`).href : "../../packages/core/dist/index.js";
const { AgentHarness, Type } = await import(entry);

const CALLS = 1_000;
const ROUNDS = 30;
const TARGET_US = 3;

const noop = {
  name: "noop",
  label: "No-op",
  description: "does nothing",
  parameters: Type.Object({ n: Type.Number() }),
  async execute(_id, params) {
    return { content: [{ type: "text", text: "ok" }], details: params };
  },
};

let events = 0;
const listen = (harness) =>
  harness.subscribe(() => {
    events += 1;
  });

const taps = new AgentHarness({ tools: [noop] });
taps.hooks.beforeToolCall.tapPromise("bench-policy", async (ctx) => (ctx.args.n < 0 ? { block: true, reason: "negative" } : undefined));
taps.hooks.afterToolCall.tapPromise("bench-after", async (result) => (result.isError ? { ...result, terminate: true } : result));
listen(taps);

const options = new AgentHarness({
  tools: [noop],
  beforeToolCall: async (ctx) => (ctx.args.n < 0 ? { block: true, reason: "negative" } : undefined),
  afterToolCall: async ({ isError }) => (isError ? { terminate: true } : undefined),
});
listen(options);

const redacting = new AgentHarness({ tools: [noop] });
redacting.hooks.beforeToolCall.tapPromise("bench-policy", async (ctx) => (ctx.args.n < 0 ? { block: true, reason: "negative" } : undefined));
redacting.hooks.afterToolCall.tapPromise("bench-after", async (result) => (result.isError ? { ...result, terminate: true } : result));
redacting.hooks.redact.tap("bench-redact", (text) => (text.includes("AKIA") ? text.replaceAll(/AKIA[A-Z0-9]{16}/g, "[redacted]") : text));
listen(redacting);

// @toolhost/otel on the same taps: with the API's no-op tracer (no SDK registered: what a host that
// installs the plugin and no SDK pays), and with the real SDK recording every span and the
// histogram (spans counted when they end, not exported: exporting is the SDK's work, off the call's
// path), beside the SDK's own floor: one bare span and one histogram record per call from an event tap.
const otelDir = new URL("../../packages/otel/", import.meta.url);
const { createOtelPlugin } = await import(new URL("dist/index.js", otelDir).href);
const fromOtel = (name) => import(pathToFileURL(createRequire(new URL("package.json", otelDir)).resolve(name)).href);
const { BasicTracerProvider } = await fromOtel("@opentelemetry/sdk-trace-base");
const { MeterProvider, MetricReader } = await fromOtel("@opentelemetry/sdk-metrics");
let spansEnded = 0;
const countingProcessor = { onStart() {}, onEnd() { spansEnded += 1; }, forceFlush: async () => {}, shutdown: async () => {} };
class HeldReader extends MetricReader {
  async onForceFlush() {}
  async onShutdown() {}
}
const recording = () => ({
  tracerProvider: new BasicTracerProvider({ spanProcessors: [countingProcessor] }),
  meterProvider: new MeterProvider({ readers: [new HeldReader()] }),
});
const withTaps = (harness) => {
  harness.hooks.beforeToolCall.tapPromise("bench-policy", async (ctx) => (ctx.args.n < 0 ? { block: true, reason: "negative" } : undefined));
  harness.hooks.afterToolCall.tapPromise("bench-after", async (result) => (result.isError ? { ...result, terminate: true } : result));
  listen(harness);
  return harness;
};
const otelNoop = withTaps(new AgentHarness({ tools: [noop] }));
await otelNoop.use(createOtelPlugin(), {});
const otelRecording = withTaps(new AgentHarness({ tools: [noop] }));
await otelRecording.use(createOtelPlugin(recording()), {});
const sdkFloor = withTaps(new AgentHarness({ tools: [noop] }));
{
  const { tracerProvider, meterProvider } = recording();
  const tracer = tracerProvider.getTracer("bench-floor");
  const duration = meterProvider.getMeter("bench-floor").createHistogram("gen_ai.execute_tool.duration", { unit: "s" });
  const attributes = { "gen_ai.tool.name": "noop", "gen_ai.tool.type": "function" };
  const open = new Map();
  sdkFloor.hooks.event.tap("bench-floor", (event) => {
    if (event.type === "tool_execution_start") {
      const span = tracer.startSpan("execute_tool noop", { attributes: { ...attributes, "gen_ai.operation.name": "execute_tool", "gen_ai.tool.call.id": event.toolCallId } });
      open.set(event.toolCallId, span);
    } else if (event.type === "tool_execution_end") {
      open.get(event.toolCallId)?.end();
      open.delete(event.toolCallId);
      duration.record(event.durationMs / 1000, attributes);
    }
  });
}

const calls = Array.from({ length: CALLS }, (_, i) => ({ id: `c${i}`, name: "noop", arguments: { n: i } }));

async function direct() {
  const signal = new AbortController().signal;
  const pending = new Array(CALLS);
  for (let i = 0; i < CALLS; i++) pending[i] = noop.execute(`c${i}`, { n: i }, signal, () => {}, undefined);
  await Promise.all(pending);
}

const controller = new AbortController();
const batch = (harness, options) => async () => {
  const results = await harness.executeToolCalls(calls, options);
  if (results.length !== CALLS || results.some((r) => r.isError)) throw new Error("a call failed");
};

const cases = [
  { what: "tool.execute directly (floor)", run: direct },
  { what: "taps on harness.hooks", run: batch(taps) },
  { what: "constructor options", run: batch(options) },
  { what: "taps, with an abort signal", run: batch(taps, { signal: controller.signal }) },
  { what: "taps, signal and a per-call timeout", run: batch(taps, { signal: controller.signal, timeoutMs: 60_000 }) },
  { what: "taps and a redact tap", run: batch(redacting) },
  { what: "taps + @toolhost/otel, no-op tracer (no SDK)", run: batch(otelNoop) },
];

const measure = (fn) => cpuPerCall(fn, { calls: CALLS, rounds: ROUNDS, collect: true });

// warm up (JIT, the schema compile, tapable's compiled hook code)
for (let i = 0; i < 5; i++) for (const each of cases) await each.run();

// interleave the cases so that machine noise hits all alike; keep the middle of three medians
const runs = cases.map(() => []);
for (let i = 0; i < 3; i++) for (const [k, each] of cases.entries()) runs[k].push(await measure(each.run));
const usPerCall = runs.map((r) => r.sort((a, b) => a - b)[1]);
const floor = usPerCall[0];

console.log(`${CALLS} calls per batch, CPU time, median of ${ROUNDS} rounds × 3, node ${process.version}${process.argv[2] ? `, kernel ${process.argv[2]}` : ""}`);
console.table(
  cases.map((each, k) => ({
    what: each.what,
    "µs/call": usPerCall[k].toFixed(2),
    ...(k > 0 ? { "overhead µs": (usPerCall[k] - floor).toFixed(2) } : {}),
  })),
);
const worst = Math.max(usPerCall[1], usPerCall[2]) - floor;
console.log(
  `overhead (before + after hook + listener, the worse of taps and options): ${worst.toFixed(2)} µs per call; target ≤ ${TARGET_US} µs: ${worst <= TARGET_US ? "met" : "NOT met"}`,
);
console.log(`events told: ${events}`);

// @toolhost/otel's rows. The recording ones are measured after the rows above and apart from them,
// and without a forced collection before each round: the SDK allocates a span object per call, and
// a full collection before each round bills the round for the heap's aftermath (it more than
// doubles even the taps row); back-to-back rounds pay for collection as a long-running host does.
const OTEL_NOOP_US = 1;
const OTEL_RECORDING_US = 10;
const noopRow = cases.findIndex((each) => each.what.startsWith("taps + @toolhost/otel"));
const noopCost = usPerCall[noopRow] - usPerCall[1];
console.log(`@toolhost/otel, no-op tracer: ${noopCost.toFixed(2)} µs a call over the same taps without it; target ≤ ${OTEL_NOOP_US} µs: ${noopCost <= OTEL_NOOP_US ? "met" : "NOT met"}`);
const sdkCases = [
  { what: "taps on harness.hooks", run: batch(taps) },
  { what: "taps + @toolhost/otel, recording SDK", run: batch(otelRecording) },
  { what: "taps + the SDK's own span and histogram record (floor)", run: batch(sdkFloor) },
];
const measureSteady = (fn) => cpuPerCall(fn, { calls: CALLS, rounds: ROUNDS });
for (let i = 0; i < 5; i++) for (const each of sdkCases) await each.run();
const sdkRuns = sdkCases.map(() => []);
for (let i = 0; i < 3; i++) for (const [k, each] of sdkCases.entries()) sdkRuns[k].push(await measureSteady(each.run));
const sdkUs = sdkRuns.map((r) => r.sort((a, b) => a - b)[1]);
console.log(`\n${CALLS} calls per batch, CPU time, median of ${ROUNDS} back-to-back rounds × 3`);
console.table(sdkCases.map((each, k) => ({ what: each.what, "µs/call": sdkUs[k].toFixed(2), ...(k > 0 ? { "over taps µs": (sdkUs[k] - sdkUs[0]).toFixed(2) } : {}) })));
const recordingCost = sdkUs[1] - sdkUs[0];
console.log(
  `@toolhost/otel, recording SDK: ${recordingCost.toFixed(2)} µs a call over the same taps (the SDK's own span and record: ${(sdkUs[2] - sdkUs[0]).toFixed(2)}); target ≤ ${OTEL_RECORDING_US} µs: ${recordingCost <= OTEL_RECORDING_US ? "met" : "NOT met"}; spans recorded: ${spansEnded}`,
);
