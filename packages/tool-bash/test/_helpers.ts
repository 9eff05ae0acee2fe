import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import type { AgentHarness, AgentToolResult } from "@toolhost/core";
import { afterEach } from "vitest";
import type { BashToolDetails } from "../src/index.js";

/** A temporary folder, removed by the returned function. */
export function tempFolder(): { dir: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), "tool-bash-test-"));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export function textOf(result: Pick<AgentToolResult, "content">): string {
  return result.content.map((block) => (block.type === "text" ? block.text : `[${block.type}]`)).join("\n");
}

/** Runs one bash call through a harness: its text, details and whether it is an error. */
export async function runBash(harness: AgentHarness, command: string): Promise<{ text: string; details: BashToolDetails; isError: boolean }> {
  const [result] = await harness.executeToolCalls([{ id: "1", name: "bash", arguments: { command } }]);
  if (!result) throw new Error("no result");
  return { text: textOf(result), details: result.details as BashToolDetails, isError: result.isError };
}

/** Whether a process runs: it exists and is not a zombie waiting for its parent. */
export function isRunning(pid: number): boolean {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "latin1");
  } catch {
    return false;
  }
  const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
  return state !== "Z" && state !== "X";
}

/** Waits until each file holds a pid, and returns the pids. */
export async function readPids(files: readonly string[], call?: Promise<unknown>): Promise<number[]> {
  // A call that ends before its processes wrote their pids fails the test with its result, at once,
  // rather than leaving it to wait for files that will never come.
  let ended: unknown;
  void call?.then(
    (value) => (ended = { value }),
    (error: unknown) => (ended = { error: String(error) }),
  );
  for (;;) {
    if (files.every((file) => existsSync(file) && /^\d+\s*$/.test(readFileSync(file, "utf8")))) {
      return files.map((file) => Number(readFileSync(file, "utf8").trim()));
    }
    if (ended !== undefined) throw new Error(`the call ended before its processes wrote their pids: ${JSON.stringify(ended).slice(0, 2000)}`);
    await delay(10);
  }
}

/**
 * A command that starts a process tree and writes the pid of each of its processes to a file:
 * a background child, a child in a session of its own (`setsid`), a grandchild orphaned into a
 * session of its own (so that only the call's marker ties it to the call), a child with an
 * emptied environment, and a child that ignores SIGTERM; then `after`.
 */
export function treeCommand(dir: string, after: string): { command: string; pidFiles: string[] } {
  const f = (name: string) => join(dir, `${name}.pid`);
  const command = [
    `sleep 300 & echo $! > ${f("background")}`,
    `setsid sh -c 'echo $$ > ${f("setsid")}; exec sleep 300' &`,
    `(setsid sh -c 'echo $$ > ${f("orphan")}; exec sleep 300' &)`,
    `env -i sh -c 'echo $$ > ${f("noenv")}; exec sleep 300' &`,
    `sh -c 'trap "" TERM; echo $$ > ${f("stubborn")}; while :; do sleep 1; done' &`,
    after,
  ].join("\n");
  return { command, pidFiles: ["background", "setsid", "orphan", "noenv", "stubborn"].map(f) };
}

/** Live processes whose command line holds `token`. */
export function processesWith(token: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readFileSync(`/proc/${name}/cmdline`, "latin1").includes(token) && isRunning(Number(name))) found.push(Number(name));
    } catch {
      // gone
    }
  }
  return found;
}

/** What each test made (folders, harnesses, servers), undone after it, the last first. */
export function cleanupsAfterEach(): Array<() => unknown> {
  const cleanups: Array<() => unknown> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  return cleanups;
}

/** What `test/_isolated-calls.mjs` prints. */
export interface IsolatedRun {
  warnings: Array<{ message: string; code?: string }>;
  results: Array<{ text: string; isError: boolean; code?: string; sandbox: BashToolDetails["sandbox"] }>;
  access?: unknown;
}

/**
 * Runs tool-bash (the built package) in a process of its own, on a machine changed for it: the
 * system's bwrap covered (a private mount namespace, `unshare --mount`) by a file without an
 * execute bit ("missing", as if bubblewrap were not installed) or by a script of the test's;
 * started by a second uid (setpriv) when asked; with the environment given.
 */
export function runIsolated(
  folder: string,
  input: { workspace: string; options: Record<string, unknown>; commands: string[]; access?: string },
  machine: { bwrap?: "missing" | string; nobody?: boolean; env?: Record<string, string> } = {},
): IsolatedRun {
  const script = new URL("./_isolated-calls.mjs", import.meta.url).pathname;
  const inputFile = join(folder, `isolated-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(inputFile, JSON.stringify(input), { mode: 0o644 });
  let command = [process.execPath, script, inputFile];
  if (machine.nobody) command = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", ...command];
  if (machine.bwrap !== undefined) {
    const cover = join(folder, `bwrap-cover-${Math.random().toString(36).slice(2)}`);
    writeFileSync(cover, machine.bwrap === "missing" ? "" : machine.bwrap, { mode: machine.bwrap === "missing" ? 0o644 : 0o755 });
    command = ["unshare", "--mount", "--", "/bin/sh", "-c", 'mount --bind "$0" /usr/bin/bwrap && exec "$@"', cover, ...command];
  }
  const [file, ...args] = command as [string, ...string[]];
  const out = execFileSync(file, args, { cwd: input.workspace, env: { ...process.env, ...machine.env }, encoding: "utf8", timeout: 120_000 });
  return JSON.parse(out) as IsolatedRun;
}
