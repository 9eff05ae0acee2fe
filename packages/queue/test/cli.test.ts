import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { BASH_PLUGIN, CLI_BIN, POLICY_PLUGIN, queueEntry, useTestbed, writeConfig } from "./_helpers.js";
import { callOf, watchJobs } from "./_forge.js";

// Through the built CLI, as a user runs it: a host's config in the producer folder, `toolhost
// worker` processes (their environment has WHERE=worker, so a command shows where it ran).

const bed = useTestbed((bed) => [[BASH_PLUGIN, { sandbox: "off" }], queueEntry(bed.redis)]);

function toolhost(args: string[], input?: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI_BIN, ...args], { cwd: bed.producerDir, stdio: ["pipe", "pipe", "pipe"], env: { ...process.env, NO_COLOR: "1" } });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.on("close", (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input ?? "");
  });
}

const atWorker = { WHERE: "worker" };

describe("toolhost call and run through a queue", () => {
  it("gives every call its own id: two calls in a row are two calls, and the same call twice runs twice", async () => {
    await bed.worker([], atWorker);
    writeConfig(bed.producerDir, [[BASH_PLUGIN, { sandbox: "off" }], queueEntry(bed.redis, { tools: ["bash"] })]);
    const effect = join(bed.dir, "effect.log");
    const one = await toolhost(["call", "bash", JSON.stringify({ command: `echo one $WHERE | tee -a ${effect}` })]);
    const two = await toolhost(["call", "bash", JSON.stringify({ command: `echo two $WHERE | tee -a ${effect}` })]);
    const again = await toolhost(["call", "bash", JSON.stringify({ command: `echo two $WHERE | tee -a ${effect}` })]);
    expect([one.code, two.code, again.code]).toEqual([0, 0, 0]);
    expect([one.stdout, two.stdout, again.stdout]).toEqual(["one worker\n", "two worker\n", "two worker\n"]);
    expect(readFileSync(effect, "utf8")).toBe("one worker\ntwo worker\ntwo worker\n");
    const lines = (n: string) => `${JSON.stringify({ name: "bash", arguments: { command: `echo ${n} $WHERE` } })}\n`;
    const first = await toolhost(["run", "-"], lines("a") + lines("b"));
    const second = await toolhost(["run", "-"], lines("c") + lines("d"));
    const results = [...first.stdout.trim().split("\n"), ...second.stdout.trim().split("\n")].map(
      (line) => JSON.parse(line) as { toolCallId: string; isError: boolean; content: Array<{ text: string }> },
    );
    expect(results.map((result) => result.content[0]?.text)).toEqual(["a worker", "b worker", "c worker", "d worker"]);
    expect(new Set(results.map((result) => result.toolCallId)).size).toBe(4);
  });
});

describe("a host's policy judges a routed call by its tool's own declaration", () => {
  const policy = (rules: unknown[]) => [POLICY_PLUGIN, { default: "allow", rules }];

  it("refuses at load a config that sends bash to the queue without tool-bash on a host with a policy, with the fix", async () => {
    await bed.worker([], atWorker);
    writeConfig(bed.producerDir, [policy([{ command: "rm *", decision: "deny" }]), queueEntry(bed.redis, { tools: ["bash"] })]);
    const result = await toolhost(["call", "bash", JSON.stringify({ command: "echo never" })]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`@toolhost/queue sends "bash" to queue "calls", but this host has no such tool of its own to declare what its calls touch`);
    expect(result.stderr).toContain("npm i -D @toolhost/tool-bash");
    expect(result.stdout).toBe("");
  });

  it("refuses each call of a worker's bash the host lacks, before anyone is asked, and runs nothing", async () => {
    await bed.worker([], atWorker);
    writeConfig(bed.producerDir, [policy([{ command: "rm *", decision: "deny" }]), queueEntry(bed.redis)]);
    const victim = join(bed.dir, "victim");
    mkdirSync(victim);
    const result = await toolhost(["call", "bash", JSON.stringify({ command: `rm -rf ${victim}` })]);
    // A refusal from the tool's declaration, before anyone is asked: exit 2, the reason on stderr.
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain(`Not run: @toolhost/queue sends "bash" to queue "calls", but this host has no such tool`);
    expect(result.stderr).toContain("npm i -D @toolhost/tool-bash");
    expect(existsSync(victim)).toBe(true);
    // Without a policy nothing here judges calls: the worker's bash runs as before.
    writeConfig(bed.producerDir, [queueEntry(bed.redis)]);
    const unjudged = await toolhost(["call", "bash", JSON.stringify({ command: "echo ran $WHERE" })]);
    expect(unjudged.stdout).toBe("ran worker\n");
  });

  it("with tool-bash on the host: the policy denies by the command, and allowed calls run on a worker, decided and signed here", async () => {
    await bed.worker([], atWorker);
    const rules = [
      { command: "rm *", decision: "deny", reason: "no removing" },
      { command: "echo asked *", decision: "ask", reason: "echo asks here" },
    ];
    // The host's bash is sandboxed: its confinement is this host's, not the worker's, so the host judges unconfined.
    writeConfig(bed.producerDir, [[BASH_PLUGIN, { sandbox: "required" }], policy(rules), queueEntry(bed.redis, { tools: ["bash"] })]);
    const victim = join(bed.dir, "victim");
    mkdirSync(victim);
    const denied = await toolhost(["call", "bash", JSON.stringify({ command: `cd / && rm -rf ${victim}` })]);
    expect(denied.code).toBe(2);
    expect(denied.stderr).toContain("no removing");
    expect(existsSync(victim)).toBe(true);
    const watch = await watchJobs(bed);
    const ran = await toolhost(["call", "bash", JSON.stringify({ command: "echo asked $WHERE" }), "--approve", "bash:echo asked *"]);
    watch.stop();
    expect(ran.code).toBe(0);
    expect(ran.stdout).toBe("asked worker\n");
    expect(watch.jobs).toHaveLength(1);
    const job = callOf(watch.jobs[0]!);
    expect(job.decision).toMatchObject({
      verdict: "approved",
      by: "@toolhost/hooks-policy",
      judges: expect.arrayContaining(["@toolhost/hooks-policy"]),
      approval: { answeredBy: expect.stringContaining("--approve") },
      rules: [expect.any(String)],
      layers: [{ layer: expect.any(String) }],
    });
    expect(job.decision.access?.commands?.[0]?.command).toBe("echo asked $WHERE");
    expect(job.decision.access?.confinement).toBeUndefined();
  });
});
