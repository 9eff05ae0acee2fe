import { type ChildProcess, execFile, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { promisify } from "node:util";
import calculateSlot from "cluster-key-slot";
import { Redis } from "ioredis";
import { freePort, stopProcess } from "./_helpers.js";

const run = promisify(execFile);

/** A redis-server (or sentinel) process of a test, on a free loopback port. */
export interface Server {
  port: number;
  process: ChildProcess;
}

/** Starts redis-server with `args` and waits until it accepts connections; fails (never skips) when it is not installed. */
async function startServer(args: string[], ready = "Ready to accept connections"): Promise<Server> {
  const port = await freePort();
  const child = spawn("redis-server", [...args, "--port", String(port), "--bind", "127.0.0.1"], { stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
  const failed = new Promise<never>((_, reject) => {
    child.on("error", (error) => reject(new Error(`redis-server could not start (install the redis-server package): ${error.message}`)));
    child.on("exit", (code) => reject(new Error(`redis-server exited with ${code}: ${output}`)));
  });
  const started = (async () => {
    while (!output.includes(ready)) await delay(20);
  })();
  await Promise.race([started, failed]);
  failed.catch(() => undefined);
  return { port, process: child };
}

// No files, and a replica's first sync at once (Redis waits 5 s by default for more replicas to join it).
const NO_DISK = ["--save", "", "--appendonly", "no", "--repl-diskless-sync-delay", "0"];

/** A Redis Cluster of the test's own: `masters` masters, each with `replicas` replicas. */
export interface TestCluster {
  nodes: Server[];
  seeds: string[];
  /** The port of the master that holds a key (or a hash tag's keys) now. */
  masterOf(key: string): Promise<number>;
  /** The ports of the masters now. */
  masters(): Promise<number[]>;
  stop(): Promise<void>;
}

export async function startCluster(masters: number, replicas: number, nodeTimeoutMs = 2000): Promise<TestCluster> {
  const dir = mkdtempSync(join(tmpdir(), "toolhost-cluster-"));
  const nodes: Server[] = [];
  const stop = async () => {
    for (const node of nodes) await stopProcess(node.process, "SIGKILL");
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    for (let i = 0; i < masters * (1 + replicas); i++) {
      const config = join(dir, `nodes-${i}.conf`);
      // The cluster bus gets a free port of its own (by default it is the port + 10000, which may be taken).
      const bus = await freePort();
      nodes.push(await startServer([...NO_DISK, "--cluster-enabled", "yes", "--cluster-port", String(bus), "--cluster-config-file", config, "--cluster-node-timeout", String(nodeTimeoutMs), "--dir", dir]));
    }
    const addresses = nodes.map((node) => `127.0.0.1:${node.port}`);
    await run("redis-cli", ["--cluster", "create", ...addresses, "--cluster-replicas", String(replicas), "--cluster-yes"], { timeout: 60_000 });
    await untilClusterOk(nodes);
    // A replica that never synced with its master cannot take over from it.
    if (replicas > 0) for (const node of nodes.slice(0, masters)) await untilReplicated(node.port, replicas);
  } catch (error) {
    await stop();
    throw error;
  }
  const slotMap = async (): Promise<Array<[number, number, number]>> => {
    for (const node of nodes) {
      if (node.process.exitCode !== null || node.process.signalCode !== null) continue;
      const client = new Redis({ port: node.port, host: "127.0.0.1", lazyConnect: true, maxRetriesPerRequest: 0 });
      try {
        await client.connect();
        const slots = (await client.call("CLUSTER", "SLOTS")) as Array<[number, number, [string, number]]>;
        return slots.map(([from, to, [, port]]) => [from, to, port]);
      } catch {
        // this node is down: ask another
      } finally {
        client.disconnect();
      }
    }
    throw new Error("no node of the cluster answers");
  };
  return {
    nodes,
    seeds: nodes.slice(0, masters).map((node) => `redis://127.0.0.1:${node.port}`),
    async masterOf(key) {
      const slot = calculateSlot(key);
      const range = (await slotMap()).find(([from, to]) => slot >= from && slot <= to);
      if (!range) throw new Error(`no master holds slot ${slot}`);
      return range[2];
    },
    async masters() {
      return [...new Set((await slotMap()).map(([, , port]) => port))];
    },
    stop,
  };
}

/** Waits until every live node says the cluster is ok (all slots served). */
export async function untilClusterOk(nodes: Server[]): Promise<void> {
  for (const node of nodes) {
    if (node.process.exitCode !== null || node.process.signalCode !== null) continue;
    const client = new Redis({ port: node.port, host: "127.0.0.1", maxRetriesPerRequest: 1 });
    try {
      for (;;) {
        const info = (await client.call("CLUSTER", "INFO").catch(() => "")) as string;
        if (info.includes("cluster_state:ok")) break;
        await delay(100);
      }
    } finally {
      client.disconnect();
    }
  }
}

/** Names of queues whose keys lie on different masters, one per master. */
export async function queuesOnEachMaster(cluster: TestCluster, prefix = "toolhost"): Promise<string[]> {
  const masters = await cluster.masters();
  const chosen = new Map<number, string>();
  for (let i = 0; chosen.size < masters.length && i < 10_000; i++) {
    const name = `q${i}`;
    const master = await cluster.masterOf(`{${prefix}:${name}}`);
    if (!chosen.has(master)) chosen.set(master, name);
  }
  return masters.map((master) => chosen.get(master) as string);
}

/** The keys a node holds that match a pattern. */
export async function keysOn(port: number, pattern: string): Promise<string[]> {
  const client = new Redis({ port, host: "127.0.0.1", maxRetriesPerRequest: 1 });
  try {
    const keys: string[] = [];
    let cursor = "0";
    do {
      const [next, found] = (await client.scan(cursor, "MATCH", pattern, "COUNT", 1000)) as [string, string[]];
      keys.push(...found);
      cursor = next;
    } while (cursor !== "0");
    return keys;
  } finally {
    client.disconnect();
  }
}

/** A master, its replica and three sentinels watching it as `name`. */
export interface TestSentinels {
  master: Server;
  replica: Server;
  sentinels: Server[];
  name: string;
  urls: string[];
  /** The port of the master the sentinels name now. */
  currentMaster(): Promise<number>;
  stop(): Promise<void>;
}

export async function startSentinels(downAfterMs = 1000): Promise<TestSentinels> {
  const dir = mkdtempSync(join(tmpdir(), "toolhost-sentinel-"));
  const servers: Server[] = [];
  const stop = async () => {
    for (const server of servers) await stopProcess(server.process, "SIGKILL");
    rmSync(dir, { recursive: true, force: true });
  };
  const name = "toolhost-test";
  try {
    const master = await startServer(NO_DISK);
    servers.push(master);
    const replica = await startServer([...NO_DISK, "--replicaof", "127.0.0.1", String(master.port)]);
    servers.push(replica);
    await untilReplicated(master.port);
    const sentinels: Server[] = [];
    for (let i = 0; i < 3; i++) {
      const config = join(dir, `sentinel-${i}.conf`);
      writeFileSync(
        config,
        [
          `sentinel monitor ${name} 127.0.0.1 ${master.port} 2`,
          `sentinel down-after-milliseconds ${name} ${downAfterMs}`,
          `sentinel failover-timeout ${name} 10000`,
          `sentinel parallel-syncs ${name} 1`,
          "",
        ].join("\n"),
      );
      const sentinel = await startServer([config, "--sentinel"], "Sentinel ID is");
      sentinels.push(sentinel);
      servers.push(sentinel);
    }
    const ask = async () => {
      for (const sentinel of sentinels) {
        const client = new Redis({ port: sentinel.port, host: "127.0.0.1", maxRetriesPerRequest: 1 });
        try {
          const [, port] = (await client.call("SENTINEL", "get-master-addr-by-name", name)) as [string, string];
          return Number(port);
        } catch {
          // ask the next
        } finally {
          client.disconnect();
        }
      }
      throw new Error("no sentinel answers");
    };
    // The sentinels know each other and the replica before the test relies on a failover.
    await untilSentinelsReady(sentinels, name);
    return { master, replica, sentinels, name, urls: sentinels.map((s) => `redis://127.0.0.1:${s.port}`), currentMaster: ask, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

async function untilReplicated(masterPort: number, replicas = 1): Promise<void> {
  const client = new Redis({ port: masterPort, host: "127.0.0.1" });
  try {
    while ([...(await client.info("replication")).matchAll(/^slave\d+:.*state=online/gm)].length < replicas) await delay(50);
  } finally {
    client.disconnect();
  }
}

async function untilSentinelsReady(sentinels: Server[], name: string): Promise<void> {
  for (const sentinel of sentinels) {
    const client = new Redis({ port: sentinel.port, host: "127.0.0.1" });
    try {
      for (;;) {
        const master = (await client.call("SENTINEL", "master", name)) as string[];
        const field = (key: string) => master[master.indexOf(key) + 1];
        if (Number(field("num-other-sentinels")) >= 2 && Number(field("num-slaves")) >= 1) break;
        await delay(100);
      }
    } finally {
      client.disconnect();
    }
  }
}
