import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { BASH_PLUGIN, QUEUE_PLUGIN, codeOf, stopProcess, textOf, useTestbed, waitUntil, writeProbePlugin } from "./_helpers.js";
import { type TestCluster, keysOn, queuesOnEachMaster, startCluster } from "./_topologies.js";

// A Redis Cluster of the test's own on loopback: 3 masters, each with a replica. The host spreads
// its calls over three queues, one on each master; one worker serves all three.

let cluster: TestCluster | undefined;
let queues: string[] = [];

const bed = useTestbed((bed) => {
  writeProbePlugin(bed.dir);
  return [[BASH_PLUGIN, { sandbox: "off", executionMode: "parallel" }], "../probe-plugin.mjs", clusterEntry()];
});

function clusterEntry(options: Record<string, unknown> = {}): unknown[] {
  return [QUEUE_PLUGIN, { redis: { cluster: cluster?.seeds ?? [] }, queue: queues, ...options }];
}

/** A cluster, and queue names that lie on its three masters; the worker's config is written again to name them. */
async function setUp(): Promise<void> {
  cluster = await startCluster(3, 1);
  queues = await queuesOnEachMaster(cluster);
  const { writeConfig } = await import("./_helpers.js");
  writeConfig(bed.workerDir, [[BASH_PLUGIN, { sandbox: "off", executionMode: "parallel" }], "../probe-plugin.mjs", clusterEntry()]);
}

afterEach(async () => {
  await cluster?.stop();
  cluster = undefined;
});

describe("a Redis Cluster", () => {
  it("spreads a host's calls over three queues, each on its own master, and answers every one", async () => {
    await setUp();
    await bed.worker(["--queue", queues.join(","), "--concurrency", "8"]);
    const { harness } = await bed.hostWith([clusterEntry()]);
    const calls = Array.from({ length: 30 }, (_, i) => ({ id: `spread-${i}`, name: "bash", arguments: { command: `echo ${i}` } }));
    const results = await harness.executeToolCalls(calls);
    expect(results.map((result) => textOf(result))).toEqual(calls.map((_, i) => String(i)));
    // Each master holds the records of its own queue's calls, and only those.
    const masters = await (cluster as TestCluster).masters();
    const held = await Promise.all(masters.map(async (port) => new Set((await keysOn(port, "{toolhost:*}:call:*")).map((key) => key.slice(1, key.indexOf("}"))))));
    expect(held.map((tags) => tags.size)).toEqual([1, 1, 1]);
    expect(held.flatMap((tags) => [...tags]).sort()).toEqual(queues.map((queue) => `toolhost:${queue}`).sort());
    const records = (await Promise.all(masters.map((port) => keysOn(port, "{toolhost:*}:call:*")))).flat();
    expect(records).toHaveLength(30);
  });

  it("when a master is killed mid-run: its at-most-once calls may or may not have run, its read-only ones run again after the failover, the others finish", async () => {
    await setUp();
    await bed.worker(["--queue", queues.join(","), "--concurrency", "40", "--lock-duration", "3000"]);
    const { harness } = await bed.hostWith([clusterEntry()]);
    const started = join(bed.workerDir, "started.log");
    const bash = Array.from({ length: 12 }, (_, i) => ({ id: `bash-${i}`, name: "bash", arguments: { command: `echo bash-${i} >> ${started}; sleep 4; echo done` } }));
    // The read-only calls' first attempts are held until the test lets them go.
    writeFileSync(join(bed.workerDir, "hold"), "");
    const reads = Array.from({ length: 12 }, (_, i) => ({ id: `read-${i}`, name: "held_echo", arguments: { text: `read-${i}` } }));
    const pending = harness.executeToolCalls([...bash, ...reads]);
    const echoes = join(bed.workerDir, "echoes.log");
    const lines = (file: string) => {
      try {
        return readFileSync(file, "utf8").trim().split("\n");
      } catch {
        return [];
      }
    };
    await waitUntil(() => lines(started).length === 12 && lines(echoes).length === 12);
    // Where each call went: the master that holds its record. The one that holds the most is killed.
    const at = new Map<string, number>();
    for (const port of await (cluster as TestCluster).masters()) {
      for (const key of await keysOn(port, "{toolhost:*}:call:*")) at.set(decodeURIComponent(key.slice(key.indexOf(":call:") + ":call:".length)), port);
    }
    expect(at.size).toBe(24);
    const counts = new Map<number, number>();
    for (const port of at.values()) counts.set(port, (counts.get(port) ?? 0) + 1);
    const victim = [...counts.entries()].sort((a, b) => b[1] - a[1])[0]![0];
    const node = (cluster as TestCluster).nodes.find((server) => server.port === victim)!;
    await stopProcess(node.process, "SIGKILL");
    const onVictim = reads.filter((call) => at.get(call.id) === victim).map((call) => call.id);
    expect(onVictim.length).toBeGreaterThan(0);
    expect(bash.filter((call) => at.get(call.id) === victim).length).toBeGreaterThan(0);
    // The read-only calls on the killed master are sent again after the failover, and run again.
    await waitUntil(() => onVictim.every((id) => lines(echoes).filter((line) => line.startsWith(`${id} `)).length === 2));
    rmSync(join(bed.workerDir, "hold"));
    const results = await pending;
    const byId = new Map([...bash, ...reads].map((call, i) => [call.id, results[i]!]));
    for (const [id, port] of at) {
      const result = byId.get(id)!;
      if (port === victim && id.startsWith("bash-")) {
        expect(codeOf(result), id).toBe("TOOLHOST_QUEUE_CONNECTION_LOST");
        expect(textOf(result)).toContain("may or may not have run");
      } else if (id.startsWith("bash-")) {
        expect(textOf(result), id).toBe("done");
      } else {
        expect(textOf(result), id).toBe(`echo: ${id}`);
      }
    }
    // The worker is at work on the promoted replica: a new call on every queue runs.
    const after = await harness.executeToolCalls(queues.map((_, i) => ({ id: `after-${i}`, name: "bash", arguments: { command: "echo after" } })));
    expect(after.map((result) => textOf(result))).toEqual(queues.map(() => "after"));
  });
});
