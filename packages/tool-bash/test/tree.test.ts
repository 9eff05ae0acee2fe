import { execFileSync, spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { AgentHarness, ErrorCode } from "@toolhost/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { commandOutputs } from "../src/_pipes.js";
import { ProcessTree } from "../src/_tree.js";
import bashPlugin, { BashErrorCode, createBashTool } from "../src/index.js";
import { isRunning, readPids, tempFolder, textOf, treeCommand } from "./_helpers.js";

// These test the unsandboxed tracker (`sandbox: "off"`): inside the sandbox, pids are those of its
// own namespace. The sandbox's PID namespace has its own tests in sandbox.test.ts.
let dir: string;
let remove: () => void;
const started: number[] = [];
beforeEach(() => {
  ({ dir, remove } = tempFolder());
});
afterEach(() => {
  // Whatever a failed test left running is ended here, so that it cannot disturb the next.
  for (const pid of started.splice(0)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {}
  }
  remove();
});

const KILL_GRACE_MS = 300;

async function pidsOf(pidFiles: string[], call?: Promise<unknown>): Promise<number[]> {
  const pids = await readPids(pidFiles, call);
  started.push(...pids);
  return pids;
}

function expectAllEnded(pids: number[]): void {
  expect(pids.filter(isRunning)).toEqual([]);
}

// Generous: these wait on real process trees, on a machine that may be busy.
describe("bash: the whole tree ends", { timeout: 60_000 }, () => {
  it("on abort: the group, a setsid child, an orphan, a child without environment, one that ignores SIGTERM", async () => {
    const tool = createBashTool({ sandbox: "off", cwd: dir, killGraceMs: KILL_GRACE_MS });
    const { command, pidFiles } = treeCommand(dir, "echo started; sleep 300");
    const controller = new AbortController();
    const call = tool.execute("t", { command }, controller.signal, () => {}, undefined);
    const pids = await pidsOf(pidFiles);
    expect(pids.every(isRunning)).toBe(true);
    controller.abort();
    const error = await call.then(
      () => undefined,
      (thrown: unknown) => thrown as Error & { code: string },
    );
    expect(error?.name).toBe("AbortError");
    expect(error?.code).toBe(ErrorCode.ABORTED);
    expect(error?.message).toMatch(/^Aborted after [\d.]+ s; the command and every process it started were ended\. Output so far:\nstarted$/);
    expectAllEnded(pids);
  });

  it("on abort: a process that left the session, emptied its environment and lost its parent is still ended", async () => {
    const tool = createBashTool({ sandbox: "off", cwd: dir, killGraceMs: KILL_GRACE_MS });
    const hidden = join(dir, "hidden.pid");
    const parent = join(dir, "parent.pid");
    // The parent lives long enough for the tree to be seen, then leaves its child orphaned in a
    // session of its own, with no environment marker: only having seen it as a descendant finds it.
    const command = `(echo $BASHPID > ${parent}; setsid env -i sh -c 'echo $$ > ${hidden}; exec sleep 300' & sleep 0.6) &\nsleep 300`;
    const controller = new AbortController();
    const call = tool.execute("t", { command }, controller.signal, () => {}, undefined);
    const [parentPid, hiddenPid] = await pidsOf([parent, hidden]);
    while (isRunning(parentPid as number)) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(isRunning(hiddenPid as number)).toBe(true);
    controller.abort();
    await expect(call).rejects.toMatchObject({ code: ErrorCode.ABORTED });
    expectAllEnded([hiddenPid as number]);
  });

  it("sends one SIGTERM, then SIGKILL after the grace, to a process that traps it", async () => {
    const tool = createBashTool({ sandbox: "off", cwd: dir, killGraceMs: 500 });
    const log = join(dir, "terms");
    const ready = join(dir, "ready");
    const command = `trap 'echo TERM >> ${log}' TERM; touch ${ready}; while :; do sleep 0.02; done`;
    const controller = new AbortController();
    const call = tool.execute("t", { command }, controller.signal, () => {}, undefined);
    while (!existsSync(ready)) await new Promise((resolve) => setTimeout(resolve, 10));
    controller.abort();
    await expect(call).rejects.toMatchObject({ code: ErrorCode.ABORTED });
    expect(readFileSync(log, "utf8")).toBe("TERM\n");
  });

  it("on an abort that comes while the call is still starting", async () => {
    const tool = createBashTool({ sandbox: "off", cwd: dir, killGraceMs: KILL_GRACE_MS });
    const pidFile = join(dir, "sleep.pid");
    const controller = new AbortController();
    const call = tool.execute("t", { command: `echo $$ > ${pidFile}; exec sleep 300` }, controller.signal, () => {}, undefined);
    controller.abort();
    await expect(call).rejects.toMatchObject({ code: ErrorCode.ABORTED });
    // If the shell got as far as starting, it was ended.
    if (existsSync(pidFile) && readFileSync(pidFile, "utf8").trim() !== "") {
      expectAllEnded([Number(readFileSync(pidFile, "utf8"))]);
    }
  });

  it("on timeout: an error result with the output so far", async () => {
    const tool = createBashTool({ sandbox: "off", cwd: dir, killGraceMs: KILL_GRACE_MS });
    const { command, pidFiles } = treeCommand(dir, `echo started; while [ ! -e ${join(dir, "never")} ]; do sleep 0.05; done`);
    const call = tool.execute("t", { command: `${command}`, timeout: 1 }, new AbortController().signal, () => {}, undefined);
    const pids = await pidsOf(pidFiles);
    const result = await call;
    expect(result.isError).toBe(true);
    expect(result.details.code).toBe(BashErrorCode.TIMED_OUT);
    expect(result.details.timeoutSeconds).toBe(1);
    expect(textOf(result)).toBe("started\n[timed out after 1 s; the command and every process it started were ended]");
    expectAllEnded(pids);
  });

  it("caps the call's timeout by the tool's", async () => {
    const tool = createBashTool({ sandbox: "off", cwd: dir, timeout: 0.5, killGraceMs: KILL_GRACE_MS });
    const result = await tool.execute("t", { command: "sleep 300", timeout: 100 }, new AbortController().signal, () => {}, undefined);
    expect(result.details.code).toBe(BashErrorCode.TIMED_OUT);
    expect(textOf(result)).toContain("timed out after 0.5 s");
  });

  it("takes a timeout beyond the timer's range as no limit", async () => {
    const tool = createBashTool({ sandbox: "off", cwd: dir, timeout: 0 });
    const result = await tool.execute("t", { command: "sleep 0.2; echo slept", timeout: 1e9 }, new AbortController().signal, () => {}, undefined);
    expect(textOf(result)).toBe("slept");
  });

  it("when the shell exits: what it left running is ended, and the pipes it holds do not keep the call waiting", async () => {
    const tool = createBashTool({ sandbox: "off", cwd: dir, killGraceMs: KILL_GRACE_MS });
    const { command, pidFiles } = treeCommand(dir, "");
    // Wait in the shell until every child has written its pid, then leave them running.
    const files = pidFiles.map((file) => `[ -s ${file} ]`).join(" && ");
    const result = await tool.execute(
      "t",
      { command: `${command}\nuntil ${files}; do sleep 0.01; done\necho done` },
      new AbortController().signal,
      () => {},
      undefined,
    );
    expect(result.isError).toBeUndefined();
    expect(textOf(result)).toBe("done");
    expectAllEnded(await pidsOf(pidFiles));
  });

  it("when Node exits while a command runs: the whole tree, not only its group", async () => {
    const dist = new URL("../dist/index.js", import.meta.url);
    const { command, pidFiles } = treeCommand(dir, "wait");
    const script = `
      const { createBashTool } = await import(${JSON.stringify(dist.href)});
      createBashTool({ sandbox: "off" }).execute("x", { command: ${JSON.stringify(command)} }, new AbortController().signal, () => {});
      const { existsSync, readFileSync } = await import("node:fs");
      const files = ${JSON.stringify(pidFiles)};
      while (!files.every((file) => existsSync(file) && /^\\d+\\s*$/.test(readFileSync(file, "utf8")))) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      process.exit(0);
    `;
    execFileSync(process.execPath, ["--input-type=module", "-e", script], { stdio: "ignore" });
    const pids = await pidsOf(pidFiles);
    // The tree was sent SIGKILL on exit; its processes go at once, but are reaped by init.
    for (let i = 0; i < 500 && pids.some(isRunning); i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expectAllEnded(pids);
  });

  it("when the shell exits: an orphan in its own session, without environment, found by the output pipe it holds", async () => {
    const tool = createBashTool({ sandbox: "off", cwd: dir, killGraceMs: KILL_GRACE_MS });
    const pidFile = join(dir, "escaped.pid");
    // Orphaned at once, in its own session, with no environment: only the stdout and stderr it
    // inherited tie it to the call.
    const command = `(setsid env -i sh -c 'echo $$ > ${pidFile}; exec sleep 300' &)\nuntil [ -s ${pidFile} ]; do sleep 0.01; done\necho done`;
    const result = await tool.execute("t", { command }, new AbortController().signal, () => {}, undefined);
    expect(textOf(result)).toBe("done");
    expectAllEnded(await pidsOf([pidFile]));
  });

  it("when the shell exited before its tree was looked at: the orphan holding the output pipe is still found", async () => {
    // A loaded machine may run a short command to its end between the spawn and the tree's first
    // look (1 call in 100 here, with three processes calling at once): the shell is a zombie then,
    // with no stdout to read the pipe's identity from. The tree knows the pipes from their FIFOs.
    const pidFile = join(dir, "escaped.pid");
    const outputs = await commandOutputs();
    const command = `(setsid env -i sh -c 'echo $$ > ${pidFile}; exec sleep 300' &)\nuntil [ -s ${pidFile} ]; do sleep 0.01; done`;
    const child = spawn("bash", ["-c", command], { detached: true, stdio: ["ignore", ...outputs.stdio] });
    const pipes = outputs.spawned(child);
    const root = child.pid as number;
    // Held synchronously, so that Node cannot reap it: the shell stays a zombie with no files open.
    while (!readFileSync(`/proc/${root}/stat`, "latin1").includes(") Z ")) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 2);
    expect(execFileSync("ls", [`/proc/${root}/fd`], { encoding: "utf8" })).toBe("");
    const tree = new ProcessTree(root, "TOOLHOST_BASH_CALL=none", () => pipes[0].isClosed && pipes[1].isClosed, outputs.files);
    const [escaped] = await pidsOf([pidFile]);
    expect(isRunning(escaped as number)).toBe(true);
    await tree.end(KILL_GRACE_MS);
    expectAllEnded([escaped as number]);
    for (const pipe of pipes) pipe.destroy();
  });

  it("when the harness is disposed", async () => {
    const harness = new AgentHarness({ cwd: dir });
    await harness.use(bashPlugin, { sandbox: "off", killGraceMs: KILL_GRACE_MS });
    const { command, pidFiles } = treeCommand(dir, "sleep 300");
    const batch = harness.executeToolCalls([{ id: "a", name: "bash", arguments: { command } }]);
    const pids = await pidsOf(pidFiles, batch);
    await harness.dispose();
    expectAllEnded(pids);
    const [message] = await batch;
    expect(message?.isError).toBe(true);
    expect(textOf(message as never)).toMatch(
      /^Tool "bash" failed: Ended because the harness was disposed after [\d.]+ s; the command and every process it started were ended\./,
    );
  });

  it("when the harness is disposed while a call is starting: nothing is left running", async () => {
    const harness = new AgentHarness({ cwd: dir });
    await harness.use(bashPlugin, { sandbox: "off", killGraceMs: KILL_GRACE_MS });
    const pidFile = join(dir, "sleep.pid");
    const batch = harness.executeToolCalls([{ id: "a", name: "bash", arguments: { command: `echo $$ > ${pidFile}; exec sleep 300` } }]);
    await harness.dispose();
    const [message] = await batch;
    expect(message?.isError).toBe(true);
    if (existsSync(pidFile) && readFileSync(pidFile, "utf8").trim() !== "") {
      expectAllEnded([Number(readFileSync(pidFile, "utf8"))]);
    }
  });

  it("when the batch is aborted through the harness", async () => {
    const harness = new AgentHarness({ cwd: dir });
    await harness.use(bashPlugin, { sandbox: "off", killGraceMs: KILL_GRACE_MS });
    const { command, pidFiles } = treeCommand(dir, "sleep 300");
    const controller = new AbortController();
    const batch = harness.executeToolCalls([{ id: "a", name: "bash", arguments: { command } }], {
      signal: controller.signal,
    });
    const pids = await pidsOf(pidFiles, batch);
    controller.abort();
    const [message] = await batch;
    expect(message?.isError).toBe(true);
    expect(message?.details).toMatchObject({ code: ErrorCode.ABORTED });
    // The kernel answers at once; dispose waits until the tool has ended its tree.
    await harness.dispose();
    expectAllEnded(pids);
  });
});
