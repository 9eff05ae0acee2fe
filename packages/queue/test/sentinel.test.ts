import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { BASH_PLUGIN, QUEUE_PLUGIN, codeOf, stopProcess, textOf, useTestbed, waitUntil, writeConfig, writeProbePlugin } from "./_helpers.js";
import { type TestSentinels, startSentinels } from "./_topologies.js";

// A master, its replica and three sentinels of the test's own on loopback. Host and worker find the
// master through the sentinels; the test kills it during a run.

let sentinels: TestSentinels | undefined;

const bed = useTestbed((bed) => {
  writeProbePlugin(bed.dir);
  return [[BASH_PLUGIN, { sandbox: "off", executionMode: "parallel" }], "../probe-plugin.mjs"];
});

function sentinelEntry(): unknown[] {
  const { urls, name } = sentinels as TestSentinels;
  return [QUEUE_PLUGIN, { redis: { sentinels: urls, name }, queue: "calls" }];
}

afterEach(async () => {
  await sentinels?.stop();
  sentinels = undefined;
});

function lines(file: string): string[] {
  try {
    return readFileSync(file, "utf8").trim().split("\n");
  } catch {
    return [];
  }
}

describe("Redis Sentinel", () => {
  it("answers every call when the master is killed mid-run, and the workers are back at work after the promotion", async () => {
    sentinels = await startSentinels();
    writeConfig(bed.workerDir, [[BASH_PLUGIN, { sandbox: "off", executionMode: "parallel" }], "../probe-plugin.mjs", sentinelEntry()]);
    const first = await bed.worker(["--concurrency", "6", "--lock-duration", "3000"]);
    const second = await bed.worker(["--concurrency", "6", "--lock-duration", "3000"]);
    const { harness } = await bed.hostWith([sentinelEntry()]);
    // Before: calls run through the master the sentinels name.
    const [before] = await harness.executeToolCalls([{ id: "before", name: "bash", arguments: { command: "echo before" } }]);
    expect(textOf(before!)).toBe("before");
    const started = join(bed.workerDir, "started.log");
    const echoes = join(bed.workerDir, "echoes.log");
    writeFileSync(join(bed.workerDir, "hold"), "");
    const bash = Array.from({ length: 6 }, (_, i) => ({ id: `bash-${i}`, name: "bash", arguments: { command: `echo bash-${i} >> ${started}; sleep 3; echo done` } }));
    const reads = Array.from({ length: 6 }, (_, i) => ({ id: `read-${i}`, name: "held_echo", arguments: { text: `read-${i}` } }));
    const pending = harness.executeToolCalls([...bash, ...reads]);
    await waitUntil(() => lines(started).length === 6 && lines(echoes).length === 6);
    const old = sentinels.master.port;
    await stopProcess(sentinels.master.process, "SIGKILL");
    // The read-only calls are sent again once a replica is the master, and run again there.
    await waitUntil(() => reads.every((call) => lines(echoes).filter((line) => line.startsWith(`${call.id} `)).length === 2));
    rmSync(join(bed.workerDir, "hold"));
    const results = await pending;
    // Every call is answered: a call that may not run twice may or may not have run; the read-only ones ran again.
    for (const [i, result] of results.entries()) {
      if (i < bash.length) {
        expect(codeOf(result), bash[i]!.id).toBe("TOOLHOST_QUEUE_CONNECTION_LOST");
        expect(textOf(result)).toContain("may or may not have run");
      } else {
        expect(textOf(result)).toBe(`echo: ${reads[i - bash.length]!.id}`);
      }
    }
    // The replica is the master now (each sentinel learns it from the others, some later than the rest).
    let named = await sentinels.currentMaster();
    while (named === old) named = await new Promise<number>((resolve) => setTimeout(() => resolve(sentinels!.currentMaster()), 100));
    expect(named).toBe(sentinels.replica.port);
    // After the promotion both workers take calls again, from the new master (8 calls: more than one worker holds).
    const after = await harness.executeToolCalls(
      Array.from({ length: 8 }, (_, i) => ({ id: `after-${i}`, name: "bash", arguments: { command: "sleep 1; echo $PPID" } })),
    );
    expect(after.filter((result) => result.isError).map((result) => `${String(codeOf(result))}: ${textOf(result)}`)).toEqual([]);
    expect(new Set(after.map((result) => Number(textOf(result))))).toEqual(new Set([first.pid, second.pid]));
    for (const worker of [first, second]) expect(worker.lines.at(-1)).toMatchObject({ redis: "ready" });
  });
});

describe("a replica that stops confirming", () => {
  it("answers every at-most-once call as not run, sharing the wait for the replica, while a second worker never takes them over", async () => {
    sentinels = await startSentinels();
    writeConfig(bed.workerDir, [[BASH_PLUGIN, { sandbox: "off", executionMode: "parallel" }], "../probe-plugin.mjs", sentinelEntry()]);
    // Two workers with a short hold: a worker whose connection is held up by waits for a replica
    // longer than its hold would see its calls taken over by the other (WORKER_LOST).
    await bed.worker(["--concurrency", "8", "--lock-duration", "3000"]);
    await bed.worker(["--concurrency", "8", "--lock-duration", "3000"]);
    const { harness } = await bed.hostWith([sentinelEntry()]);
    const [before] = await harness.executeToolCalls([{ id: "confirmed", name: "bash", arguments: { command: "echo confirmed" } }]);
    expect(textOf(before!)).toBe("confirmed");
    // The replica stops (its master still counts it online for a while), so no start can be confirmed.
    process.kill(sentinels.replica.process.pid as number, "SIGSTOP");
    try {
      const effect = join(bed.dir, "effect.log");
      const calls = Array.from({ length: 12 }, (_, i) => ({ id: `unconfirmed-${i}`, name: "bash", arguments: { command: `echo ${i} >> ${effect}` } }));
      const results = await harness.executeToolCalls(calls);
      expect(results.map((result) => codeOf(result))).toEqual(calls.map(() => "TOOLHOST_QUEUE_START_UNCONFIRMED"));
      expect(lines(effect)).toEqual([]);
    } finally {
      process.kill(sentinels.replica.process.pid as number, "SIGCONT");
    }
  });
});
