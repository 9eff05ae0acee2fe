import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { once } from "node:events";
import { type JSONRPCMessage, type Transport, serializeMessage } from "@modelcontextprotocol/client";
import { McpErrorCode } from "./errors.js";
import { type Fault, faultAnswer } from "./_faults.js";
import type { MessageId } from "@toolhost/mcp-wire";
import { LineReader } from "@toolhost/mcp-wire";
import { ServerOutput } from "./_server-output.js";

const STDERR_TAIL = 4096;
const KILL_GRACE_MS = 2000;
/** A line that runs on this far past `maxMessageBytes` without an end stops the server. */
export const DISCARD_BYTES = 64 * 1024 * 1024;
/** The server's requests to us (pings) answered but not yet read by it, past which it is not read. */
const MAX_THEIR_REQUESTS = 64;

/** The process groups of every server still running, ended when Node exits whatever the reason. */
const liveGroups = new Set<number>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // `exit` runs on process.exit (the CLI's second Ctrl-C, its normal end) and on a normal end of
  // the event loop; only synchronous work is possible there, and a kill is synchronous.
  process.on("exit", () => {
    for (const group of liveGroups) killGroup(group, "SIGKILL");
  });
}

function killGroup(group: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-group, signal);
  } catch {
    // ESRCH: the group is gone.
  }
}

export interface ProcessSpec {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
}

/**
 * MCP over a child process's stdin and stdout. The server runs in a process group of its own, so
 * closing ends its whole tree (stdin closed, SIGTERM, then SIGKILL after a grace period), and so
 * does Node's exit. The last 4 KiB of its stderr are kept for error messages. What it writes is
 * read through `ServerOutput`, bounded by `maxMessageBytes`; nothing it sends, and no failure of
 * its pipes, becomes an exception.
 */
export class ProcessTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  #child: ChildProcessWithoutNullStreams | undefined;
  #exited: Promise<void> | undefined;
  #stderr = "";
  #closing = false;
  #drained: Promise<void> | undefined;
  readonly #reader: LineReader;
  readonly #output: ServerOutput;
  /** The requests of ours that wait for an answer. */
  readonly #pending = new Set<MessageId>();
  /** The server's requests to us whose answer it has not read yet. */
  readonly #theirs = new Set<MessageId>();
  /** How the process ended, once it has. */
  exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  /** Why the transport stopped the server, when it did (something it sent). */
  fault: Fault | undefined;

  constructor(
    private readonly spec: ProcessSpec,
    private readonly maxMessageBytes: number,
  ) {
    this.#reader = new LineReader(maxMessageBytes, DISCARD_BYTES);
    this.#output = new ServerOutput(
      {
        deliver: (message) => this.#deliver(message),
        isPending: (id) => this.#pending.has(id),
        hasPending: () => this.#pending.size > 0,
        fail: (id, fault) => this.#fail(id, fault),
        end: (fault) => this.#end(fault),
      },
      maxMessageBytes,
      DISCARD_BYTES,
    );
  }

  /** The end of what the server wrote on stderr. */
  get stderrTail(): string {
    return this.#stderr.trim();
  }

  /** Bytes of a message the server began on stdout and has not ended (it was cut off, if it exited). */
  get unfinishedBytes(): number {
    return this.#reader.partialBytes;
  }

  /** Whether the process can still be sent to (not exited, not being stopped). */
  get running(): boolean {
    return this.#child !== undefined && this.exit === undefined && !this.#closing;
  }

  get pid(): number | undefined {
    return this.#child?.pid;
  }

  async start(): Promise<void> {
    installExitHook();
    const child = spawn(this.spec.command, this.spec.args, {
      cwd: this.spec.cwd,
      env: this.spec.env,
      stdio: ["pipe", "pipe", "pipe"],
      detached: true,
      windowsHide: true,
    });
    this.#child = child;
    this.#exited = once(child, "close").then(() => undefined, () => undefined);
    this.#listen(child);
    await new Promise<void>((resolve, reject) => {
      child.once("spawn", () => resolve());
      child.once("error", (error) => reject(error));
    });
    if (child.pid !== undefined) liveGroups.add(child.pid);
  }

  #listen(child: ChildProcessWithoutNullStreams): void {
    const report = (error: Error): void => this.onerror?.(error);
    // Every stream and the process itself get an 'error' listener: an unheard one would throw.
    child.on("error", report);
    child.stdin.on("error", report);
    child.stdout.on("error", report);
    child.stderr.on("error", report);
    child.stdout.on("data", (chunk: Buffer) => this.#read(chunk, child));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      this.#stderr = (this.#stderr + chunk).slice(-STDERR_TAIL);
    });
    child.on("exit", (code, signal) => {
      this.exit = { code, signal };
      // Read what is left to its end, so that 'close' comes and the waiting calls hear of it.
      child.stdout.resume();
    });
    child.on("close", () => {
      if (child.pid !== undefined) {
        // The leader is gone; anything it left in its group goes too.
        killGroup(child.pid, "SIGKILL");
        liveGroups.delete(child.pid);
      }
      this.#pending.clear();
      this.onclose?.();
    });
  }

  #read(chunk: Buffer, child: ChildProcessWithoutNullStreams): void {
    try {
      this.#reader.push(chunk);
      for (let event = this.#reader.next(); event !== undefined; event = this.#reader.next()) this.#output.read(event);
    } catch (error) {
      this.#end({ code: McpErrorCode.CALL_FAILED, text: `could not be read (${error instanceof Error ? error.message : String(error)}), so it was stopped; it is started again on the next call` });
      return;
    }
    // A server that floods us with requests (pings) and does not read our answers is not read
    // either until it does: what we hold for it stays bounded.
    if ((this.#theirs.size >= MAX_THEIR_REQUESTS || child.stdin.writableLength > this.maxMessageBytes) && !child.stdout.isPaused()) {
      child.stdout.pause();
    }
  }

  /** Reads the server again once it has read most of what we wrote to it. */
  #resumeIfRead(child: ChildProcessWithoutNullStreams): void {
    if (child.stdout.isPaused() && this.#theirs.size < MAX_THEIR_REQUESTS / 2 && child.stdin.writableLength <= this.maxMessageBytes) child.stdout.resume();
  }

  #deliver(message: JSONRPCMessage): void {
    if (!("method" in message)) {
      if (message.id !== undefined) this.#pending.delete(message.id);
    } else if ("id" in message && message.id !== undefined) {
      this.#theirs.add(message.id);
    } else if (message.method === "notifications/cancelled") {
      const id = (message.params as { requestId?: MessageId } | undefined)?.requestId;
      if (id !== undefined) this.#theirs.delete(id);
    }
    this.onmessage?.(message);
  }

  #fail(id: MessageId, fault: Fault): void {
    this.#pending.delete(id);
    this.onmessage?.(faultAnswer(id, fault));
  }

  #end(fault: Fault): void {
    if (this.#closing) return;
    this.fault = fault;
    for (const id of [...this.#pending]) this.#fail(id, fault);
    this.close().catch((error: unknown) => this.onerror?.(error instanceof Error ? error : new Error(String(error))));
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const child = this.#child;
    if (!child || this.exit || this.#closing) throw new Error("the server process is not running");
    if ("method" in message) {
      if ("id" in message && message.id !== undefined) this.#pending.add(message.id);
      const cancelled = message.method === "notifications/cancelled" ? (message.params as { requestId?: MessageId } | undefined)?.requestId : undefined;
      if (cancelled !== undefined) this.#pending.delete(cancelled);
    }
    const answered = "method" in message ? undefined : message.id;
    const written = (): void => {
      if (answered !== undefined) this.#theirs.delete(answered);
      this.#resumeIfRead(child);
    };
    if (!child.stdin.write(serializeMessage(message), written)) await this.#drain(child);
  }

  /** One wait for the server to read what was written, shared by every sender (one listener, not one each). */
  #drain(child: ChildProcessWithoutNullStreams): Promise<void> {
    this.#drained ??= new Promise<void>((resolve) => {
      const done = (): void => {
        child.stdin.off("drain", done);
        child.off("close", done);
        this.#drained = undefined;
        resolve();
      };
      child.stdin.on("drain", done);
      child.on("close", done);
    });
    return this.#drained;
  }

  /** Ends the server's whole process tree and waits for the process to be gone. */
  async close(): Promise<void> {
    const child = this.#child;
    if (!child || child.pid === undefined) return;
    this.#closing = true;
    const group = child.pid;
    child.stdin.end();
    if (!this.exit) killGroup(group, "SIGTERM");
    const timer = setTimeout(() => killGroup(group, "SIGKILL"), KILL_GRACE_MS);
    // A process that left the group (setsid) could hold the pipes open: do not wait for it forever.
    await Promise.race([this.#exited, new Promise((resolve) => setTimeout(resolve, 2 * KILL_GRACE_MS).unref())]);
    clearTimeout(timer);
    killGroup(group, "SIGKILL");
    liveGroups.delete(group);
  }
}
