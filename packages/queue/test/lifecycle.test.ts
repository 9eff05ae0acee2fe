import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createHost } from "@toolhost/core/config";
import { beforeEach, describe, expect, it } from "vitest";
import {
  BASH_PLUGIN,
  CLI_BIN,
  codeOf,
  freePort,
  queueEntry,
  startRedis,
  textOf,
  isRunning,
  waitForFile,
  writeConfig,
  writeProbePlugin,
  useTestbed,
} from "./_helpers.js";

const bed = useTestbed((bed) => [[BASH_PLUGIN, { sandbox: "off", executionMode: "parallel" }], queueEntry(bed.redis)]);

function run(args: string[], cwd: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI_BIN, ...args], { cwd, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

describe("loading", () => {
  it("refuses to load with a clear error when Redis is unreachable", async () => {
    const port = await freePort();
    writeConfig(bed.producerDir, [queueEntry({ ...bed.redis, url: `redis://127.0.0.1:${port}` }, { connectTimeoutMs: 1000 })]);
    const error = await createHost({ cwd: bed.producerDir }).then(
      () => undefined,
      (thrown: unknown) => thrown as Error & { code: string },
    );
    expect(error?.code).toBe("TOOLHOST_QUEUE_UNREACHABLE");
    expect(error?.message).toContain(`Could not reach Redis at redis://127.0.0.1:${port}/0`);
    // The worker command says the same, and exits 2 before anything runs.
    const result = await run(["worker", "--queue", "calls"], bed.producerDir);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("Could not reach Redis");
    expect(result.stderr).toContain("TOOLHOST_QUEUE_UNREACHABLE");
  });

  it("says which password variable is not set", async () => {
    writeConfig(bed.producerDir, [queueEntry(bed.redis, { redis: { url: bed.redis.url, passwordEnv: "TEST_QUEUE_PASSWORD_UNSET" } })]);
    const error = await createHost({ cwd: bed.producerDir }).catch((thrown: unknown) => thrown as Error & { code: string });
    expect((error as { code: string }).code).toBe("TOOLHOST_QUEUE_UNREACHABLE");
    expect((error as Error).message).toContain("TEST_QUEUE_PASSWORD_UNSET");
  });

  it("signs in with a password from the environment, and names neither password in the error", async () => {
    const guarded = await startRedis(["--requirepass", "right-secret"]);
    try {
      writeConfig(bed.producerDir, [queueEntry(guarded, { redis: { url: guarded.url, passwordEnv: "TEST_QUEUE_PASSWORD" } })]);
      process.env.TEST_QUEUE_PASSWORD = "right-secret";
      const made = await createHost({ cwd: bed.producerDir });
      await made.harness.dispose();
      process.env.TEST_QUEUE_PASSWORD = "wrong-secret";
      const error = await createHost({ cwd: bed.producerDir }).catch((thrown: unknown) => thrown as Error & { code: string });
      expect((error as { code: string }).code).toBe("TOOLHOST_QUEUE_UNREACHABLE");
      expect((error as Error).message).toContain(`redis://127.0.0.1:${guarded.port}/0`);
      expect((error as Error).message).not.toContain("secret");
    } finally {
      delete process.env.TEST_QUEUE_PASSWORD;
      await guarded.stop();
    }
  });

  it("tells `toolhost worker` users to add the queue plugin when the config has none", async () => {
    writeConfig(bed.workerDir, [[BASH_PLUGIN, { sandbox: "off" }]]);
    const result = await run(["worker", "--queue", "calls"], bed.workerDir);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("No queue is configured");
    expect(result.stderr).toContain("TOOLHOST_NO_QUEUE");
  });
});

describe("a worker's life", () => {
  it("reports health and, on SIGTERM, finishes the running call before it exits", async () => {
    const running = await bed.worker(["--concurrency", "2"]);
    expect(running.lines[0]).toMatchObject({ event: "ready", queue: "calls", concurrency: 2, tools: ["bash"], redis: "ready" });
    const { harness } = await bed.host();
    const started = join(bed.dir, "started");
    const pending = harness.executeToolCalls([
      { id: "graceful", name: "bash", arguments: { command: `echo started > ${started}; sleep 2; echo finished` } },
    ]);
    await waitForFile(started);
    process.kill(running.pid, "SIGTERM");
    const [result] = await pending;
    expect(textOf(result!)).toBe("finished");
    expect(await running.exited).toBe(0);
    const events = running.lines.map((line) => line.event);
    expect(events.slice(-2)).toEqual(["stopping", "stopped"]);
    expect(running.lines.at(-1)).toMatchObject({ running: 0, completed: 1 });
  });
});

describe("a worker stopped while its calls run", () => {
  beforeEach(() => {
    writeProbePlugin(bed.dir);
    writeConfig(bed.workerDir, [[BASH_PLUGIN, { sandbox: "off", executionMode: "parallel" }], "../probe-plugin.mjs", queueEntry(bed.redis)]);
  });

  it("ends a bash call when the shutdown grace runs out, with a result that says so", async () => {
    const running = await bed.worker(["--shutdown-grace", "1"]);
    const { harness } = await bed.host();
    const shellPid = join(bed.dir, "shell.pid");
    const pending = harness.executeToolCalls([
      { id: "grace-bash", name: "bash", arguments: { command: `echo $$ > ${shellPid}; sleep 600` } },
    ]);
    const shell = Number(await waitForFile(shellPid));
    process.kill(running.pid, "SIGTERM");
    const [result] = await pending;
    expect(codeOf(result!)).toBe("TOOLHOST_QUEUE_WORKER_SHUT_DOWN");
    expect(await running.exited).toBe(0);
    expect(isRunning(shell)).toBe(false);
  });

  it("hands a read-only call back to the queue when the grace runs out, and another worker runs it", async () => {
    const first = await bed.worker(["--shutdown-grace", "1"]);
    const { harness } = await bed.host();
    writeFileSync(join(bed.dir, "data.txt"), "the data");
    const pending = harness.executeToolCalls([{ id: "grace-read", name: "slow_read", arguments: { path: join(bed.dir, "data.txt") } }]);
    await waitForFile(join(bed.workerDir, "attempts.log"));
    process.kill(first.pid, "SIGTERM");
    expect(await first.exited).toBe(0);
    const second = await bed.worker();
    const [result] = await pending;
    expect(textOf(result!)).toBe(`read by ${second.pid}: the data`);
  });
});

describe("call ids and sizes", () => {
  it("gives a call sent again with its id the first result, and refuses another call under that id", async () => {
    await bed.worker();
    const { harness } = await bed.host();
    const effect = join(bed.dir, "effect.log");
    const call = { id: "same-id", name: "bash", arguments: { command: `echo ran >> ${effect}; echo done` } };
    const [first] = await harness.executeToolCalls([call]);
    const [again] = await harness.executeToolCalls([call]);
    expect(textOf(first!)).toBe("done");
    expect(textOf(again!)).toBe("done");
    expect(readFileSync(effect, "utf8")).toBe("ran\n");
    const [other] = await harness.executeToolCalls([{ ...call, arguments: { command: "echo other" } }]);
    expect(codeOf(other!)).toBe("TOOLHOST_QUEUE_CALL_ID_REUSED");
  });

  it("gives a second host that sends a running call again (a restart, say) that call's result, without a second run", async () => {
    await bed.worker();
    const first = await bed.host();
    const second = await bed.host();
    const effect = join(bed.dir, "effect.log");
    const started = join(bed.dir, "started");
    const call = { id: "in-flight", name: "bash", arguments: { command: `echo ran >> ${effect}; echo > ${started}; sleep 2; echo done` } };
    const pending = first.harness.executeToolCalls([call]);
    await waitForFile(started);
    const [again] = await second.harness.executeToolCalls([call]);
    const [original] = await pending;
    expect(textOf(original!)).toBe("done");
    expect(textOf(again!)).toBe("done");
    expect(readFileSync(effect, "utf8")).toBe("ran\n");
  });

  it("bounds a large result in Redis, keeping its head and its tail", async () => {
    writeConfig(bed.workerDir, [[BASH_PLUGIN, { sandbox: "off", maxOutputBytes: 1024 * 1024 }], queueEntry(bed.redis)]);
    await bed.worker();
    const { harness } = await bed.host({ maxResultBytes: 8192 });
    const [result] = await harness.executeToolCalls([
      { id: "big", name: "bash", arguments: { command: "echo START; seq 1 60000; echo END" } },
    ]);
    const text = textOf(result!);
    expect(Buffer.byteLength(JSON.stringify(result!.content))).toBeLessThan(8192);
    expect(text.startsWith("START\n1\n2\n")).toBe(true);
    expect(text.endsWith("59999\n60000\nEND")).toBe(true);
    expect(text).toContain("characters left out (results in the queue are bounded");
  });
});
