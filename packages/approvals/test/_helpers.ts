import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { trustFolder } from "@toolhost/core/config";
import { type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll } from "vitest";

const here = dirname(fileURLToPath(import.meta.url));
const packages = join(here, "..", "..");
/** The built CLI, as users run it, and the queue plugin by path (a config names it so; the CLI has no copy). */
export const CLI_BIN = join(packages, "cli", "dist", "bin.js");
export const QUEUE_PLUGIN = join(packages, "queue", "dist", "index.js");

// The user's and the managed config folders of this file and of every CLI it starts: fresh, so the
// machine's configs, trusted folders and page file never count, and none is left behind.
export const TEST_HOME = realpathSync(mkdtempSync(join(tmpdir(), "toolhost-approvals-home-")));
export const USER_CONFIG_DIR = join(TEST_HOME, "config", "toolhost");
Object.assign(process.env, { XDG_CONFIG_HOME: join(TEST_HOME, "config"), TOOLHOST_MANAGED_CONFIG_DIR: join(TEST_HOME, "managed"), NO_COLOR: "1", FORCE_COLOR: undefined });
delete process.env.FORCE_COLOR;
afterAll(() => rmSync(TEST_HOME, { recursive: true, force: true, maxRetries: 5 }));

const cleanups: Array<() => Promise<void> | void> = [];
/** Runs the cleanups registered so far, last first (an `afterEach` of the test file). */
export async function cleanUp(): Promise<void> {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
}
export function onCleanup(cleanup: () => Promise<void> | void): void {
  cleanups.push(cleanup);
}

/** A temporary project folder (real path), trusted as the user would (`toolhost trust`), removed after the test. */
export function project(files: Record<string, string> = {}): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "toolhost-approvals-")));
  trustFolder(dir);
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  onCleanup(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

export function writeConfig(dir: string, plugins: unknown[]): void {
  writeFileSync(join(dir, "toolhost.config.json"), `${JSON.stringify({ plugins }, null, 2)}\n`);
}

/** A started child of the test, ended by its pid after the test. */
export interface Child {
  process: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves with the exit code. */
  exited: Promise<number | null>;
}

/** Starts the built CLI with `args` in `cwd`, standard input a pipe (no terminal), ended after the test if still running. */
export function start(args: string[], options: { cwd: string; input?: string; env?: Record<string, string | undefined>; keepInput?: boolean }): Child {
  const child = spawn(process.execPath, [CLI_BIN, ...args], { cwd: options.cwd, stdio: ["pipe", "pipe", "pipe"], env: { ...process.env, ...options.env } });
  let stdout = "";
  let stderr = "";
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.once("close", (code) => resolve(code)));
  if (options.keepInput !== true) child.stdin?.end(options.input ?? "");
  onCleanup(() => stop(child));
  return { process: child, stdout: () => stdout, stderr: () => stderr, exited };
}

/** Runs the built CLI to its end. */
export async function toolhost(args: string[], options: { cwd: string; input?: string; env?: Record<string, string | undefined> }): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = start(args, options);
  const code = await child.exited;
  return { code, stdout: child.stdout(), stderr: child.stderr() };
}

/** Ends a child by its pid (SIGTERM, then SIGKILL after 20 s) and waits for it. */
export async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
  await exited;
  clearTimeout(timer);
}

/** `toolhost approvals serve` on a free port: its printed address (with the token). */
export async function startPage(cwd: string = TEST_HOME): Promise<{ openUrl: string; url: string; token: string; child: Child }> {
  const child = start(["approvals", "serve", "--http", "127.0.0.1:0"], { cwd });
  for (;;) {
    const line = child.stdout().split("\n")[0] ?? "";
    if (line.startsWith("http://") && child.stdout().includes("\n")) {
      const url = new URL(line);
      const token = url.searchParams.get("token") as string;
      return { openUrl: line, url: `${url.origin}/`, token, child };
    }
    if (child.process.exitCode !== null) throw new Error(`toolhost approvals serve exited: ${child.stderr()}`);
    await delay(20);
  }
}

/** Headless Chromium (Debian's), in a new empty profile; the caller closes it (once per file: a start costs about a second). */
export async function browser(): Promise<BrowserContext> {
  // Inside the test's home, removed with it once the file's own afterAll closed the browser.
  const profile = mkdtempSync(join(TEST_HOME, "chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: "/usr/bin/chromium",
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
  return context;
}

/** The page open at `openUrl`, with its console errors and page errors collected. */
export async function openPage(context: BrowserContext, openUrl: string): Promise<{ page: Page; errors: string[] }> {
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(message.text());
  });
  page.on("pageerror", (error) => errors.push(error.message));
  await page.goto(openUrl);
  await page.locator("#status", { hasText: "live" }).waitFor();
  return { page, errors };
}

/** A free TCP port on 127.0.0.1. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A redis-server of the test's own; fails (never skips) when it is not installed. */
export async function startRedis(): Promise<{ url: string; port: number }> {
  const port = await freePort();
  const child = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], { stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
  const failed = new Promise<never>((_, reject) => {
    child.on("error", (error) => reject(new Error(`redis-server could not start (install the redis-server package): ${error.message}`)));
    child.on("exit", (code) => reject(new Error(`redis-server exited with ${code}: ${output}`)));
  });
  failed.catch(() => undefined);
  onCleanup(() => stop(child));
  await Promise.race([(async () => { while (!output.includes("Ready to accept connections")) await delay(20); })(), failed]);
  return { url: `redis://127.0.0.1:${port}`, port };
}

/** What a worker's last health line counts: the calls it completed and those that failed. */
export function workerCounts(worker: Child): { completed: number; failed: number; running: number } {
  const lines = worker.stdout().trim().split("\n").map((line) => JSON.parse(line) as { completed: number; failed: number; running: number });
  const { completed, failed, running } = lines[lines.length - 1] as { completed: number; failed: number; running: number };
  return { completed, failed, running };
}

/** A key for the queue's signed jobs, shared by the hosts and the workers of the test. */
export function queueKey(): string {
  return randomBytes(32).toString("hex");
}

/** `toolhost worker` in `dir`, once it says it is ready. */
export async function startWorker(dir: string, env: Record<string, string>): Promise<Child> {
  const child = start(["worker", "--queue", "calls", "--health-interval", "1"], { cwd: dir, env });
  while (!child.stdout().includes('"event":"ready"')) {
    if (child.process.exitCode !== null) throw new Error(`toolhost worker exited: ${child.stderr()}`);
    await delay(20);
  }
  return child;
}

/** Waits until `check` holds. */
export async function until(check: () => boolean): Promise<void> {
  while (!check()) await delay(25);
}

export function readJson(path: string): unknown {
  return JSON.parse(readFileSync(path, "utf8"));
}
