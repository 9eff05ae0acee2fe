import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import type { AgentToolResult, ToolResultMessage } from "@toolhost/core";
import { type Host, createHost, trustFolder } from "@toolhost/core/config";
import { afterAll, afterEach, beforeEach } from "vitest";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..", "..");
/** The built plugins and CLI, by absolute path: a config names them so, and the CLI runs as users run it. */
export const QUEUE_PLUGIN = join(root, "queue", "dist", "index.js");
/** Configs give it `sandbox: "off"`: the tests read pids a command writes, which in the sandbox are its own namespace's. */
export const BASH_PLUGIN = join(root, "tool-bash", "dist", "index.js");
export const CLI_BIN = join(root, "cli", "dist", "bin.js");
export const POLICY_PLUGIN = join(root, "hooks-policy", "dist", "index.js");
const CORE = realpathSync(join(here, "..", "node_modules", "@toolhost", "core"));

// The user's and the managed config folders of this test file and the CLIs it starts: fresh, so the
// machine's configs and trusted folders never count. The configs name plugins by path (code), which
// loads only from a folder the user trusts: each project is trusted there.
const testHome = realpathSync(mkdtempSync(join(tmpdir(), "toolhost-queue-home-")));
Object.assign(process.env, { XDG_CONFIG_HOME: join(testHome, "config"), TOOLHOST_MANAGED_CONFIG_DIR: join(testHome, "managed") });
afterAll(() => rmSync(testHome, { recursive: true, force: true }));

/** A temporary folder (real path), trusted, whose node_modules has @toolhost/core, for the test's own plugin. */
export function tempProject(): { dir: string; remove: () => void } {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "toolhost-queue-")));
  trustFolder(dir);
  mkdirSync(join(dir, "node_modules", "@toolhost"), { recursive: true });
  symlinkSync(CORE, join(dir, "node_modules", "@toolhost", "core"), "dir");
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A free TCP port on 127.0.0.1. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A redis-server of the test's own, on a free loopback port, without persistence. */
export interface TestRedis {
  port: number;
  url: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

/** Starts redis-server; fails (never skips) when it is not installed. */
export async function startRedis(extra: string[] = [], port?: number): Promise<TestRedis> {
  port ??= await freePort();
  const child = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--daemonize", "no", ...extra], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
  const failed = new Promise<never>((_, reject) => {
    child.on("error", (error) => reject(new Error(`redis-server could not start (install the redis-server package): ${error.message}`)));
    child.on("exit", (code) => reject(new Error(`redis-server exited with ${code}: ${output}`)));
  });
  const ready = (async () => {
    while (!output.includes("Ready to accept connections")) await delay(20);
  })();
  await Promise.race([ready, failed]);
  failed.catch(() => undefined);
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    process: child,
    stop: () => stopProcess(child),
  };
}

/** Ends a child by its PID (SIGTERM, then SIGKILL after 30 s) and waits for it to exit. */
export async function stopProcess(child: ChildProcess, signal: NodeJS.Signals = "SIGTERM"): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  process.kill(child.pid as number, signal);
  const timer = setTimeout(() => {
    if (child.exitCode === null && child.signalCode === null) process.kill(child.pid as number, "SIGKILL");
  }, 30_000);
  await exited;
  clearTimeout(timer);
}

/** A `toolhost worker` process, with its health lines. */
export interface TestWorker {
  process: ChildProcess;
  pid: number;
  lines: Array<Record<string, unknown>>;
  stderr(): string;
  /** Resolves with its exit code once it exits. */
  exited: Promise<number | null>;
}

/** A key for the queue's signed jobs: 64 hex characters, as `openssl rand -hex 32` makes. */
export function newKey(): string {
  return randomBytes(32).toString("hex");
}

/**
 * Starts the built CLI's `toolhost worker` in `dir` (its config) and waits for its "ready" line.
 * It inherits this process's environment (the testbed's `TOOLHOST_QUEUE_KEY`), changed by `env`.
 */
export async function startWorker(dir: string, args: string[] = [], env: Record<string, string | undefined> = {}): Promise<TestWorker> {
  const child = spawn(process.execPath, [CLI_BIN, "worker", "--queue", "calls", "--health-interval", "1", ...args], {
    cwd: dir,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, FORCE_COLOR: undefined, NO_COLOR: "1", ...env },
  });
  const lines: Array<Record<string, unknown>> = [];
  let stdout = "";
  let stderr = "";
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
    stdout += chunk;
    let newline = stdout.indexOf("\n");
    while (newline >= 0) {
      lines.push(JSON.parse(stdout.slice(0, newline)) as Record<string, unknown>);
      stdout = stdout.slice(newline + 1);
      newline = stdout.indexOf("\n");
    }
  });
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const worker: TestWorker = { process: child, pid: child.pid as number, lines, stderr: () => stderr, exited };
  const ready = (async () => {
    while (!lines.some((line) => line.event === "ready")) await delay(20);
  })();
  const died = exited.then((code) => {
    throw new Error(`toolhost worker exited with ${code} before it was ready:\n${stderr}`);
  });
  await Promise.race([ready, died]);
  died.catch(() => undefined);
  return worker;
}

/** Writes `toolhost.config.json` into `dir`. */
export function writeConfig(dir: string, plugins: unknown[]): void {
  writeFileSync(join(dir, "toolhost.config.json"), JSON.stringify({ plugins }, null, 2));
}

/** The queue plugin's entry for a config. */
export function queueEntry(redis: TestRedis, options: Record<string, unknown> = {}): unknown[] {
  return [QUEUE_PLUGIN, { redis: redis.url, queue: "calls", ...options }];
}

/** The producer: a host made from the config in `dir`. */
export function producer(dir: string): Promise<Host> {
  return createHost({ cwd: dir });
}

export function textOf(result: Pick<AgentToolResult | ToolResultMessage, "content">): string {
  return result.content.map((block) => (block.type === "text" ? block.text : `[${block.type}]`)).join("\n");
}

export function codeOf(result: { details: unknown }): unknown {
  return (result.details as { code?: unknown } | undefined)?.code;
}

/** Whether a process runs: it exists and is not a zombie. */
export function isRunning(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
    const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
    return state !== "Z" && state !== "X";
  } catch {
    return false;
  }
}

/** Waits until a file exists and holds a line, and returns its text. */
export async function waitForFile(path: string): Promise<string> {
  for (;;) {
    if (existsSync(path)) {
      const text = readFileSync(path, "utf8");
      if (text.endsWith("\n")) return text;
    }
    await delay(20);
  }
}

/** Waits until `check` holds. */
export async function waitUntil(check: () => boolean): Promise<void> {
  while (!check()) await delay(25);
}

/** Ends a process group left behind by a killed worker's bash call. */
export function killGroup(pid: number): void {
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    // already gone
  }
}

/**
 * A plugin of the test's own, for workers: `slow_read` says it only reads; the first attempt of a
 * call waits (so the test can kill its worker), later attempts answer at once. Each attempt adds
 * its worker's pid to `attempts.log` in the call's folder. `held_echo` (read-only) logs each attempt
 * to `echoes.log` and, on its first attempt, waits while a file `hold` exists. `gated_read` (read-only)
 * logs each attempt to `gated.log`, and every attempt waits while a file `gate` exists. `remote_echo` echoes
 * its text; the plugin's policy asks about the text "ask me".
 */
export function writeProbePlugin(dir: string): string {
  const file = join(dir, "probe-plugin.mjs");
  writeFileSync(
    file,
    `import { appendFileSync, existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { definePlugin, Type } from "@toolhost/core";
export default definePlugin({
  name: "probe",
  apply(harness) {
    // A second gate on the worker: it asks about one text.
    harness.hooks.beforeToolCall.tap("probe", (ctx) => (ctx.args?.text === "ask me" ? { ask: true, reason: "the probe asks about this text" } : undefined));
    harness.registerTool({
      name: "slow_read",
      label: "Slow read",
      description: "Reads a file slowly.",
      parameters: Type.Object({ path: Type.String() }),
      annotations: { readOnly: true },
      async execute(_id, { path }, signal) {
        const log = join(harness.cwd, "attempts.log");
        const first = !existsSync(log);
        appendFileSync(log, process.pid + "\\n");
        if (first) await new Promise((resolve) => { const t = setTimeout(resolve, 600000); signal.addEventListener("abort", () => { clearTimeout(t); resolve(); }); });
        return { content: [{ type: "text", text: "read by " + process.pid + ": " + readFileSync(path, "utf8") }], details: {} };
      },
    });
    harness.registerTool({
      name: "held_echo",
      label: "Held echo",
      description: "Echoes its text; says it only reads. A first attempt waits while the file hold exists.",
      parameters: Type.Object({ text: Type.String() }),
      annotations: { readOnly: true },
      async execute(_id, { text }, signal) {
        const log = join(harness.cwd, "echoes.log");
        const first = !(existsSync(log) && readFileSync(log, "utf8").split("\\n").some((line) => line.startsWith(text + " ")));
        appendFileSync(log, text + " " + process.pid + "\\n");
        while (first && existsSync(join(harness.cwd, "hold")) && !signal.aborted) await new Promise((resolve) => setTimeout(resolve, 50));
        return { content: [{ type: "text", text: "echo: " + text }], details: {} };
      },
    });
    harness.registerTool({
      name: "gated_read",
      label: "Gated read",
      description: "Says it only reads; logs each attempt to gated.log, and every attempt waits while the file gate exists.",
      parameters: Type.Object({ text: Type.String() }),
      annotations: { readOnly: true },
      async execute(_id, { text }, signal) {
        appendFileSync(join(harness.cwd, "gated.log"), text + " " + process.pid + "\\n");
        while (existsSync(join(harness.cwd, "gate")) && !signal.aborted) await new Promise((resolve) => setTimeout(resolve, 50));
        return { content: [{ type: "text", text: "read: " + text }], details: {} };
      },
    });
    harness.registerTool({
      name: "remote_echo",
      label: "Echo",
      description: "Echoes its text.",
      parameters: Type.Object({ text: Type.String() }),
      annotations: { readOnly: true, idempotent: true },
      async execute(_id, { text }) {
        return { content: [{ type: "text", text: "echo from " + process.pid + ": " + text }], details: {} };
      },
    });
  },
});
`,
  );
  return file;
}

/**
 * The set-up every queue test shares, registered as `beforeEach` / `afterEach`: a Redis of its own,
 * a temp project with a `worker` and a `producer` folder (the worker's config from `workerPlugins`,
 * the producer's with the queue only), and what the test started is stopped after it.
 */
export function useTestbed(workerPlugins: (bed: Testbed) => unknown[]): Testbed {
  const workers: TestWorker[] = [];
  const hosts: Host[] = [];
  const bed = {
    groups: [] as number[],
    async worker(args: string[] = [], env: Record<string, string | undefined> = {}): Promise<TestWorker> {
      const started = await startWorker(bed.workerDir, args, env);
      workers.push(started);
      return started;
    },
    async host(options: Record<string, unknown> = {}): Promise<Host> {
      return bed.hostWith([queueEntry(bed.redis, options)]);
    },
    async hostWith(plugins: unknown[]): Promise<Host> {
      writeConfig(bed.producerDir, plugins);
      const made = await producer(bed.producerDir);
      hosts.push(made);
      return made;
    },
  } as Testbed;
  let remove = () => {};
  beforeEach(async () => {
    // The hosts (in this process) and the workers (its children) share the key, as a deployment's
    // environment gives it to both.
    bed.key = newKey();
    process.env.TOOLHOST_QUEUE_KEY = bed.key;
    bed.redis = await startRedis();
    ({ dir: bed.dir, remove } = tempProject());
    bed.workerDir = join(bed.dir, "worker");
    bed.producerDir = join(bed.dir, "producer");
    mkdirSync(bed.workerDir);
    mkdirSync(bed.producerDir);
    writeConfig(bed.workerDir, workerPlugins(bed));
  });
  afterEach(async () => {
    for (const host of hosts.splice(0)) await host.harness.dispose();
    for (const worker of workers.splice(0)) await stopProcess(worker.process, "SIGKILL");
    for (const pid of bed.groups.splice(0)) killGroup(pid);
    await bed.redis.stop();
    delete process.env.TOOLHOST_QUEUE_KEY;
    remove();
  });
  return bed;
}

export interface Testbed {
  redis: TestRedis;
  dir: string;
  workerDir: string;
  producerDir: string;
  /** Process groups a test started itself: killed after it. */
  groups: number[];
  /** The key hosts and workers share (`TOOLHOST_QUEUE_KEY` while the test runs). */
  key: string;
  /** Starts `toolhost worker` in the worker folder (its environment changed by `env`). */
  worker(args?: string[], env?: Record<string, string | undefined>): Promise<TestWorker>;
  /** A producer host: the queue plugin alone (with `options`), so its tools come from the workers. */
  host(options?: Record<string, unknown>): Promise<Host>;
  /** A producer host with these plugins in its config. */
  hostWith(plugins: unknown[]): Promise<Host>;
}
