// What bench/queue starts and measures: redis-server (alone or a cluster), `toolhost worker`
// processes, a host, and the counters read before and after each run (INFO commandstats, INFO cpu,
// /proc/<pid>/stat).
import { execFile, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { createRequire } from "node:module";

const here = dirname(fileURLToPath(import.meta.url));
export const root = join(here, "..", "..");
const queueRequire = createRequire(join(root, "packages/queue/package.json"));
const { Redis } = queueRequire("ioredis");
const calculateSlot = queueRequire("cluster-key-slot");
const run = promisify(execFile);

async function freePort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function startServer(args) {
  const port = await freePort();
  const child = spawn("redis-server", [...args, "--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], { stdio: ["ignore", "pipe", "inherit"] });
  let out = "";
  child.stdout.setEncoding("utf8").on("data", (chunk) => (out += chunk));
  while (!out.includes("Ready to accept connections")) {
    if (child.exitCode !== null) throw new Error(`redis-server exited: ${out}`);
    await delay(20);
  }
  return { port, process: child };
}

export async function stop(child) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  await exited;
}

/** One redis-server; `servers` is the list of masters to read counters from. */
export async function singleRedis() {
  const server = await startServer([]);
  return { redis: `redis://127.0.0.1:${server.port}`, servers: [server], queues: ["bench"] };
}

/** A 3-master cluster without replicas, and three queue names whose keys lie on different masters. */
export async function clusterRedis(dir) {
  const servers = [];
  for (let i = 0; i < 3; i++) {
    // The cluster bus on a free port of its own (by default the port + 10000, which may be taken).
    const bus = await freePort();
    servers.push(await startServer(["--cluster-enabled", "yes", "--cluster-port", String(bus), "--cluster-config-file", join(dir, `nodes-${i}.conf`), "--dir", dir]));
  }
  await run("redis-cli", ["--cluster", "create", ...servers.map((s) => `127.0.0.1:${s.port}`), "--cluster-replicas", "0", "--cluster-yes"]);
  const client = new Redis({ port: servers[0].port, host: "127.0.0.1" });
  while (!String(await client.call("CLUSTER", "INFO")).includes("cluster_state:ok")) await delay(100);
  const slots = (await client.call("CLUSTER", "SLOTS")).map(([from, to, [, port]]) => [from, to, port]);
  client.disconnect();
  const masterOf = (name) => slots.find(([from, to]) => calculateSlot(`{toolhost:${name}}`) >= from && calculateSlot(`{toolhost:${name}}`) <= to)[2];
  const chosen = new Map();
  for (let i = 0; chosen.size < 3; i++) if (!chosen.has(masterOf(`q${i}`))) chosen.set(masterOf(`q${i}`), `q${i}`);
  return { cluster: servers.map((s) => `redis://127.0.0.1:${s.port}`), servers, queues: [...chosen.values()] };
}

/** A project folder: a no-op and a 10 ms tool for workers, and configs for a worker and a host on `target`. */
export function project(target, plugin = join(root, "packages/queue/dist/index.js")) {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "bench-queue-")));
  // The bench's project runs code of its own (plugins by path), which loads only from a folder its
  // user trusts (docs/trust.md): a config folder of the bench's own trusts it, and no other config counts.
  process.env.XDG_CONFIG_HOME = join(dir, ".config-home");
  process.env.TOOLHOST_MANAGED_CONFIG_DIR = join(dir, ".managed");
  mkdirSync(join(dir, ".config-home", "toolhost"), { recursive: true });
  writeFileSync(join(dir, ".config-home", "toolhost", "trusted-folders.json"), JSON.stringify({ folders: [dir] }));
  mkdirSync(join(dir, "node_modules", "@toolhost"), { recursive: true });
  symlinkSync(join(root, "packages/core"), join(dir, "node_modules", "@toolhost", "core"), "dir");
  writeFileSync(
    join(dir, "tools.mjs"),
    `import { definePlugin, Type } from "@toolhost/core";
export default definePlugin({ name: "bench-tools", apply(harness) {
  harness.registerTool({ name: "noop", label: "No-op", description: "does nothing", parameters: Type.Object({ n: Type.Number() }),
    annotations: { readOnly: true }, async execute(_id, params) { return { content: [{ type: "text", text: "ok" }], details: params }; } });
  harness.registerTool({ name: "sleep10", label: "Sleep", description: "sleeps 10 ms", parameters: Type.Object({ n: Type.Number() }),
    annotations: { readOnly: true }, async execute() { await new Promise((resolve) => setTimeout(resolve, 10)); return { content: [{ type: "text", text: "slept" }], details: {} }; } });
} });\n`,
  );
  const redis = target.cluster ? { cluster: target.cluster } : target.redis;
  const queue = [plugin, { redis, queue: target.queues.length === 1 ? target.queues[0] : target.queues }];
  mkdirSync(join(dir, "worker"));
  mkdirSync(join(dir, "host"));
  writeFileSync(join(dir, "worker", "toolhost.config.json"), JSON.stringify({ plugins: ["../tools.mjs", queue] }));
  writeFileSync(join(dir, "host", "toolhost.config.json"), JSON.stringify({ plugins: [queue] }));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export async function startWorker(dir, queues, concurrency) {
  const child = spawn(process.execPath, [join(root, "packages/cli/dist/bin.js"), "worker", "--queue", queues.join(","), "--concurrency", String(concurrency)], {
    cwd: join(dir, "worker"),
    stdio: ["ignore", "pipe", "inherit"],
  });
  let out = "";
  child.stdout.setEncoding("utf8").on("data", (chunk) => (out += chunk));
  while (!out.includes('"ready"')) {
    if (child.exitCode !== null) throw new Error("toolhost worker exited");
    await delay(20);
  }
  return child;
}

/** CPU ms a process used so far (user + system), from /proc (10 ms ticks). */
export function cpuMs(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

/** Per master: commands run (INFO commandstats, a script's own commands included) and CPU µs (INFO cpu). */
export async function redisCounters(servers) {
  return Promise.all(
    servers.map(async ({ port }) => {
      const client = new Redis({ port, host: "127.0.0.1" });
      const [stats, cpu] = [await client.info("commandstats"), await client.info("cpu")];
      client.disconnect();
      const commands = {};
      for (const match of stats.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) commands[match[1]] = Number(match[2]);
      const seconds = (name) => Number(new RegExp(`^${name}:([0-9.]+)`, "m").exec(cpu)?.[1] ?? 0);
      return { commands, cpuUs: (seconds("used_cpu_user") + seconds("used_cpu_sys")) * 1e6 };
    }),
  );
}

/** What a run cost each call: commands (by name, over every master), Redis CPU µs, and the share per master. */
export function perCall(before, after, calls) {
  const byName = {};
  const perMaster = [];
  let cpuUs = 0;
  for (const [i, end] of after.entries()) {
    let count = 0;
    for (const [name, value] of Object.entries(end.commands)) {
      // The counters' own INFO calls are not the calls'.
      const delta = value - (before[i].commands[name] ?? 0) - (name === "info" ? 2 : 0);
      if (delta <= 0) continue;
      byName[name] = (byName[name] ?? 0) + delta / calls;
      count += delta;
    }
    perMaster.push(count / calls);
    cpuUs += end.cpuUs - before[i].cpuUs;
  }
  const total = Object.values(byName).reduce((a, b) => a + b, 0);
  return { total, byName, perMaster, redisCpuUs: cpuUs / calls };
}
