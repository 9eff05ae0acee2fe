import { join } from "node:path";
import type { ToolCall } from "@toolhost/core";
import { Redis } from "ioredis";
import { afterEach, describe, expect, it } from "vitest";
import { countAnswers, expectEveryPromiseKept, mix, outcomes, runsOf, untilNothingPending, writeChaosPlugin } from "./_chaos.js";
import { QUEUE_PLUGIN, codeOf, queueEntry, stopProcess, textOf, useTestbed, waitUntil, writeConfig } from "./_helpers.js";
import { callOf, watchJobs } from "./_forge.js";
import { type TestCluster, type TestSentinels, queuesOnEachMaster, startCluster, startSentinels } from "./_topologies.js";

// The whole path against real Redis while things go wrong: workers killed mid-call, a master
// killed, Redis paused (SIGSTOP), ids repeated, jobs copied back, a flood of 10,000 calls on a slow
// worker. Whatever happens, every call is answered once, a call that may not run twice never does,
// and nothing is left pending in Redis.

const bed = useTestbed((bed) => [join(bed.dir, "chaos-plugin.mjs"), queueEntry(bed.redis)]);
const LOCK = ["--lock-duration", "2000"];

let cluster: TestCluster | undefined;
let sentinels: TestSentinels | undefined;
afterEach(async () => {
  await cluster?.stop();
  await sentinels?.stop();
  cluster = undefined;
  sentinels = undefined;
});

function ready(): void {
  writeChaosPlugin(bed.dir);
}

describe("chaos on one Redis", () => {
  it("10,000 calls on a slow worker, ids repeated within the flood: each answered once, each write run once, nothing pending", async () => {
    ready();
    await bed.worker(["--concurrency", "4"]);
    const { harness } = await bed.host();
    const answers = countAnswers(harness);
    const calls: ToolCall[] = mix("flood", 10_000, 1);
    // Every 500th call is sent twice in the batch (the same call: one run, both answered); every
    // 1,000th also under its id with other arguments (refused at once, not run).
    for (let i = 0; i < 10_000; i += 500) calls.push({ ...calls[i]! });
    for (let i = 250; i < 10_000; i += 1_000) calls.push({ ...calls[i]!, arguments: { ms: 1, tag: "other" } });
    const results = await harness.executeToolCalls(calls);
    const runs = runsOf(bed.workerDir);
    expectEveryPromiseKept(calls, results, runs, answers, ["TOOLHOST_QUEUE_CALL_ID_REUSED"]);
    // Only the calls under a repeated id with other arguments are refused; every other call is done.
    const refused = results.flatMap((result, i) => (codeOf(result) === "TOOLHOST_QUEUE_CALL_ID_REUSED" ? [i] : []));
    expect(refused).toEqual(Array.from({ length: 10 }, (_, i) => 10_020 + i));
    expect(results.filter((result) => !result.isError)).toHaveLength(10_020);
    expect([...runs.values()].every((count) => count === 1)).toBe(true);
    expect(runs.size).toBe(10_000);
    await untilNothingPending(bed.redis.port, ["calls"]);
    // Sent again, a thousand of them get their first answers from their records, and none runs again.
    const again = await harness.executeToolCalls(calls.slice(0, 1_000));
    expect(again.map((result) => textOf(result))).toEqual(calls.slice(0, 1_000).map((call) => `done ${call.id}`));
    expect(runsOf(bed.workerDir)).toEqual(runs);
  });

  it("a fast worker answering calls before the host has read their adds' replies: every record kept, the calls sent again answered from them", async () => {
    ready();
    await bed.worker(["--concurrency", "50"]);
    const { harness } = await bed.host();
    const calls = mix("fast", 2_000, 0);
    const first = await harness.executeToolCalls(calls);
    expect(first.filter((result) => result.isError)).toEqual([]);
    const runs = runsOf(bed.workerDir);
    const again = await harness.executeToolCalls(calls);
    expect(again.map((result) => textOf(result))).toEqual(calls.map((call) => `done ${call.id}`));
    expect(runsOf(bed.workerDir)).toEqual(runs);
  });

  it("workers killed mid-call and Redis paused (SIGSTOP): each call answered once, no write run twice, nothing pending", async () => {
    ready();
    const workers = [await bed.worker([...LOCK, "--concurrency", "8"]), await bed.worker([...LOCK, "--concurrency", "8"])];
    const { harness } = await bed.host();
    const answers = countAnswers(harness);
    const calls = mix("killed", 60, 400);
    const pending = harness.executeToolCalls(calls);
    await waitUntil(() => runsOf(bed.workerDir).size >= 10);
    await stopProcess(workers[0]!.process, "SIGKILL");
    workers.push(await bed.worker([...LOCK, "--concurrency", "8"]));
    // The network pause: Redis stops answering for longer than a lock lasts, then goes on.
    await waitUntil(() => runsOf(bed.workerDir).size >= 30);
    process.kill(bed.redis.process.pid as number, "SIGSTOP");
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    process.kill(bed.redis.process.pid as number, "SIGCONT");
    const results = await pending;
    const runs = runsOf(bed.workerDir);
    expectEveryPromiseKept(calls, results, runs, answers);
    // The chaos happened: the killed worker's writes may or may not have run, its reads ran again.
    const seen = outcomes(results, runs);
    console.log("killed and paused:", JSON.stringify(seen));
    expect(seen.TOOLHOST_QUEUE_WORKER_LOST).toBeGreaterThan(0);
    expect(seen["ran twice"]).toBeGreaterThan(0);
    await untilNothingPending(bed.redis.port, ["calls"]);
  });

  it("copies of answered jobs put back into the queue are never run again", async () => {
    ready();
    await bed.worker();
    const { harness } = await bed.host();
    const watch = await watchJobs(bed);
    const calls = mix("copied", 12, 0);
    await harness.executeToolCalls(calls);
    watch.stop();
    expect(watch.jobs).toHaveLength(12);
    const before = runsOf(bed.workerDir);
    const redis = new Redis({ port: bed.redis.port, host: "127.0.0.1" });
    for (const job of watch.jobs) await redis.xadd("{toolhost:calls}:jobs", "*", "j", job.text, "s", job.sig);
    // A second worker, which never took them, gets some of the copies.
    await bed.worker();
    await untilNothingPending(bed.redis.port, ["calls"]);
    redis.disconnect();
    expect(runsOf(bed.workerDir)).toEqual(before);
    expect(new Set(watch.jobs.map((job) => callOf(job).call.id))).toEqual(new Set(calls.map((call) => call.id)));
  });
});

describe("chaos on a 3-master cluster", () => {
  it("a master killed and a worker killed mid-run: each call answered once, no write run twice, nothing pending", async () => {
    ready();
    cluster = await startCluster(3, 1);
    const queues = await queuesOnEachMaster(cluster);
    const entry = [QUEUE_PLUGIN, { redis: { cluster: cluster.seeds }, queue: queues }];
    writeConfig(bed.workerDir, [join(bed.dir, "chaos-plugin.mjs"), entry]);
    const args = ["--queue", queues.join(","), "--concurrency", "16", ...LOCK];
    const first = await bed.worker(args);
    await bed.worker(args);
    const { harness } = await bed.hostWith([entry]);
    const answers = countAnswers(harness);
    const calls = mix("cluster", 90, 1500);
    const pending = harness.executeToolCalls(calls);
    await waitUntil(() => runsOf(bed.workerDir).size >= 20);
    await stopProcess(first.process, "SIGKILL");
    await bed.worker(args);
    const victim = (await cluster.masters())[0]!;
    await stopProcess(cluster.nodes.find((node) => node.port === victim)!.process, "SIGKILL");
    const results = await pending;
    const runs = runsOf(bed.workerDir);
    expectEveryPromiseKept(calls, results, runs, answers);
    const seen = outcomes(results, runs);
    console.log("cluster:", JSON.stringify(seen));
    expect(seen.TOOLHOST_QUEUE_CONNECTION_LOST).toBeGreaterThan(0);
    for (const queue of queues) await untilNothingPending(await cluster.masterOf(`{toolhost:${queue}}`), [queue]);
  });
});

describe("chaos under Sentinel", () => {
  it("the master killed mid-run, ids repeated: each call answered once, no write run twice, nothing pending on the new master", async () => {
    ready();
    sentinels = await startSentinels();
    const entry = [QUEUE_PLUGIN, { redis: { sentinels: sentinels.urls, name: sentinels.name }, queue: "calls" }];
    writeConfig(bed.workerDir, [join(bed.dir, "chaos-plugin.mjs"), entry]);
    await bed.worker(["--concurrency", "16", ...LOCK]);
    await bed.worker(["--concurrency", "16", ...LOCK]);
    const { harness } = await bed.hostWith([entry]);
    const answers = countAnswers(harness);
    const calls = mix("sentinel", 60, 1500);
    for (let i = 0; i < 60; i += 10) calls.push({ ...calls[i]! });
    const pending = harness.executeToolCalls(calls);
    await waitUntil(() => runsOf(bed.workerDir).size >= 20);
    const old = sentinels.master.port;
    await stopProcess(sentinels.master.process, "SIGKILL");
    const results = await pending;
    const runs = runsOf(bed.workerDir);
    expectEveryPromiseKept(calls, results, runs, answers);
    const seen = outcomes(results, runs);
    console.log("sentinel:", JSON.stringify(seen));
    expect(seen.TOOLHOST_QUEUE_CONNECTION_LOST).toBeGreaterThan(0);
    let now = await sentinels.currentMaster();
    while (now === old) now = await new Promise<number>((resolve) => setTimeout(() => resolve(sentinels!.currentMaster()), 100));
    await untilNothingPending(now, ["calls"]);
  });
});
