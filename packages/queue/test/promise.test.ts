import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Redis } from "ioredis";
import { afterEach, describe, expect, it } from "vitest";
import { forgedJob, watchJobs } from "./_forge.js";
import { BASH_PLUGIN, CLI_BIN, codeOf, queueEntry, textOf, useTestbed, waitUntil, writeConfig } from "./_helpers.js";

// Every call gets exactly one answer: the same id twice at once on one host, a signed answer of an
// old call put back into the host's reply stream, and what Redis holds once calls are answered.

const bed = useTestbed((bed) => [[BASH_PLUGIN, { sandbox: "off", executionMode: "parallel" }], queueEntry(bed.redis)]);

const TAG = "{toolhost:calls}";

/** The warnings this process emits while a test runs (the hosts run in it). */
const warnings: Array<{ code: string | undefined; message: string }> = [];
const onWarning = (warning: Error & { code?: string }) => warnings.push({ code: warning.code, message: warning.message });
process.on("warning", onWarning);
afterEach(() => {
  warnings.splice(0);
});

function redis(): Redis {
  return new Redis({ port: bed.redis.port, host: "127.0.0.1", maxRetriesPerRequest: 1 });
}

function lines(file: string): string[] {
  return existsSync(file) ? readFileSync(file, "utf8").trim().split("\n") : [];
}

describe("one id, one host, at once", () => {
  it("answers every call of a batch that repeats one id: the same call shares one run, another call under the id is refused at once", async () => {
    await bed.worker(["--concurrency", "8"]);
    const { harness } = await bed.host();
    const effect = join(bed.dir, "effect.log");
    const call = { id: "twice", name: "bash", arguments: { command: `echo ran >> ${effect}; sleep 1; echo done` } };
    const other = { id: "twice", name: "bash", arguments: { command: `echo other >> ${effect}` } };
    const results = await harness.executeToolCalls([call, call, other, call]);
    expect(results.map((result) => textOf(result))).toEqual(["done", "done", expect.stringContaining('call id "twice" is already running on this host'), "done"]);
    expect(codeOf(results[2]!)).toBe("TOOLHOST_QUEUE_CALL_ID_REUSED");
    expect(lines(effect)).toEqual(["ran"]);
  });

  it("answers both of two batches made at once with one id, and runs the call once", async () => {
    await bed.worker();
    const { harness } = await bed.host();
    const effect = join(bed.dir, "effect.log");
    const call = { id: "raced", name: "bash", arguments: { command: `echo ran >> ${effect}; echo done` } };
    const [first, second] = await Promise.all([harness.executeToolCalls([call]), harness.executeToolCalls([call])]);
    expect([textOf(first![0]!), textOf(second![0]!)]).toEqual(["done", "done"]);
    expect(lines(effect)).toEqual(["ran"]);
  });

  it("keeps the call for the caller who stays when the other aborts, and cancels it when none is left", async () => {
    await bed.worker();
    const { harness } = await bed.host();
    const started = join(bed.dir, "started");
    const call = { id: "shared", name: "bash", arguments: { command: `echo > ${started}; sleep 2; echo done` } };
    const leaving = new AbortController();
    const left = harness.executeToolCalls([call], { signal: leaving.signal });
    const staying = harness.executeToolCalls([call]);
    await waitUntil(() => existsSync(started));
    leaving.abort();
    expect(codeOf((await left)[0]!)).toBe("TOOLHOST_ABORTED");
    expect(textOf((await staying)[0]!)).toBe("done");
  });

  it("keeps a long id's call and a short id spelled like its hashed key apart", async () => {
    await bed.worker();
    const { harness } = await bed.host();
    const long = "l".repeat(300);
    const spelled = `sha256-${createHash("sha256").update(long).digest("hex")}`;
    const results = await harness.executeToolCalls([
      { id: long, name: "bash", arguments: { command: "echo long" } },
      { id: spelled, name: "bash", arguments: { command: "echo short" } },
    ]);
    expect(results.map((result) => textOf(result))).toEqual(["long", "short"]);
  });
});

describe("an answer is bound to its job", () => {
  it("refuses an old signed answer put back for a reused id, says so, and gives the call its own run", async () => {
    const first = await bed.worker();
    const { harness } = await bed.host();
    const effect = join(bed.dir, "effect.log");
    const call = { id: "reused", name: "bash", arguments: { command: `echo ran >> ${effect}; wc -l < ${effect}` } };
    const db = redis();
    const [before] = await harness.executeToolCalls([call]);
    expect(textOf(before!)).toBe("1");
    // The host's reply stream still holds the signed answer (it is trimmed about once a second).
    const host = (await db.keys(`${TAG}:reply:*`))[0]!;
    const old = (await db.xrange(host, "-", "+")).map(([, fields]) => fields).find((fields) => fields.includes("r") && fields[fields.indexOf("r") + 1]!.includes('"result"'));
    expect(old).toBeDefined();
    // Someone who can write to Redis but has no key: the call's record and start count are removed,
    // no worker runs for now, the call is made again with its id, and the old answer is put back.
    process.kill(first.pid, "SIGTERM");
    await first.exited;
    await db.del(`${TAG}:call:reused`, `${TAG}:run:reused`);
    const again = harness.executeToolCalls([call]);
    while ((await db.xlen(`${TAG}:jobs`)) === 0) await new Promise((resolve) => setTimeout(resolve, 25));
    await db.xadd(host, "*", ...old!);
    await waitUntil(() => warnings.some((warning) => warning.code === "TOOLHOST_QUEUE_REPLY_REPLAYED"));
    expect(warnings.find((warning) => warning.code === "TOOLHOST_QUEUE_REPLY_REPLAYED")?.message).toContain(
      'refused an answer in Redis for call "reused" ("bash"): it answers job',
    );
    // The call goes on: a worker takes its own job, and its own answer is the result.
    await bed.worker();
    const [result] = await again;
    expect(textOf(result!)).toBe("2");
    expect(lines(effect)).toEqual(["ran", "ran"]);
    db.disconnect();
  });

  it("never takes a worker's refusal of a forged job that borrows a waiting call's nonce as that call's answer", async () => {
    await bed.worker(["--concurrency", "4"]);
    const { harness } = await bed.host();
    const started = join(bed.dir, "started");
    const watch = await watchJobs(bed);
    const pending = harness.executeToolCalls([{ id: "borrowed", name: "bash", arguments: { command: `echo > ${started}; sleep 2; echo done` } }]);
    await waitUntil(() => existsSync(started));
    watch.stop();
    const real = JSON.parse(watch.jobs[0]!.text) as { nonce: string; digest: string; reply: string };
    // Someone without the key writes an unsigned job under the same call id, nonce, digest and host:
    // the worker refuses it, and its refusal goes to the host's reply stream.
    const forged = forgedJob({ id: "borrowed", name: "bash", args: { command: "echo forged" } }, { key: undefined, change: (job) => ({ ...job, nonce: real.nonce, digest: real.digest, reply: real.reply }) });
    const db = redis();
    await db.xadd(`${TAG}:jobs`, "*", "j", forged.text, "s", forged.sig);
    await waitUntil(() => warnings.some((warning) => warning.code === "TOOLHOST_QUEUE_REPLY_REPLAYED"));
    expect(warnings.find((warning) => warning.code === "TOOLHOST_QUEUE_REPLY_REPLAYED")?.message).toContain("it refuses a job that borrows the nonce of this host's job but is not that job");
    const [result] = await pending;
    expect(textOf(result!)).toBe("done");
    db.disconnect();
  });

  it("leaves nothing pending: every answered job is acknowledged in the consumer group and gone from the stream", async () => {
    await bed.worker(["--concurrency", "8", "--lock-duration", "600000"]);
    const { harness } = await bed.host();
    const calls = Array.from({ length: 40 }, (_, i) => ({ id: `acked-${i}`, name: "bash", arguments: { command: `echo ${i}` } }));
    const results = await harness.executeToolCalls(calls);
    expect(results.map((result) => textOf(result))).toEqual(calls.map((_, i) => String(i)));
    const db = redis();
    const [count] = (await db.xpending(`${TAG}:jobs`, "workers")) as [number];
    expect(count).toBe(0);
    expect(await db.xlen(`${TAG}:jobs`)).toBe(0);
    db.disconnect();
  });
});

function toolhost(args: string[], env: Record<string, string | undefined> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI_BIN, ...args], { cwd: bed.producerDir, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, NO_COLOR: "1", ...env } });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

describe("a call no worker takes", () => {
  it("says so after noticeAfterSeconds, naming the queue and its workers, and is answered once a worker starts", async () => {
    // A worker published the tools and stopped.
    const first = await bed.worker();
    process.kill(first.pid, "SIGTERM");
    await first.exited;
    const { harness } = await bed.host({ noticeAfterSeconds: 1 });
    const pending = harness.executeToolCalls([{ id: "lonely", name: "bash", arguments: { command: "echo finally" } }]);
    await waitUntil(() => warnings.some((warning) => warning.code === "TOOLHOST_QUEUE_NOT_TAKEN"));
    const notice = warnings.find((warning) => warning.code === "TOOLHOST_QUEUE_NOT_TAKEN")!.message;
    expect(notice).toContain('a call ("bash") sent to queue "calls" 1 s ago or more is not taken by any worker yet: no worker has read queue "calls" in the last 15 s');
    expect(notice).toContain("toolhost worker --queue calls");
    await bed.worker();
    const [result] = await pending;
    expect(textOf(result!)).toBe("finally");
  });

  it("toolhost call --wait withdraws it when no worker took it in time: not run, exit 2", async () => {
    const first = await bed.worker();
    process.kill(first.pid, "SIGTERM");
    await first.exited;
    const effect = join(bed.dir, "effect.log");
    writeConfig(bed.producerDir, [[BASH_PLUGIN, { sandbox: "off" }], queueEntry(bed.redis, { tools: ["bash"] })]);
    const result = await toolhost(["call", "--wait", "2", "bash", JSON.stringify({ command: `echo ran >> ${effect}` })]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain('Not run: no worker of queue "calls" took "bash" within 2 s (toolhost call --wait 2)');
    // A worker that starts now runs nothing: the job is gone.
    const db = redis();
    expect(await db.xlen(`${TAG}:jobs`)).toBe(0);
    db.disconnect();
    expect(existsSync(effect)).toBe(false);
    const misused = await toolhost(["call", "--wait", "soon", "bash", "{}"]);
    expect(misused.code).toBe(2);
    expect(misused.stderr).toContain('--wait must be a whole number of seconds, at least 1; got "soon"');
  });
});

describe("keys and folders, said where they are", () => {
  it("a host without the key is warned, and its refused call says which side lacks the key and exits as a refusal", async () => {
    await bed.worker();
    writeConfig(bed.producerDir, [[BASH_PLUGIN, { sandbox: "off" }], queueEntry(bed.redis, { tools: ["bash"] })]);
    const effect = join(bed.dir, "effect.log");
    const result = await toolhost(["call", "bash", JSON.stringify({ command: `echo ran >> ${effect}` })], { TOOLHOST_QUEUE_KEY: undefined });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("this host holds no queue key (the variable TOOLHOST_QUEUE_KEY holds none), so the jobs it sends are unsigned");
    expect(result.stderr).toMatch(/it carries no signature: the host that sent it \([^)]+\) holds no queue key, while this worker holds one \(key [0-9a-f]{12} from the variable TOOLHOST_QUEUE_KEY\); give that host the key this worker holds/);
    expect(existsSync(effect)).toBe(false);
  });

  it("describes a routed bash by the worker's folder, not the host's", async () => {
    await bed.worker();
    const { harness } = await bed.hostWith([[BASH_PLUGIN, { sandbox: "off" }], queueEntry(bed.redis, { tools: ["bash"] })]);
    const description = harness.getTool("bash")!.description;
    expect(description).toContain('Runs on a worker of queue "calls" (another machine or process), not on this host');
    expect(description).toContain(`in ${bed.workerDir}`);
    expect(description).not.toContain(bed.producerDir);
  });
});
