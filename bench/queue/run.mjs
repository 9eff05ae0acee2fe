// Calls through the queue: 1,000 no-op calls in one batch through @toolhost/queue to 1 and then 2
// `toolhost worker` processes, beside the same calls run locally. Prints calls per second, the added
// latency of one call at a time (median, p99), and the Redis commands each call cost (INFO
// commandstats before and after: every command a client sent, so each is at most one round trip).
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { AgentHarness, Type } from "../../packages/core/dist/index.js";
import { createHost } from "../../packages/core/dist/config/index.js";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..", "..");
const { Redis } = await import(join(root, "packages/queue/node_modules/ioredis/built/index.js"));
const CALLS = 1_000;
const SINGLES = 200;
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 50);

const noop = {
  name: "noop",
  label: "No-op",
  description: "does nothing",
  parameters: Type.Object({ n: Type.Number() }),
  annotations: { readOnly: true },
  async execute(_id, params) {
    return { content: [{ type: "text", text: "ok" }], details: params };
  },
};

async function freePort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function startRedis(port) {
  const child = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], { stdio: ["ignore", "pipe", "inherit"] });
  let out = "";
  child.stdout.setEncoding("utf8").on("data", (chunk) => (out += chunk));
  while (!out.includes("Ready to accept connections")) {
    if (child.exitCode !== null) throw new Error(`redis-server exited: ${out}`);
    await delay(20);
  }
  return child;
}

async function startWorker(dir) {
  const child = spawn(process.execPath, [join(root, "packages/cli/dist/bin.js"), "worker", "--queue", "bench", "--concurrency", String(CONCURRENCY)], { cwd: dir, stdio: ["ignore", "pipe", "inherit"] });
  let out = "";
  child.stdout.setEncoding("utf8").on("data", (chunk) => (out += chunk));
  while (!out.includes('"ready"')) {
    if (child.exitCode !== null) throw new Error("toolhost worker exited");
    await delay(20);
  }
  return child;
}

async function stop(child) {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  await exited;
}

/** CPU ms a process used so far (user + system), from /proc. */
function cpuMs(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

async function commandStats(client) {
  const text = await client.info("commandstats");
  const stats = {};
  for (const match of text.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) stats[match[1]] = Number(match[2]);
  return stats;
}

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];
}

let batchNo = 0;
/** Throughput of one 1,000-call batch, and Redis commands per call over it. */
async function batch(harness, client, pids = []) {
  batchNo += 1;
  const cpuBefore = [process.cpuUsage(), ...pids.map(cpuMs)];
  const calls = Array.from({ length: CALLS }, (_, i) => ({ id: `b${batchNo}-${i}`, name: "noop", arguments: { n: i } }));
  const before = client ? await commandStats(client) : {};
  const start = performance.now();
  const results = await harness.executeToolCalls(calls);
  const ms = performance.now() - start;
  if (results.some((r) => r.isError)) throw new Error(`a call failed: ${JSON.stringify(results.find((r) => r.isError).content)}`);
  const after = client ? await commandStats(client) : {};
  // The two INFO calls of this measure are not the calls'.
  const own = process.cpuUsage(cpuBefore[0]);
  const cpu = [(own.user + own.system) / 1000, ...pids.map((pid, i) => cpuMs(pid) - cpuBefore[i + 1])].map((ms) => (ms / CALLS) * 1000);
  const perCall = {};
  for (const [name, count] of Object.entries(after)) {
    const delta = count - (before[name] ?? 0) - (name === "info" ? 1 : 0);
    if (delta > 0) perCall[name] = delta / CALLS;
  }
  return { perSecond: (CALLS / ms) * 1000, perCall, cpu };
}

/** One call at a time: the latency of each, in ms. */
async function singles(harness) {
  const samples = [];
  for (let i = 0; i < SINGLES; i++) {
    batchNo += 1;
    const start = performance.now();
    const [result] = await harness.executeToolCalls([{ id: `s${batchNo}`, name: "noop", arguments: { n: i } }]);
    samples.push(performance.now() - start);
    if (result.isError) throw new Error("a call failed");
  }
  return samples.sort((a, b) => a - b);
}

const dir = realpathSync(mkdtempSync(join(tmpdir(), "bench-queue-")));
// The bench's project runs code of its own (a plugin by path), which loads only from a folder its
// user trusts (docs/trust.md): a config folder of the bench's own trusts it, and no other config counts.
process.env.XDG_CONFIG_HOME = join(dir, ".config-home");
process.env.TOOLHOST_MANAGED_CONFIG_DIR = join(dir, ".managed");
mkdirSync(join(dir, ".config-home", "toolhost"), { recursive: true });
writeFileSync(join(dir, ".config-home", "toolhost", "trusted-folders.json"), JSON.stringify({ folders: [dir] }));
const port = await freePort();
const redis = await startRedis(port);
const workers = [];
let host;
try {
  mkdirSync(join(dir, "node_modules", "@toolhost"), { recursive: true });
  symlinkSync(join(root, "packages/core"), join(dir, "node_modules", "@toolhost", "core"), "dir");
  writeFileSync(
    join(dir, "noop.mjs"),
    `import { definePlugin, Type } from "@toolhost/core";
export default definePlugin({ name: "noop", apply(harness) { harness.registerTool({
  name: "noop", label: "No-op", description: "does nothing", parameters: Type.Object({ n: Type.Number() }),
  annotations: { readOnly: true },
  async execute(_id, params) { return { content: [{ type: "text", text: "ok" }], details: params }; } }); } });\n`,
  );
  const queue = [join(root, "packages/queue/dist/index.js"), { redis: `redis://127.0.0.1:${port}`, queue: "bench" }];
  mkdirSync(join(dir, "worker"));
  mkdirSync(join(dir, "producer"));
  writeFileSync(join(dir, "worker", "toolhost.config.json"), JSON.stringify({ plugins: ["../noop.mjs", queue] }));
  writeFileSync(join(dir, "producer", "toolhost.config.json"), JSON.stringify({ plugins: [queue] }));
  const client = new Redis({ port, host: "127.0.0.1" });

  const local = new AgentHarness({ tools: [noop] });
  for (let i = 0; i < 3; i++) await batch(local);
  const localBatch = await batch(local);
  const localSingles = await singles(local);

  workers.push(await startWorker(join(dir, "worker")));
  host = await createHost({ cwd: join(dir, "producer") });
  await batch(host.harness, client); // warm up
  const one = await batch(host.harness, client, [redis.pid, workers[0].pid]);
  const oneSingles = await singles(host.harness);
  workers.push(await startWorker(join(dir, "worker")));
  await batch(host.harness, client);
  const two = await batch(host.harness, client, [redis.pid, workers[0].pid, workers[1].pid]);
  const twoSingles = await singles(host.harness);
  client.disconnect();

  const localMedian = percentile(localSingles, 0.5);
  const row = (what, b, s) => ({
    what,
    "calls/s (1,000 in a batch)": Math.round(b.perSecond),
    "one call: median ms": percentile(s, 0.5).toFixed(2),
    "p99 ms": percentile(s, 0.99).toFixed(2),
    "added median ms": (percentile(s, 0.5) - localMedian).toFixed(2),
  });
  console.log(`node ${process.version}, ${CALLS} no-op calls per batch, ${SINGLES} single calls, worker concurrency ${CONCURRENCY}`);
  console.table([
    row("local (floor)", localBatch, localSingles),
    row("queue, 1 worker", one, oneSingles),
    row("queue, 2 workers", two, twoSingles),
  ]);
  const total = (perCall) => Object.values(perCall).reduce((a, b) => a + b, 0);
  // Redis 7.0 counts the commands a Lua script runs like a client's, and has no count per client;
  // in this flow clients send only EVALSHA (BullMQ's scripts), XREAD (events) and BZPOPMIN (a worker's wait).
  const trips = (perCall) => ["evalsha", "xread", "bzpopmin", "publish", "multi", "exec"].reduce((sum, name) => sum + (perCall[name] ?? 0), 0);
  console.log(`Round trips per call (EVALSHA + XREAD + BZPOPMIN sent by clients): 1 worker ${trips(one.perCall).toFixed(2)}, 2 workers ${trips(two.perCall).toFixed(2)}`);
  console.log(`CPU µs per call in a batch [producer, redis, worker…]: 1 worker ${one.cpu.map((v) => v.toFixed(0)).join(", ")}; 2 workers ${two.cpu.map((v) => v.toFixed(0)).join(", ")}`);
  console.log(`Redis commands run per call (INFO commandstats, those inside BullMQ's Lua scripts included), 1 worker: ${total(one.perCall).toFixed(2)} ${JSON.stringify(Object.fromEntries(Object.entries(one.perCall).map(([k, v]) => [k, Number(v.toFixed(2))])))}`);
  console.log(`Redis commands per call, 2 workers: ${total(two.perCall).toFixed(2)} ${JSON.stringify(Object.fromEntries(Object.entries(two.perCall).map(([k, v]) => [k, Number(v.toFixed(2))])))}`);
  console.log(`throughput: 2 workers ÷ 1 worker = ${(two.perSecond / one.perSecond).toFixed(2)}×; 1 worker ÷ local = ${(one.perSecond / localBatch.perSecond).toFixed(4)}×`);
} finally {
  await host?.harness.dispose();
  for (const worker of workers) await stop(worker);
  await stop(redis);
  rmSync(dir, { recursive: true, force: true });
}
