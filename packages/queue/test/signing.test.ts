import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { Redis } from "ioredis";
import { describe, expect, it } from "vitest";
import { BASH_PLUGIN, codeOf, newKey, queueEntry, startWorker, textOf, useTestbed, writeConfig } from "./_helpers.js";
import { callOf, forgeJob, forgedJob, watchJobs } from "./_forge.js";

const bed = useTestbed((bed) => [[BASH_PLUGIN, { sandbox: "off" }], queueEntry(bed.redis)]);

describe("signed jobs", () => {
  it("runs a job its host signed, and says which key checks it", async () => {
    const running = await bed.worker();
    expect(running.lines[0]).toMatchObject({ event: "ready", auth: "hmac-sha256" });
    expect((running.lines[0]?.keys as string[]).length).toBe(1);
    const { harness } = await bed.host();
    const [result] = await harness.executeToolCalls([{ id: "signed-1", name: "bash", arguments: { command: "echo signed" } }]);
    expect(textOf(result!)).toBe("signed");
  });

  it("never runs a forged job (no signature, a wrong one, an old one, one moved or changed), and answers why", async () => {
    await bed.worker();
    const effect = join(bed.dir, "forged.log");
    const call = (id: string) => ({ id, name: "bash", args: { command: `echo ${id} >> ${effect}` } });
    const unsigned = await forgeJob(bed, forgedJob(call("no-sig"), { key: undefined }));
    expect(codeOf(unsigned)).toBe("TOOLHOST_QUEUE_JOB_UNSIGNED");
    expect(textOf(unsigned)).toContain("Not run: the worker refused the job because it carries no signature: the host that sent it (forger:1:abcdef) holds no queue key, while this worker holds one");
    const wrong = await forgeJob(bed, forgedJob(call("wrong-sig"), { key: newKey() }));
    expect(codeOf(wrong)).toBe("TOOLHOST_QUEUE_JOB_SIGNATURE_INVALID");
    expect(textOf(wrong)).toContain("which this worker does not hold");
    const old = await forgeJob(bed, forgedJob(call("old"), { key: bed.key, at: Date.now() - 3_600_000 }));
    expect(codeOf(old)).toBe("TOOLHOST_QUEUE_JOB_EXPIRED");
    expect(textOf(old)).toMatch(/signed 3600 s ago, longer than signing.maxAgeSeconds \(600 s\)/);
    const moved = await forgeJob(bed, forgedJob(call("moved"), { key: bed.key, queue: "other" }));
    expect(codeOf(moved)).toBe("TOOLHOST_QUEUE_JOB_REPLAYED");
    expect(textOf(moved)).toContain(`it was signed for queue "other", not queue "calls" where it lies`);
    const changed = await forgeJob(bed, forgedJob(call("changed"), { key: bed.key, change: (job) => ({ ...job, args: { command: `echo tampered >> ${effect}` } }) }));
    expect(codeOf(changed)).toBe("TOOLHOST_QUEUE_JOB_SIGNATURE_INVALID");
    expect(textOf(changed)).toContain("it has a signature that does not match its content");
    expect(existsSync(effect)).toBe(false);
    // The same forger with the key is a host: its job runs.
    const signed = await forgeJob(bed, forgedJob(call("with-key"), { key: bed.key }));
    expect(signed.isError).toBe(false);
    expect(readFileSync(effect, "utf8")).toBe("with-key\n");
  });

  it("refuses a copy of a signed job put back into Redis: the call ran once", async () => {
    const running = await bed.worker();
    const made = await bed.host();
    const effect = join(bed.dir, "once.log");
    const watch = await watchJobs(bed);
    const [first] = await made.harness.executeToolCalls([{ id: "copied", name: "bash", arguments: { command: `echo ran >> ${effect}` } }]);
    watch.stop();
    expect(first!.isError).toBe(false);
    const copy = watch.jobs.find((job) => callOf(job).call.id === "copied");
    expect(copy).toBeDefined();
    // The host is gone; whoever copies its job reads the answer where the job says the host reads.
    await made.harness.dispose();
    const replayed = await forgeJob(bed, copy!);
    expect(codeOf(replayed)).toBe("TOOLHOST_QUEUE_JOB_REPLAYED");
    expect(textOf(replayed)).toContain("a copy of a job is not run again");
    expect(readFileSync(effect, "utf8")).toBe("ran\n");
    // A second worker, which did not take the first, refuses the copy too: the call was answered.
    process.kill(running.pid, "SIGTERM");
    await running.exited;
    await bed.worker();
    const again = await forgeJob(bed, copy!);
    expect(codeOf(again)).toBe("TOOLHOST_QUEUE_JOB_REPLAYED");
    expect(textOf(again)).toContain("this call was answered already");
    expect(readFileSync(effect, "utf8")).toBe("ran\n");
  });

  it("withdraws a call no worker took within signing.maxAgeSeconds (a worker would refuse it as expired), with a result that says so", async () => {
    writeConfig(bed.workerDir, [[BASH_PLUGIN, { sandbox: "off" }], queueEntry(bed.redis, { signing: { maxAgeSeconds: 10 } })]);
    // A worker published its tools and stopped: the host sends the call, and no one takes it for a while.
    const first = await bed.worker();
    process.kill(first.pid, "SIGTERM");
    expect(await first.exited).toBe(0);
    const { harness } = await bed.host({ signing: { maxAgeSeconds: 10 } });
    const effect = join(bed.dir, "late.log");
    const [result] = await harness.executeToolCalls([{ id: "waited", name: "bash", arguments: { command: `echo ran >> ${effect}` } }]);
    expect(codeOf(result!)).toBe("TOOLHOST_QUEUE_NOT_TAKEN");
    expect(textOf(result!)).toContain('Not run: no worker of queue "calls" took "bash" within 10 s (signing.maxAgeSeconds: a worker would refuse the job as expired after it)');
    expect(textOf(result!)).toContain("It was withdrawn from the queue.");
    // Nothing is left for a worker that starts now: no job, no record of the call.
    const redis = new Redis({ port: bed.redis.port, host: "127.0.0.1" });
    expect(await redis.xlen("{toolhost:calls}:jobs")).toBe(0);
    expect(await redis.exists("{toolhost:calls}:call:waited")).toBe(0);
    redis.disconnect();
    expect(existsSync(effect)).toBe(false);
  });
});

describe("keys", () => {
  it("refuses to start a worker without a key, and names the two ways on", async () => {
    const refused = await startWorker(bed.workerDir, [], { TOOLHOST_QUEUE_KEY: undefined }).then(
      () => undefined,
      (error: Error) => error.message,
    );
    expect(refused).toContain("exited with 2");
    expect(refused).toContain("No key to check jobs with: the variable TOOLHOST_QUEUE_KEY holds none");
    expect(refused).toContain("--no-auth");
    expect(refused).toContain("TOOLHOST_QUEUE_NO_KEY");
  });

  it("runs unchecked jobs with --no-auth, and says so in every health line", async () => {
    const running = await bed.worker(["--no-auth"], { TOOLHOST_QUEUE_KEY: undefined });
    delete process.env.TOOLHOST_QUEUE_KEY;
    const { harness } = await bed.host();
    const [result] = await harness.executeToolCalls([{ id: "unchecked", name: "bash", arguments: { command: "echo unchecked" } }]);
    expect(textOf(result!)).toBe("unchecked");
    while (!running.lines.some((line) => line.event === "health")) await delay(50);
    for (const line of running.lines.filter((item) => item.event === "ready" || item.event === "health")) {
      expect(line).toMatchObject({ auth: "none", warning: expect.stringContaining("runs any job anyone with access to its Redis writes") });
    }
  });

  it("takes the key from --key-file, and refuses a key file others can read", async () => {
    const { writeFileSync, chmodSync } = await import("node:fs");
    const file = join(bed.dir, "queue.key");
    writeFileSync(file, `# the hosts' key\n${bed.key}\n`, { mode: 0o600 });
    const running = await bed.worker(["--key-file", file], { TOOLHOST_QUEUE_KEY: undefined });
    const { harness } = await bed.host();
    const [result] = await harness.executeToolCalls([{ id: "from-file", name: "bash", arguments: { command: "echo from file" } }]);
    expect(textOf(result!)).toBe("from file");
    expect(running.lines[0]).toMatchObject({ auth: "hmac-sha256" });
    chmodSync(file, 0o644);
    const refused = await startWorker(bed.workerDir, ["--key-file", file], { TOOLHOST_QUEUE_KEY: undefined }).catch((error: Error) => error.message);
    expect(refused).toContain(`The queue's key file ${file} can be read or written by other users (mode 644): run chmod 600`);
  });

  it("rotates keys: a worker that holds the new and the old key runs jobs signed with either, and answers each host with its key", async () => {
    const old = bed.key;
    const fresh = newKey();
    await bed.worker([], { TOOLHOST_QUEUE_KEY: `${fresh},${old}` });
    const { harness: oldHost } = await bed.host();
    process.env.TOOLHOST_QUEUE_KEY = `${fresh},${old}`;
    const { harness: newHost } = await bed.host();
    const [fromOld] = await oldHost.executeToolCalls([{ id: "rot-old", name: "bash", arguments: { command: "echo old key" } }]);
    const [fromNew] = await newHost.executeToolCalls([{ id: "rot-new", name: "bash", arguments: { command: "echo new key" } }]);
    expect(textOf(fromOld!)).toBe("old key");
    expect(textOf(fromNew!)).toBe("new key");
  });

  it("tells the caller when the host's and the worker's keys differ", async () => {
    await bed.worker([], { TOOLHOST_QUEUE_KEY: newKey() });
    const { harness } = await bed.host();
    const [result] = await harness.executeToolCalls([{ id: "mismatch", name: "bash", arguments: { command: "echo never" } }]);
    expect(result!.isError).toBe(true);
    expect(codeOf(result!)).toBe("TOOLHOST_QUEUE_REPLY_REFUSED");
    expect(textOf(result!)).toMatch(/the answer is signed with key [0-9a-f]{12} by the worker that wrote it \([^)]+\), which this host does not hold/);
  });
});
