import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { AgentEvent } from "@toolhost/core";
import { Redis } from "ioredis";
import { describe, expect, it } from "vitest";
import {
  BASH_PLUGIN,
  codeOf,
  isRunning,
  queueEntry,
  startRedis,
  stopProcess,
  textOf,
  waitForFile,
  waitUntil,
  writeProbePlugin,
  useTestbed,
} from "./_helpers.js";

const bed = useTestbed((bed) => {
  writeProbePlugin(bed.dir);
  // The worker's own config: bash (calls of a batch may run together) and the probe tools.
  // The producer has no tool of its own: it learns the workers' tools from Redis.
  return [[BASH_PLUGIN, { sandbox: "off", executionMode: "parallel" }], "../probe-plugin.mjs", queueEntry(bed.redis)];
});

describe("calls on a pool of workers", () => {
  it("spreads a batch over two workers and gives the results in call order", async () => {
    const first = await bed.worker(["--concurrency", "1"]);
    const second = await bed.worker(["--concurrency", "1"]);
    const { harness } = await bed.host();
    const calls = Array.from({ length: 6 }, (_, i) => ({
      id: `spread-${i}`,
      name: "bash",
      arguments: { command: `sleep 1; echo "${i} $PPID"` },
    }));
    const results = await harness.executeToolCalls(calls);
    expect(results.map((result) => result.isError)).toEqual(calls.map(() => false));
    const lines = results.map((result) => textOf(result).trim().split(" "));
    expect(lines.map(([index]) => index)).toEqual(["0", "1", "2", "3", "4", "5"]);
    expect(new Set(lines.map(([, pid]) => Number(pid)))).toEqual(new Set([first.pid, second.pid]));
  });

  it("streams a running call's output back as updates", async () => {
    await bed.worker();
    const { harness } = await bed.host();
    const updates: string[] = [];
    harness.subscribe((event: AgentEvent) => {
      if (event.type === "tool_execution_update") updates.push(textOf(event.partialResult));
    });
    const [result] = await harness.executeToolCalls([
      { id: "progress-1", name: "bash", arguments: { command: "echo one; sleep 1; echo two; sleep 1; echo three" } },
    ]);
    expect(textOf(result!)).toBe("one\ntwo\nthree");
    expect(updates.some((text) => text.startsWith("one") && !text.includes("three"))).toBe(true);
  });

  it("aborts a running bash call on the worker, leaving no process behind", async () => {
    const running = await bed.worker();
    const { harness } = await bed.host();
    const shellPid = join(bed.dir, "shell.pid");
    const childPid = join(bed.dir, "child.pid");
    const controller = new AbortController();
    const pending = harness.executeToolCalls(
      [{ id: "abort-1", name: "bash", arguments: { command: `echo $$ > ${shellPid}; sleep 600 & echo $! > ${childPid}; wait` } }],
      { signal: controller.signal },
    );
    const pids = [Number(await waitForFile(shellPid)), Number(await waitForFile(childPid))];
    bed.groups.push(pids[0]!);
    expect(pids.every(isRunning)).toBe(true);
    controller.abort();
    const [result] = await pending;
    expect(codeOf(result!)).toBe("TOOLHOST_ABORTED");
    await waitUntil(() => !pids.some(isRunning));
    // The worker goes on taking calls.
    const [after] = await harness.executeToolCalls([{ id: "abort-2", name: "bash", arguments: { command: "echo $PPID" } }]);
    expect(textOf(after!)).toBe(String(running.pid));
  });

  it("runs a read-only call again on another worker when its worker is killed, with one result", async () => {
    const first = await bed.worker(["--lock-duration", "2000"]);
    const { harness } = await bed.host();
    writeFileSync(join(bed.dir, "data.txt"), "the data");
    const pending = harness.executeToolCalls([{ id: "crash-read", name: "slow_read", arguments: { path: join(bed.dir, "data.txt") } }]);
    await waitForFile(join(bed.workerDir, "attempts.log"));
    await stopProcess(first.process, "SIGKILL");
    const second = await bed.worker(["--lock-duration", "2000"]);
    const results = await pending;
    expect(results).toHaveLength(1);
    expect(results[0]!.isError).toBe(false);
    expect(textOf(results[0]!)).toBe(`read by ${second.pid}: the data`);
    expect(readFileSync(join(bed.workerDir, "attempts.log"), "utf8")).toBe(`${first.pid}\n${second.pid}\n`);
  });

  it("runs a bash call at most once when its worker is killed, and says the outcome is unknown", async () => {
    const first = await bed.worker(["--lock-duration", "2000"]);
    const { harness } = await bed.host();
    const effect = join(bed.dir, "effect.log");
    const shellPid = join(bed.dir, "shell.pid");
    const pending = harness.executeToolCalls([
      { id: "crash-bash", name: "bash", arguments: { command: `echo $$ > ${shellPid}; echo ran >> ${effect}; sleep 600` } },
    ]);
    await waitForFile(effect);
    bed.groups.push(Number(await waitForFile(shellPid)));
    await stopProcess(first.process, "SIGKILL");
    await bed.worker(["--lock-duration", "2000"]);
    const [result] = await pending;
    expect(result!.isError).toBe(true);
    expect(codeOf(result!)).toBe("TOOLHOST_QUEUE_WORKER_LOST");
    expect(textOf(result!)).toContain("the worker running this call stopped; the command may or may not have run");
    expect(readFileSync(effect, "utf8")).toBe("ran\n");
  });

  it("ends the calls with a clear result when Redis stops mid-run, and refuses new ones at once", async () => {
    const running = await bed.worker(["--shutdown-grace", "0"]);
    const { harness } = await bed.host();
    const shellPid = join(bed.dir, "shell.pid");
    const pending = harness.executeToolCalls([
      { id: "redis-gone", name: "bash", arguments: { command: `echo $$ > ${shellPid}; sleep 600` } },
    ]);
    const shell = Number(await waitForFile(shellPid));
    bed.groups.push(shell);
    await bed.redis.stop();
    const [result] = await pending;
    expect(codeOf(result!)).toBe("TOOLHOST_QUEUE_CONNECTION_LOST");
    expect(textOf(result!)).toContain("may or may not have run");
    const [next] = await harness.executeToolCalls([{ id: "redis-gone-2", name: "bash", arguments: { command: "true" } }]);
    expect(codeOf(next!)).toBe("TOOLHOST_QUEUE_UNAVAILABLE");
    expect(textOf(next!)).toContain(`redis://127.0.0.1:${bed.redis.port}/0`);
    // The worker still stops on SIGTERM, ending the call it ran.
    await stopProcess(running.process);
    expect(await running.exited).toBe(0);
    expect(isRunning(shell)).toBe(false);
  });

  it("takes calls again once Redis is back", async () => {
    await bed.worker();
    const { harness } = await bed.host();
    await bed.redis.stop();
    const [refused] = await harness.executeToolCalls([{ id: "back-0", name: "bash", arguments: { command: "echo hi" } }]);
    expect(codeOf(refused!)).toBe("TOOLHOST_QUEUE_UNAVAILABLE");
    bed.redis = await startRedis([], bed.redis.port);
    // The host and the worker reconnect on their own; a call made before they have is refused, not lost.
    let attempt = 0;
    for (;;) {
      attempt += 1;
      const [result] = await harness.executeToolCalls([{ id: `back-${attempt}`, name: "bash", arguments: { command: "echo hi" } }]);
      if (codeOf(result!) !== "TOOLHOST_QUEUE_UNAVAILABLE") {
        expect(textOf(result!)).toBe("hi");
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  });

  it("sends a read-only call again when Redis restarts under it, and gives its result", async () => {
    await bed.worker();
    const { harness } = await bed.host();
    const echoes = join(bed.workerDir, "echoes.log");
    const attempts = () => (existsSync(echoes) ? readFileSync(echoes, "utf8").trim().split("\n").length : 0);
    writeFileSync(join(bed.workerDir, "hold"), "");
    const pending = harness.executeToolCalls([{ id: "restart-read", name: "held_echo", arguments: { text: "kept" } }]);
    await waitUntil(() => attempts() === 1);
    await bed.redis.stop();
    bed.redis = await startRedis([], bed.redis.port);
    // The restarted Redis lost the job; the host sends it again, and a worker runs it again.
    await waitUntil(() => attempts() === 2);
    rmSync(join(bed.workerDir, "hold"));
    const [result] = await pending;
    expect(textOf(result!)).toBe("echo: kept");
  });

  it("runs a tool the producer does not have, with the schema and hints its workers published", async () => {
    const running = await bed.worker();
    const { harness } = await bed.host();
    const echo = harness.getTool("remote_echo");
    expect(echo?.annotations).toEqual({ readOnly: true, idempotent: true });
    expect(harness.toolOwner("remote_echo")).toBe('plugin "@toolhost/queue"');
    const [result, invalid] = await harness.executeToolCalls([
      { id: "remote-1", name: "remote_echo", arguments: { text: "hi" } },
      { id: "remote-2", name: "remote_echo", arguments: { text: 5 } },
    ]);
    expect(textOf(result!)).toBe(`echo from ${running.pid}: hi`);
    // The worker checks the arguments against its own tool.
    expect(codeOf(invalid!)).toBe("TOOLHOST_INVALID_ARGUMENTS");
  });

  it("refuses on the worker a call its own policy asks about: a worker never asks", async () => {
    await bed.worker();
    const { harness } = await bed.host();
    const [result] = await harness.executeToolCalls([{ id: "gate-1", name: "remote_echo", arguments: { text: "ask me" } }]);
    expect(codeOf(result!)).toBe("TOOLHOST_NOT_APPROVED");
    expect(textOf(result!)).toContain("the probe asks about this text");
    expect(textOf(result!)).toContain("a worker never asks");
  });

  it("finds a tool a worker published after the producer loaded, when it is first called", async () => {
    const { harness } = await bed.host();
    expect(harness.getTool("remote_echo")).toBeUndefined();
    const running = await bed.worker();
    const [result] = await harness.executeToolCalls([{ id: "late-1", name: "remote_echo", arguments: { text: "late" } }]);
    expect(textOf(result!)).toBe(`echo from ${running.pid}: late`);
  });
});

/** Drops the host's connection that reads its answers (what a failover or a network cut does to it): the host sends its read-only calls again. */
async function cutReplyConnection(db: Redis): Promise<void> {
  const list = (await db.client("LIST")) as string;
  const ids = [...list.matchAll(/^id=(\d+) .*name=toolhost-replies:/gm)].map((match) => match[1]!);
  expect(ids).toHaveLength(1);
  await db.client("KILL", "ID", ids[0]!);
}

/** How many jobs the queue was given, and how many are in it now. */
async function jobCounts(db: Redis): Promise<{ added: number; left: number }> {
  const info = (await db.xinfo("STREAM", "{toolhost:calls}:jobs")) as Array<string | number>;
  return { added: Number(info[info.indexOf("entries-added") + 1]), left: Number(info[info.indexOf("length") + 1]) };
}

describe("a read-only call sent again while its first job still runs", () => {
  it("is answered by its earlier job when that job was handed out a second time (a failover's re-delivery): the job sent again does not run a third time", async () => {
    const first = await bed.worker(["--lock-duration", "1000"]);
    const second = await bed.worker(["--lock-duration", "1000"]);
    const { harness } = await bed.host();
    const gated = join(bed.workerDir, "gated.log");
    const attempts = () => (existsSync(gated) ? readFileSync(gated, "utf8").trim().split("\n") : []);
    writeFileSync(join(bed.workerDir, "gate"), "");
    const pending = harness.executeToolCalls([{ id: "resent", name: "gated_read", arguments: { text: "r" } }]);
    await waitUntil(() => attempts().length === 1);
    // Its worker stops renewing its hold (as while its Redis fails over): the other worker takes the job over.
    const holder = [first, second].find((worker) => attempts()[0] === `r ${worker.pid}`)!;
    const other = holder === first ? second : first;
    process.kill(holder.pid, "SIGSTOP");
    try {
      await waitUntil(() => attempts().length === 2);
      expect(attempts()[1]).toBe(`r ${other.pid}`);
      // The host's connection is cut: it sends the call again, and the other worker is given that job too.
      const db = new Redis({ port: bed.redis.port, host: "127.0.0.1" });
      await cutReplyConnection(db);
      for (let counts = await jobCounts(db); counts.added < 2 || counts.left > 1; counts = await jobCounts(db)) await new Promise((resolve) => setTimeout(resolve, 25));
      db.disconnect();
    } finally {
      process.kill(holder.pid, "SIGCONT");
    }
    rmSync(join(bed.workerDir, "gate"));
    const [result] = await pending;
    expect(textOf(result!)).toBe("read: r");
    expect(attempts()).toHaveLength(2);
  });

  it("is given the answer its record holds when the call was answered while the job sent again waited: it runs once", async () => {
    await bed.worker(["--concurrency", "1"]);
    const { harness } = await bed.host();
    const gated = join(bed.workerDir, "gated.log");
    const attempts = () => (existsSync(gated) ? readFileSync(gated, "utf8").trim().split("\n") : []);
    writeFileSync(join(bed.workerDir, "gate"), "");
    const pending = harness.executeToolCalls([{ id: "answered", name: "gated_read", arguments: { text: "a" } }]);
    await waitUntil(() => attempts().length === 1);
    // Sent again while the worker's one slot runs its first job: the second job waits in the queue.
    const db = new Redis({ port: bed.redis.port, host: "127.0.0.1" });
    await cutReplyConnection(db);
    for (let counts = await jobCounts(db); counts.added < 2; counts = await jobCounts(db)) await new Promise((resolve) => setTimeout(resolve, 25));
    rmSync(join(bed.workerDir, "gate"));
    const [result] = await pending;
    expect(textOf(result!)).toBe("read: a");
    // The worker then takes the job sent again, and answers it from the record, without a second run.
    for (let counts = await jobCounts(db); counts.left > 0; counts = await jobCounts(db)) await new Promise((resolve) => setTimeout(resolve, 25));
    db.disconnect();
    expect(attempts()).toEqual([expect.stringMatching(/^a \d+$/)]);
  });
});
