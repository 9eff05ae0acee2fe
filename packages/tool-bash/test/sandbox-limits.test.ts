// The limits of a sandboxed call, reached for real: a fork bomb, a 10 GB allocation, a 10 GB file.
// Each is given a limit far below what it asks for, so that the machine never pays for it; each
// must end with its limit named, its stable code, and no process of it left. Without bwrap (or
// without a mechanism for the limit) these tests fail.
import { rmSync, statSync, statfsSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { AgentHarness } from "@toolhost/core";
import { beforeEach, describe, expect, it } from "vitest";
import bashPlugin, { BashErrorCode } from "../src/index.js";
import { cleanupsAfterEach, processesWith, runBash as bash, tempFolder } from "./_helpers.js";

let ws: string;
const cleanups = cleanupsAfterEach();
beforeEach(() => {
  const folder = tempFolder();
  ws = folder.dir;
  cleanups.push(folder.remove);
});

async function harnessWith(limits: Record<string, number>): Promise<AgentHarness> {
  const harness = new AgentHarness({ cwd: ws, workspace: ws });
  await harness.use(bashPlugin, { sandbox: "required", limits, killGraceMs: 500 });
  cleanups.push(() => harness.dispose());
  return harness;
}


async function noneLeft(token: string): Promise<number[]> {
  // Killed at once, reaped a moment later: a bounded wait, not a threshold.
  for (let i = 0; i < 100 && processesWith(token).length > 0; i++) await delay(100);
  return processesWith(token);
}

const token = (): string => `limit${Math.floor(Math.random() * 1e9)}`;

describe("a sandboxed call's limits", { timeout: 120_000 }, () => {
  it("a fork bomb: stopped at the processes limit, said in words, nothing left running", async () => {
    const harness = await harnessWith({ processes: 64 });
    const id = token();
    const result = await bash(harness, `bomb() { bomb | bomb & }; bomb; exec sleep 300 # ${id}`);
    expect(result.isError).toBe(true);
    expect(result.details.code).toBe(BashErrorCode.LIMIT_EXCEEDED);
    expect(result.details.limitExceeded).toMatchObject({ limit: "processes", value: 64 });
    expect(result.text).toContain("[stopped: it tried to run more than 64 processes at once (the sandbox's \"processes\" limit");
    expect(await noneLeft(id)).toEqual([]);
  });

  it("a call after the tool was idle a moment (its spare launcher waits in the next call's cgroups) is bounded the same", async () => {
    const harness = await harnessWith({ processes: 64 });
    expect((await bash(harness, "echo first")).text).toBe("first");
    // Longer than the idle moment after which the spare is made.
    await delay(500);
    const id = token();
    // Its own cgroup namespace: the call's cgroups are its root, and no host cgroup path shows.
    const result = await bash(harness, `grep -vc ':/$' /proc/self/cgroup; bomb() { bomb | bomb & }; bomb; exec sleep 300 # ${id}`);
    expect(result.details.code).toBe(BashErrorCode.LIMIT_EXCEEDED);
    expect(result.details.limitExceeded).toMatchObject({ limit: "processes", value: 64 });
    expect(result.text.split("\n")[0]).toBe("0");
    expect(await noneLeft(id)).toEqual([]);
    await delay(500);
    expect((await bash(harness, "echo third")).text).toBe("third");
  });

  it("a 10 GB allocation: stopped at the memory limit, nothing left running", async () => {
    const harness = await harnessWith({ memoryBytes: 256 * 1024 * 1024 });
    const id = token();
    const result = await bash(harness, `python3 -c "import sys; b = bytearray(10 * 1024**3)" ${id}; sleep 300 # ${id}`);
    expect(result.isError).toBe(true);
    expect(result.details.code).toBe(BashErrorCode.LIMIT_EXCEEDED);
    expect(result.details.limitExceeded?.limit).toBe("memoryBytes");
    expect(result.text).toMatch(/\[(stopped: its processes used more than|limit: a process could not get more memory at) 256 MiB/);
    expect(await noneLeft(id)).toEqual([]);
  });

  it("a 10 GB file: stopped at the file-size limit, the file no bigger than it, nothing left running", async () => {
    // The limit stops the write at 64 MiB; the disk must hold that much.
    const free = statfsSync(ws);
    expect(free.bavail * free.bsize).toBeGreaterThan(1024 ** 3);
    const harness = await harnessWith({ fileSizeBytes: 64 * 1024 * 1024 });
    const id = token();
    const result = await bash(harness, `head -c 10G /dev/zero > big.bin; echo "after ${id}"`);
    expect(result.details.code).toBe(BashErrorCode.LIMIT_EXCEEDED);
    expect(result.details.limitExceeded).toMatchObject({ limit: "fileSizeBytes", value: 64 * 1024 * 1024 });
    expect(result.text).toContain("[limit: a write was stopped at 64 MiB, the largest file a command may write");
    expect(statSync(join(ws, "big.bin")).size).toBe(64 * 1024 * 1024);
    rmSync(join(ws, "big.bin"));
    expect(await noneLeft(id)).toEqual([]);
  });

  it("CPU time and open files: each named when reached", async () => {
    const harness = await harnessWith({ cpuSeconds: 1, openFiles: 32 });
    const cpu = await bash(harness, "while :; do :; done");
    expect(cpu.details.limitExceeded?.limit).toBe("cpuSeconds");
    expect(cpu.text).toContain("[limit: a process was ended after 1 s of CPU time");
    const files = await bash(harness, `python3 -c "fs = [open('/dev/null') for _ in range(100)]"`);
    expect(files.details.limitExceeded?.limit).toBe("openFiles");
    expect(files.text).toContain("Too many open files");
    expect(files.text).toContain("[limit: a process reached 32 open files");
  });

  it("an ordinary command is not touched by the defaults, and the details say what enforces each", async () => {
    const harness = new AgentHarness({ cwd: ws, workspace: ws });
    await harness.use(bashPlugin, { sandbox: "required" });
    cleanups.push(() => harness.dispose());
    const result = await bash(harness, "seq 1 300 | xargs -P 50 -n 1 true; ulimit -n; ulimit -t");
    expect(result.isError, result.text).toBe(false);
    expect(result.text).toBe("16384\n3600");
    expect(Object.keys(result.details.sandbox.limitsBy ?? {})).toEqual(["processes", "memoryBytes", "fileSizeBytes", "cpuSeconds", "openFiles"]);
  });
});
