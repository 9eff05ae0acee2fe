import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { once } from "node:events";
import { ReadBuffer, type JSONRPCMessage, type Transport, serializeMessage } from "@modelcontextprotocol/client";

const STDERR_TAIL = 4096;
const KILL_GRACE_MS = 2000;

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
 * does Node's exit. The last 4 KiB of its stderr are kept for error messages.
 */
export class ProcessTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  #child: ChildProcessWithoutNullStreams | undefined;
  #exited: Promise<void> | undefined;
  readonly #buffer = new ReadBuffer();
  #stderr = "";
  /** How the process ended, once it has. */
  exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;

  constructor(private readonly spec: ProcessSpec) {}

  /** The end of what the server wrote on stderr. */
  get stderrTail(): string {
    return this.#stderr.trim();
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
    child.stdout.on("data", (chunk: Buffer) => this.#read(chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      this.#stderr = (this.#stderr + chunk).slice(-STDERR_TAIL);
    });
    child.stdin.on("error", (error) => this.onerror?.(error));
    child.on("exit", (code, signal) => {
      this.exit = { code, signal };
    });
    child.on("close", () => {
      if (child.pid !== undefined) {
        // The leader is gone; anything it left in its group goes too.
        killGroup(child.pid, "SIGKILL");
        liveGroups.delete(child.pid);
      }
      this.onclose?.();
    });
    await new Promise<void>((resolve, reject) => {
      child.once("spawn", () => resolve());
      child.once("error", (error) => reject(error));
    });
    if (child.pid !== undefined) liveGroups.add(child.pid);
  }

  #read(chunk: Buffer): void {
    this.#buffer.append(chunk);
    for (;;) {
      let message: JSONRPCMessage | null;
      try {
        message = this.#buffer.readMessage();
      } catch (error) {
        this.onerror?.(error instanceof Error ? error : new Error(String(error)));
        continue;
      }
      if (message === null) return;
      this.onmessage?.(message);
    }
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const child = this.#child;
    if (!child || this.exit) throw new Error("the server process is not running");
    if (!child.stdin.write(serializeMessage(message))) await once(child.stdin, "drain");
  }

  /** Ends the server's whole process tree and waits for the process to be gone. */
  async close(): Promise<void> {
    const child = this.#child;
    if (!child || child.pid === undefined) return;
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
