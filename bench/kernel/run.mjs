// The kernel's cost per call: 1,000 calls of a no-op tool in one batch through the whole pipeline
// (one beforeToolCall and one afterToolCall tap, an event listener), beside calling tool.execute
// directly, in one run. Prints µs per call for both and the overhead.
import { Type } from "../../packages/core/dist/index.js";
import { AgentHarness } from "../../packages/core/dist/index.js";

const CALLS = 1_000;
const ROUNDS = 30;
const TARGET_US = 10;

const noop = {
  name: "noop",
  label: "No-op",
  description: "does nothing",
  parameters: Type.Object({ n: Type.Number() }),
  async execute(_id, params) {
    return { content: [{ type: "text", text: "ok" }], details: params };
  },
};

const harness = new AgentHarness({ tools: [noop] });
harness.hooks.beforeToolCall.tapPromise("bench-policy", async (ctx) => (ctx.args.n < 0 ? { block: true, reason: "negative" } : undefined));
harness.hooks.afterToolCall.tapPromise("bench-redact", async (result) => (result.isError ? { terminate: true } : undefined));
let events = 0;
harness.subscribe(() => {
  events += 1;
});

const calls = Array.from({ length: CALLS }, (_, i) => ({ id: `c${i}`, name: "noop", arguments: { n: i } }));

async function direct() {
  const signal = new AbortController().signal;
  const pending = new Array(CALLS);
  for (let i = 0; i < CALLS; i++) pending[i] = noop.execute(`c${i}`, { n: i }, signal, () => {}, undefined);
  await Promise.all(pending);
}

async function pipeline() {
  const results = await harness.executeToolCalls(calls);
  if (results.length !== CALLS || results.some((r) => r.isError)) throw new Error("a call failed");
}

const controller = new AbortController();
async function pipelineWithSignal() {
  const results = await harness.executeToolCalls(calls, { signal: controller.signal });
  if (results.some((r) => r.isError)) throw new Error("a call failed");
}
async function pipelineWithTimeout() {
  const results = await harness.executeToolCalls(calls, { signal: controller.signal, timeoutMs: 60_000 });
  if (results.some((r) => r.isError)) throw new Error("a call failed");
}

async function measure(fn) {
  const samples = [];
  for (let round = 0; round < ROUNDS; round++) {
    globalThis.gc?.();
    const start = process.hrtime.bigint();
    await fn();
    samples.push(Number(process.hrtime.bigint() - start) / 1e3 / CALLS);
  }
  samples.sort((a, b) => a - b);
  return { median: samples[Math.floor(ROUNDS / 2)], best: samples[0] };
}

// warm up both (JIT, the schema compile, tapable's compiled hook code)
for (let i = 0; i < 5; i++) {
  await direct();
  await pipeline();
  await pipelineWithSignal();
  await pipelineWithTimeout();
}

// interleave the two so that machine noise hits both alike
const directRuns = [];
const pipelineRuns = [];
const signalRuns = [];
const timeoutRuns = [];
for (let i = 0; i < 3; i++) {
  directRuns.push(await measure(direct));
  pipelineRuns.push(await measure(pipeline));
  signalRuns.push(await measure(pipelineWithSignal));
  timeoutRuns.push(await measure(pipelineWithTimeout));
}
const pick = (runs) => runs.map((r) => r.median).sort((a, b) => a - b)[1];
const d = pick(directRuns);
const p = pick(pipelineRuns);
const ps = pick(signalRuns);
const pt = pick(timeoutRuns);
const overhead = p - d;

console.log(`${CALLS} calls per batch, median of ${ROUNDS} rounds × 3, node ${process.version}`);
console.table([
  { what: "tool.execute directly (floor)", "µs/call": d.toFixed(2) },
  { what: "executeToolCalls, full pipeline", "µs/call": p.toFixed(2), "overhead µs": (p - d).toFixed(2) },
  { what: "… with an abort signal", "µs/call": ps.toFixed(2), "overhead µs": (ps - d).toFixed(2) },
  { what: "… with a signal and a per-call timeout", "µs/call": pt.toFixed(2), "overhead µs": (pt - d).toFixed(2) },
]);
console.log(`overhead: ${overhead.toFixed(2)} µs per call (${(p / d).toFixed(1)}× the direct call); target ≤ ${TARGET_US} µs: ${overhead <= TARGET_US ? "met" : "NOT met"}`);
console.log(`events told: ${events}`);
