import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
/** `serveToolsOverStdio` of the built package with tool-fs and `wait`, limits from SERVE_LIMITS. */
export const SERVE_STDIO = join(here, "fixtures", "serve-stdio.mjs");
/** The same over Streamable HTTP on a free port; prints its URL. */
export const SERVE_HTTP = join(here, "fixtures", "serve-http.mjs");

export function tempDir(): string {
  return realpathSync(mkdtempSync(join(tmpdir(), "toolhost-mcp-serve-")));
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

/** The peak resident memory of a process, in KiB (VmHWM). */
export function peakKiB(pid: number): number {
  return Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1]);
}

/** A line the server wrote: its text, and the message when it was parsed (short lines only). */
export interface RawLine {
  text: string;
  message?: Record<string, unknown> | unknown[];
}

/**
 * A JSON-RPC client over a server's stdin and stdout, raw: it writes whatever it is given (so it can
 * pipeline, batch and misbehave) and splits what comes back into lines without holding them: lines
 * over 64 KiB are kept as their first and last 200 characters.
 */
export class RawClient {
  readonly child: ChildProcessWithoutNullStreams;
  readonly lines: RawLine[] = [];
  stderr = "";
  #parts: Buffer[] = [];
  #waiters: Array<() => void> = [];
  #closed = false;
  readonly exited: Promise<number | null>;

  constructor(cwd: string, limits: Record<string, unknown> = {}) {
    this.child = spawn(process.execPath, [SERVE_STDIO], { cwd, env: { ...process.env, SERVE_LIMITS: JSON.stringify(limits) }, stdio: ["pipe", "pipe", "pipe"] });
    this.child.stdout.on("data", (chunk: Buffer) => this.#read(chunk));
    this.child.stderr.setEncoding("utf8").on("data", (chunk: string) => (this.stderr += chunk));
    this.child.stdin.on("error", () => {});
    this.exited = new Promise((resolve) =>
      this.child.on("close", (code) => {
        this.#closed = true;
        for (const waiter of this.#waiters.splice(0)) waiter();
        resolve(code);
      }),
    );
  }

  send(message: unknown): void {
    this.sendText(`${JSON.stringify(message)}\n`);
  }

  sendText(text: string | Buffer): void {
    this.child.stdin.write(text);
  }

  async initialize(protocolVersion = "2025-06-18"): Promise<void> {
    this.send({ jsonrpc: "2.0", id: "init", method: "initialize", params: { protocolVersion, capabilities: {}, clientInfo: { name: "raw", version: "1.0.0" } } });
    await this.until(() => this.lines.some((line) => idOf(line) === "init"), "the initialize answer");
    this.send({ jsonrpc: "2.0", method: "notifications/initialized" });
  }

  /** Waits until `check` holds, as long as lines keep coming (30 s at most without one). */
  async until(check: () => boolean, what: string): Promise<void> {
    while (!check()) {
      if (this.#closed) throw new Error(`the server exited while waiting for ${what}; stderr: ${this.stderr}`);
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`waited 30 s without a line for ${what}; stderr: ${this.stderr}`)), 30_000);
        this.#waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** The lines after the first `from` that answer `id`. */
  answersTo(id: unknown, from = 0): RawLine[] {
    return this.lines.slice(from).filter((line) => idOf(line) === id);
  }

  async close(): Promise<number | null> {
    this.child.stdin.end();
    return this.exited;
  }

  #read(chunk: Buffer): void {
    let start = 0;
    for (let newline = chunk.indexOf(10); newline !== -1; newline = chunk.indexOf(10, start)) {
      this.#parts.push(chunk.subarray(start, newline));
      this.#line(Buffer.concat(this.#parts));
      this.#parts = [];
      start = newline + 1;
    }
    if (start < chunk.length) this.#parts.push(chunk.subarray(start));
    for (const waiter of this.#waiters.splice(0)) waiter();
  }

  #line(bytes: Buffer): void {
    if (bytes.length > 65_536) {
      this.lines.push({ text: `${bytes.subarray(0, 200).toString("utf8")}…${bytes.subarray(-200).toString("utf8")}` });
      return;
    }
    const text = bytes.toString("utf8");
    let message: RawLine["message"];
    try {
      message = JSON.parse(text) as RawLine["message"];
    } catch {
      message = undefined;
    }
    this.lines.push({ text, ...(message !== undefined ? { message } : {}) });
  }
}

/** The id a line answers: from its message, or from the end of a long line (`"id":N}`). */
export function idOf(line: RawLine): unknown {
  if (line.message && !Array.isArray(line.message)) return line.message.id;
  const match = /"id":(\d+|"[^"]*")\}$/.exec(line.text);
  return match ? JSON.parse(match[1] as string) : undefined;
}
