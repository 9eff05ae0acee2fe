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
];

async function measure(fn) {
  const samples = [];
  for (let round = 0; round < ROUNDS; round++) {
    globalThis.gc?.();
    const start = process.cpuUsage();
    await fn();
    const used = process.cpuUsage(start);
    samples.push((used.user + used.system) / CALLS);
  }
  samples.sort((a, b) => a - b);
  return samples[Math.floor(ROUNDS / 2)];
}

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
