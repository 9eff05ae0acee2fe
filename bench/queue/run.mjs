// Calls through @toolhost/queue: Redis commands and Redis CPU per call, calls per second with one
// worker on one Redis and on a 3-master Redis Cluster (three queues, one per master), the added
// latency of one call at a time, and a 10 ms tool on 1, 2 and 4 workers (how close to linear).
// Host, Redis and workers all run on this machine; the load average is printed with the numbers.
// BENCH_QUEUE_BASELINE=<a queue plugin's dist/index.js> measures that build too, in the same run
// and on the same servers, turn about with this one (e.g. main's build: copy its packages/queue
// with dist/ and package.json somewhere, with a node_modules link to this one's). BENCH_ROUNDS sets
// the rounds; BENCH_QUEUE_SINGLE=0 or BENCH_QUEUE_CLUSTER=0 leaves out one Redis or the cluster.
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { AgentHarness, Type } from "../../packages/core/dist/index.js";
import { createHost } from "../../packages/core/dist/config/index.js";
import { clusterRedis, cpuMs, perCall, project, redisCounters, singleRedis, startWorker, stop } from "./_setup.mjs";

const CALLS = Number(process.env.BENCH_CALLS ?? 1_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? (process.env.BENCH_QUEUE_BASELINE ? 3 : 1));
const BUILDS = [
  { name: "this build", plugin: join(dirname(fileURLToPath(import.meta.url)), "../../packages/queue/dist/index.js") },
  ...(process.env.BENCH_QUEUE_BASELINE ? [{ name: "baseline", plugin: process.env.BENCH_QUEUE_BASELINE }] : []),
];
const SINGLES = 200;
const CONCURRENCY = 50;
/** Each worker runs this many 10 ms calls at once: 4 workers × 4 would be 1,600 calls/s if nothing else limited them. */
const SLEEP_CONCURRENCY = 4;
process.env.TOOLHOST_QUEUE_KEY ??= randomBytes(32).toString("hex");

let batchNo = 0;
/** One batch of `CALLS` calls of `tool`: calls/s, and what each cost in Redis and in each process. */
async function batch(host, tool, target, workers) {
  batchNo += 1;
  const calls = Array.from({ length: CALLS }, (_, i) => ({ id: `b${batchNo}-${i}`, name: tool, arguments: { n: i } }));
  const before = target && (await redisCounters(target.servers));
  const cpu = [process.cpuUsage(), ...workers.map((worker) => cpuMs(worker.pid))];
  const start = performance.now();
  const results = await host.executeToolCalls(calls);
  const ms = performance.now() - start;
  const failed = results.find((result) => result.isError);
  if (failed) throw new Error(`a call failed: ${JSON.stringify(failed.content)}`);
  const own = process.cpuUsage(cpu[0]);
  const workerUs = workers.reduce((sum, worker, i) => sum + (cpuMs(worker.pid) - cpu[i + 1]) * 1000, 0) / CALLS;
  const cost = target ? perCall(before, await redisCounters(target.servers), CALLS) : undefined;
  return { perSecond: (CALLS / ms) * 1000, hostUs: (own.user + own.system) / CALLS, workerUs, ...cost };
}

/** One call at a time: each one's latency (ms, sorted), and the commands a lone call costs. */
async function singles(host, target) {
  const samples = [];
  const before = target && (await redisCounters(target.servers));
  for (let i = 0; i < SINGLES; i++) {
    batchNo += 1;
    const start = performance.now();
    const [result] = await host.executeToolCalls([{ id: `s${batchNo}`, name: "noop", arguments: { n: i } }]);
    samples.push(performance.now() - start);
    if (result.isError) throw new Error(`a call failed: ${JSON.stringify(result.content)}`);
  }
  const cost = target ? perCall(before, await redisCounters(target.servers), SINGLES) : undefined;
  return { samples: samples.sort((a, b) => a - b), ...cost };
}

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];
const round = (value, digits = 0) => Number(value.toFixed(digits));

/** Everything measured on one target (one Redis, or the cluster). */
async function measure(target, label, build = BUILDS[0], withSleeps = true) {
  const { dir, remove } = project(target, build.plugin);
  const workers = [];
  let host;
  try {
    workers.push(await startWorker(dir, target.queues, CONCURRENCY));
    host = (await createHost({ cwd: join(dir, "host") })).harness;
    await batch(host, "noop", undefined, []); // warm up
    const one = await batch(host, "noop", target, workers);
    const lone = await singles(host, target);
    await stop(workers.pop());
    const sleeping = [];
    if (!withSleeps) return { label, one, lone, sleeping };
    for (const count of [1, 2, 4]) {
      while (workers.length < count) workers.push(await startWorker(dir, target.queues, SLEEP_CONCURRENCY));
      await batch(host, "sleep10", undefined, []);
      const run = await batch(host, "sleep10", undefined, workers);
      sleeping.push({ workers: count, perSecond: run.perSecond, ideal: (count * SLEEP_CONCURRENCY) / 0.01 });
    }
    return { label, one, lone, sleeping };
  } finally {
    await host?.dispose();
    for (const worker of workers) await stop(worker);
    remove();
  }
}

function local() {
  const noop = {
    name: "noop",
    label: "No-op",
    description: "does nothing",
    parameters: Type.Object({ n: Type.Number() }),
    async execute(_id, params) {
      return { content: [{ type: "text", text: "ok" }], details: params };
    },
  };
  return new AgentHarness({ tools: [noop] });
}

function report(floor, floorSingles, results) {
  const load = loadavg().map((value) => value.toFixed(1)).join(" ");
  console.log(`node ${process.version}; ${CALLS} no-op calls a batch (worker concurrency ${CONCURRENCY}), ${SINGLES} single calls; load average now ${load}`);
  console.table([
    { what: "local (floor)", "calls/s": round(floor.perSecond), "one call median ms": round(percentile(floorSingles.samples, 0.5), 2), "p99 ms": round(percentile(floorSingles.samples, 0.99), 2) },
    ...results.map(({ label, one, lone }) => ({
      what: `${label}, 1 worker`,
      "calls/s": round(one.perSecond),
      "one call median ms": round(percentile(lone.samples, 0.5), 2),
      "p99 ms": round(percentile(lone.samples, 0.99), 2),
      "commands/call (batch)": round(one.total, 2),
      "commands/call (one at a time)": round(lone.total, 2),
      "Redis CPU µs/call": round(one.redisCpuUs),
      "host CPU µs/call": round(one.hostUs),
      "worker CPU µs/call": round(one.workerUs),
    })),
  ]);
  for (const { label, one } of results) {
    const names = Object.fromEntries(Object.entries(one.byName).map(([name, value]) => [name, round(value, 2)]));
    console.log(`${label}: commands per call by name ${JSON.stringify(names)}; per master ${one.perMaster.map((v) => round(v, 2)).join(" / ")}`);
  }
  console.table(
    results.flatMap(({ label, sleeping }) =>
      sleeping.map(({ workers, perSecond, ideal }) => ({
        what: `${label}, 10 ms tool`,
        workers,
        "calls/s": round(perSecond),
        "if only the sleep limited": ideal,
        "of that": `${round((perSecond / ideal) * 100)}%`,
        "× 1 worker": round(perSecond / sleeping[0].perSecond, 2),
      })),
    ),
  );
}

const floorHost = local();
for (let i = 0; i < 3; i++) await batch(floorHost, "noop", undefined, []);
const floor = await batch(floorHost, "noop", undefined, []);
const floorSingles = await singles(floorHost, undefined);
const results = [];
/** Each build in turn, `ROUNDS` times on the same servers; the 10 ms tool only once, with this build. */
async function measureBuilds(target, label) {
  for (let round = 0; round < ROUNDS; round++) {
    // Each build first in every other round: a load that changes during the run favours neither.
    for (const build of round % 2 === 0 ? BUILDS : [...BUILDS].reverse()) {
      const name = BUILDS.length > 1 ? `${label} (${build.name}${ROUNDS > 1 ? `, round ${round + 1}` : ""})` : label;
      results.push(await measure(target, name, build, round === 0 && build === BUILDS[0]));
    }
  }
}
if (process.env.BENCH_QUEUE_SINGLE !== "0") {
  const single = await singleRedis();
  try {
    await measureBuilds(single, "one Redis");
  } finally {
    for (const server of single.servers) await stop(server.process);
  }
}
if (process.env.BENCH_QUEUE_CLUSTER !== "0") {
  const dir = mkdtempSync(join(tmpdir(), "bench-cluster-"));
  const cluster = await clusterRedis(dir);
  try {
    await measureBuilds(cluster, "3-master cluster, 3 queues");
  } finally {
    for (const server of cluster.servers) await stop(server.process);
    rmSync(dir, { recursive: true, force: true });
  }
}
report(floor, floorSingles, results);
if (BUILDS.length > 1) medians(results);

/** With a baseline: each build's median over the rounds, and this build's as a ratio of the baseline's. */
function medians(rows) {
  const median = (values) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)];
  const table = [];
  for (const target of ["one Redis", "3-master cluster, 3 queues"]) {
    const of = (build) => rows.filter((row) => row.label.startsWith(`${target} (${build}`));
    const [mine, base] = [of("this build"), of("baseline")];
    if (mine.length === 0 || base.length === 0) continue;
    const pick = (list, field) => median(list.map((row) => field(row)));
    const fields = { "calls/s": (row) => row.one.perSecond, "commands/call": (row) => row.one.total, "host CPU µs/call": (row) => row.one.hostUs, "worker CPU µs/call": (row) => row.one.workerUs, "Redis CPU µs/call": (row) => row.one.redisCpuUs, "one call median ms": (row) => percentile(row.lone.samples, 0.5) };
    for (const [name, field] of Object.entries(fields)) {
      const [a, b] = [pick(mine, field), pick(base, field)];
      table.push({ target, what: name, "this build": round(a, 2), baseline: round(b, 2), "this ÷ baseline": round(a / b, 3) });
    }
  }
  console.log(`medians of ${ROUNDS} rounds each; load average now ${loadavg().map((value) => value.toFixed(1)).join(" ")}`);
  console.table(table);
}
