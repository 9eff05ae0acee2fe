import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startFakeOpenAI, textTurn, toolCallsTurn } from "../../provider-openai/test/_fake-openai.js";
import { BIN, project, removeDir, tempDir, writeConfig } from "./_helpers.js";

let dir: string;
beforeEach(() => {
  dir = project(tempDir());
});
afterEach(() => removeDir(dir));

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 20));
}

/** Starts `toolhost call <tool> <args>`, waits for the tool's process to write its pid, sends SIGINT (or `signal`). */
async function interrupt(tool: string, args: unknown, pidFile: string, signal: NodeJS.Signals = "SIGINT") {
  const child = spawn(process.execPath, [BIN, "call", tool, JSON.stringify(args)], { cwd: dir, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const closed = new Promise<number | null>((resolve) => child.on("close", resolve));
  await until(() => existsSync(pidFile) && readFileSync(pidFile, "utf8").trim() !== "");
  const pid = Number(readFileSync(pidFile, "utf8").trim());
  expect(isRunning(pid)).toBe(true);
  child.kill(signal);
  const code = await closed;
  return { code, stdout, stderr, pid };
}

describe("Ctrl-C", () => {
  it("aborts the call, ends the tool's process, and exits 130", async () => {
    writeConfig(dir, { plugins: ["./plugins/slow-plugin.mjs"] });
    const pidFile = join(dir, "sleep.pid");
    const { code, stdout, stderr, pid } = await interrupt("slow", { pidFile }, pidFile);
    expect(code).toBe(130);
    expect(stdout).toBe("");
    expect(stderr).toContain('Tool "slow" aborted.');
    // The slow tool returns nothing of its own when stopped: its last update is kept.
    expect(stderr).toContain("Interrupted (Ctrl-C); the last output line seen: sleeping");
    await until(() => !isRunning(pid));
  });

  it("ends a bash command's processes too (tool-bash)", async () => {
    writeConfig(dir, { plugins: [["@toolhost/tool-bash", { sandbox: "off" }]] }); // the pid is read from the command: unsandboxed
    const pidFile = join(dir, "bash.pid");
    const { code, pid } = await interrupt("bash", { command: `echo $$ > ${pidFile}; exec sleep 300` }, pidFile);
    expect(code).toBe(130);
    await until(() => !isRunning(pid));
  });
});

describe("Ctrl-C in toolhost agent", () => {
  it("shows the stopped call as interrupted, with the last line it showed, and exits 130", async () => {
    const pidFile = join(dir, "sleep.pid");
    const server = await startFakeOpenAI([toolCallsTurn([{ id: "c1", name: "slow", arguments: { pidFile } }]), textTurn("never asked")]);
    try {
      writeConfig(dir, { plugins: [["@toolhost/provider-openai", { model: "fake-model", baseURL: server.url, maxRetries: 0 }], "./plugins/slow-plugin.mjs"] });
      const child = spawn(process.execPath, [BIN, "agent", "sleep"], { cwd: dir, stdio: ["ignore", "pipe", "pipe"] });
      let stderr = "";
      child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
      const closed = new Promise<number | null>((resolve) => child.on("close", resolve));
      await until(() => existsSync(pidFile) && readFileSync(pidFile, "utf8").trim() !== "");
      child.kill("SIGINT");
      expect(await closed).toBe(130);
      expect(stderr).toMatch(/✗ slow: Interrupted \(Ctrl-C\); the last output line seen: sleeping \(\d+ ms\)/);
      expect(server.requests).toHaveLength(1);
    } finally {
      await server.close();
    }
  });
});

describe("SIGTERM and SIGHUP (a closed terminal)", () => {
  for (const signal of ["SIGTERM", "SIGHUP"] as const) {
    it(`${signal} aborts the call, ends a bash command's processes, and exits 130`, async () => {
      writeConfig(dir, { plugins: [["@toolhost/tool-bash", { sandbox: "off" }]] }); // the pid is read from the command: unsandboxed
      const pidFile = join(dir, "bash.pid");
      const { code, pid, stderr } = await interrupt("bash", { command: `echo $$ > ${pidFile}; exec sleep 300` }, pidFile, signal);
      expect(code).toBe(130);
      expect(stderr).toContain(`Interrupted (${signal}).`);
      await until(() => !isRunning(pid));
    });
  }
});

describe("toolTimeoutMs from the config", () => {
  it("ends a call that runs too long with a timed-out error (exit 1) and ends its process", async () => {
    writeConfig(dir, { toolTimeoutMs: 300, plugins: ["./plugins/slow-plugin.mjs"] });
    const pidFile = join(dir, "sleep.pid");
    const child = spawn(process.execPath, [BIN, "call", "slow", JSON.stringify({ pidFile })], { cwd: dir, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    expect(code).toBe(1);
    expect(stdout).toBe('Tool "slow" timed out after 300 ms.\n');
    const pid = Number(readFileSync(pidFile, "utf8"));
    await until(() => !isRunning(pid));
  });
});
