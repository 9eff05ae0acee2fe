import { spawn } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { trustFolder } from "@toolhost/core/config";
import { afterAll } from "vitest";

const here = dirname(fileURLToPath(import.meta.url));
/** The built CLI, as users run it. */
export const BIN = join(here, "..", "dist", "bin.js");
export const CLI_DIR = join(here, "..");
export const FIXTURES = join(here, "fixtures");
/** The bound vitest.config.ts gives each test: a process a test started is not kept past it. */
export const TEST_BOUND_MS = 600_000;
const CORE = realpathSync(join(CLI_DIR, "node_modules", "@toolhost", "core"));

/**
 * The user's config folder and the managed config folder of everything this test file runs (the
 * test process itself and the CLIs it starts, through the environment): fresh and empty, so no
 * config, trusted folder or token of the machine's user counts, and none is left behind.
 */
export const TEST_HOME = realpathSync(mkdtempSync(join(tmpdir(), "toolhost-test-home-")));
export const USER_CONFIG_DIR = join(TEST_HOME, "config", "toolhost");
export const MANAGED_CONFIG_DIR = join(TEST_HOME, "managed");
/** The variables that point there, for a child started with an environment of its own. */
export const TEST_ENV = { XDG_CONFIG_HOME: join(TEST_HOME, "config"), TOOLHOST_MANAGED_CONFIG_DIR: MANAGED_CONFIG_DIR };
Object.assign(process.env, TEST_ENV);
// After the file's own afterAll hooks (vitest runs them last registered first): its servers are down.
afterAll(() => rmSync(TEST_HOME, { recursive: true, force: true }));

/**
 * Trusts `dir` as the user would (\`toolhost trust\`), for the tests whose project runs code of
 * its own (a plugin by path, a JS config): since trusted folders, code loads only from those.
 */
export function trust(dir: string): string {
  trustFolder(dir, process.env);
  return dir;
}
const TYPEBOX = realpathSync(join(CORE, "node_modules", "@sinclair", "typebox"));

export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs the built `toolhost` with `args` in `cwd`, feeding `input` on stdin. */
export function toolhost(
  args: string[],
  options: { cwd: string; input?: string; env?: Record<string, string | undefined>; prefix?: string[] },
): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const env = { ...process.env, FORCE_COLOR: undefined, NO_COLOR: undefined, ...options.env };
    // A prefix runs the CLI under another program (`unshare --mount … exec "$@"`: a machine changed for the test).
    const [file, ...rest] = [...(options.prefix ?? []), process.execPath, BIN, ...args] as [string, ...string[]];
    const child = spawn(file, rest, { cwd: options.cwd, env, stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.on("error", reject);
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr }));
    child.stdin.end(options.input ?? "");
  });
}

/** A fresh temporary folder (real path), removed by the returned cleanup. */
export function tempDir(prefix = "toolhost-cli-"): string {
  return realpathSync(mkdtempSync(join(tmpdir(), prefix)));
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

/**
 * A project folder with `node_modules/@toolhost/core` and `@sinclair/typebox` linked in (so local
 * plugins can import them) and the test plugins copied to `plugins/`, in a folder the user trusts
 * (unless `trusted: false`).
 */
export function project(dir: string, { trusted = true }: { trusted?: boolean } = {}): string {
  mkdirSync(join(dir, "node_modules", "@toolhost"), { recursive: true });
  mkdirSync(join(dir, "node_modules", "@sinclair"), { recursive: true });
  symlinkSync(CORE, join(dir, "node_modules", "@toolhost", "core"), "dir");
  symlinkSync(TYPEBOX, join(dir, "node_modules", "@sinclair", "typebox"), "dir");
  cpSync(FIXTURES, join(dir, "plugins"), { recursive: true });
  // The project's own plugins are code: the test's user trusts the folder, as docs/trust.md says.
  return trusted ? trust(dir) : dir;
}

/** Writes a file, creating its folders. */
export function writeFile(path: string, text: string): string {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  return path;
}

/** Writes `toolhost.config.json` with these plugins into `dir`. */
export function writeConfig(dir: string, config: Record<string, unknown>): string {
  return writeFile(join(dir, "toolhost.config.json"), `${JSON.stringify(config, null, 2)}\n`);
}

/** The lines of JSON-lines output, parsed. */
export function jsonLines(text: string): unknown[] {
  return text
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as unknown);
}

/** One step of a terminal session: wait until the output shows `waitFor`, then type `send`. */
export interface TerminalStep {
  waitFor: string | RegExp;
  send: string;
  /** Wait this long (ms) after seeing `waitFor` before typing. */
  delayMs?: number;
}

/**
 * Runs the built `toolhost` in a real pseudo-terminal (util-linux `script`), so that stdin and
 * stderr are TTYs, typing each step's keys once its text shows. Output is the terminal's (stdout
 * and stderr together, with `\r\n`). Fails, never skips, when `script` is missing.
 */
export function inTerminal(
  args: string[],
  options: { cwd: string; steps?: TerminalStep[]; env?: Record<string, string | undefined>; timeoutMs?: number },
): Promise<{ code: number | null; output: string }> {
  const quote = (word: string): string => `'${word.replace(/'/g, "'\\''")}'`;
  // A pseudo-terminal starts with no size; prompts need columns to lay out their lines.
  const command = `stty cols 120 rows 40; exec ${[process.execPath, BIN, ...args].map(quote).join(" ")}`;
  return new Promise((resolve, reject) => {
    const env = { ...process.env, FORCE_COLOR: undefined, NO_COLOR: "1", TERM: "xterm", ...options.env };
    const child = spawn("script", ["-qec", command, "/dev/null"], { cwd: options.cwd, env, stdio: ["pipe", "pipe", "pipe"] });
    const steps = [...(options.steps ?? [])];
    let output = "";
    let seenUpTo = 0;
    // Only so that nothing outlives a test that failed: as long as the test's own generous bound.
    const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? TEST_BOUND_MS);
    const next = (): void => {
      const step = steps[0];
      if (!step) return;
      const rest = output.slice(seenUpTo);
      const at = typeof step.waitFor === "string" ? rest.indexOf(step.waitFor) : rest.search(step.waitFor);
      if (at < 0) return;
      steps.shift();
      seenUpTo += at + 1;
      setTimeout(() => {
        child.stdin.write(step.send);
        next();
      }, step.delayMs ?? 50);
    };
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      output += chunk;
      next();
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}
