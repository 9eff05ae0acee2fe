import { Client, StreamableHTTPClientTransport, type CallToolResult, type Tool, type Transport } from "@modelcontextprotocol/client";
import { getDefaultEnvironment } from "@modelcontextprotocol/client/stdio";
import { messageOf } from "@toolhost/core";
import { McpErrorCode } from "./errors.js";
import { faultOf } from "./_faults.js";
import { boundedFetch } from "./_http-bounds.js";
import type { ServerSpec } from "./options.js";
import { ProcessTransport } from "./_process-transport.js";

/** Why a server could not start: which, why, after how long, and what it printed on stderr. */
export class ServerStartError extends Error {
  readonly code = McpErrorCode.SERVER_FAILED;

  constructor(
    readonly server: string,
    readonly reason: string,
    readonly ms: number,
    readonly stderr: string,
  ) {
    super(`MCP server "${server}" did not start (after ${(ms / 1000).toFixed(1)} s): ${reason}${stderr ? `\n  its stderr ended with:\n${indent(stderr)}` : ""}`);
  }
}

function indent(text: string): string {
  return text
    .split("\n")
    .slice(-12)
    .map((line) => `    ${line}`)
    .join("\n");
}

/** What a server's process had done when a call of it failed. */
export interface ServerState {
  exit: ProcessTransport["exit"];
  stderrTail: string;
  /** Bytes of a message it began and did not end. */
  unfinishedBytes: number;
}

/** A call that failed, with the state of the server it was sent to (not of one started since). */
export class CallFailure extends Error {
  constructor(
    readonly error: unknown,
    readonly server: ServerState,
  ) {
    super(messageOf(error));
  }
}

/** How long a server has to start, and the longest message it may send. */
export interface ConnectionLimits {
  startupTimeoutMs: number;
  maxMessageBytes: number;
}

export interface CallOptions {
  signal: AbortSignal;
  timeoutMs: number | undefined;
  onProgress: (message: string | undefined, progress: number, total: number | undefined) => void;
  /** What the call hands on to the server in `_meta` (its trace context), beside the SDK's own `progressToken`. */
  meta?: Readonly<Record<string, string>>;
}

/**
 * One MCP server: started and listed at load, called by the tools, restarted on the next call after
 * it stopped, and ended on `close`.
 */
export class McpConnection {
  #client: Client | undefined;
  #transport: Transport | undefined;
  #starting: Promise<Client> | undefined;
  #closed = false;

  constructor(
    readonly name: string,
    private readonly spec: ServerSpec,
    private readonly cwd: string,
    private readonly limits: ConnectionLimits,
    private readonly version: string,
  ) {}

  /** Whether the server is a child process (stdio). */
  get isProcess(): boolean {
    return "command" in this.spec;
  }

  /** What the server printed on stderr lately (stdio servers). */
  get stderrTail(): string {
    return this.#transport instanceof ProcessTransport ? this.#transport.stderrTail : "";
  }

  /** How the server process ended, if it did. */
  get exit(): ProcessTransport["exit"] {
    return this.#transport instanceof ProcessTransport ? this.#transport.exit : undefined;
  }

  /** Starts the server and lists its tools, within the startup timeout. */
  async start(): Promise<Tool[]> {
    const started = performance.now();
    try {
      const client = await this.#connect();
      const { tools } = await client.listTools(undefined, { timeout: this.limits.startupTimeoutMs });
      return tools;
    } catch (error) {
      const ms = performance.now() - started;
      const stderr = this.stderrTail;
      await this.close();
      throw new ServerStartError(this.name, this.#startReason(error, ms), ms, stderr);
    }
  }

  #startReason(error: unknown, ms: number): string {
    const fault = faultOf(error);
    if (fault) return `the server ${fault.text}`;
    const message = messageOf(error);
    if (ms >= this.limits.startupTimeoutMs - 50 || /timed? ?out/i.test(message)) {
      return `it did not answer initialize within ${this.limits.startupTimeoutMs / 1000} s (startupTimeout)`;
    }
    const exit = this.exit;
    if (exit) return `its process exited (${exit.signal ? `signal ${exit.signal}` : `exit code ${exit.code}`}) before it was ready: ${message}`;
    return message;
  }

  /** The connected client: the running one, or a new connection after the server stopped. */
  #connect(): Promise<Client> {
    if (this.#closed) return Promise.reject(new Error(`MCP server "${this.name}" was stopped (the harness was disposed).`));
    // A process that exited or that the transport is stopping (for what it sent) is replaced at
    // once, not only when its pipes have closed: a call right after must not meet the old one.
    if (this.#client && this.#transport instanceof ProcessTransport && !this.#transport.running) {
      void this.#client.close().catch(() => {});
      this.#client = undefined;
    }
    if (this.#client) return Promise.resolve(this.#client);
    this.#starting ??= this.#open().finally(() => {
      this.#starting = undefined;
    });
    return this.#starting;
  }

  async #open(): Promise<Client> {
    const transport = this.#makeTransport();
    this.#transport = transport;
    const client = new Client({ name: "toolhost", version: this.version }, { capabilities: {} });
    client.onclose = () => {
      if (this.#client === client) this.#client = undefined;
    };
    client.onerror = () => {
      // Reported through the failing request; a stray protocol error alone changes nothing.
    };
    let timer: NodeJS.Timeout | undefined;
    try {
      // The SDK's own timeout covers the initialize request; the race also covers a spawn or a
      // connection that never settles.
      await Promise.race([
        client.connect(transport, { timeout: this.limits.startupTimeoutMs }),
        new Promise<never>((_resolve, reject) => {
          timer = setTimeout(() => reject(new Error(`timed out after ${this.limits.startupTimeoutMs} ms`)), this.limits.startupTimeoutMs);
        }),
      ]);
    } catch (error) {
      await transport.close().catch(() => {});
      throw error;
    } finally {
      clearTimeout(timer);
    }
    this.#client = client;
    return client;
  }

  #makeTransport(): Transport {
    if ("url" in this.spec) {
      return new StreamableHTTPClientTransport(new URL(this.spec.url), {
        requestInit: { headers: this.spec.headers ?? {} },
        fetch: boundedFetch(this.limits.maxMessageBytes),
      });
    }
    return new ProcessTransport(
      {
        command: this.spec.command,
        args: this.spec.args ?? [],
        env: { ...getDefaultEnvironment(), ...this.spec.env },
        cwd: this.spec.cwd ?? this.cwd,
      },
      this.limits.maxMessageBytes,
    );
  }

  /**
   * Calls a tool by the server's own name; restarts a server that stopped since the last call.
   * Rejects with a `CallFailure` that carries the state of the server the call went to.
   */
  async call(tool: string, args: Record<string, unknown>, options: CallOptions): Promise<CallToolResult> {
    let transport: Transport | undefined;
    try {
      const client = await this.#connect();
      transport = this.#transport;
      const meta = options.meta && Object.keys(options.meta).length > 0 ? { _meta: { ...options.meta } } : {};
      return (await client.callTool(
        { name: tool, arguments: args, ...meta },
        {
          signal: options.signal,
          ...(options.timeoutMs !== undefined ? { timeout: options.timeoutMs } : { timeout: 2 ** 31 - 1 }),
          onprogress: (progress) => options.onProgress(progress.message, progress.progress, progress.total),
        },
      )) as CallToolResult;
    } catch (error) {
      const used = transport ?? this.#transport;
      const child = used instanceof ProcessTransport ? used : undefined;
      throw new CallFailure(error, { exit: child?.exit, stderrTail: child?.stderrTail ?? "", unfinishedBytes: child?.unfinishedBytes ?? 0 });
    }
  }

  /** Ends the connection and, for stdio servers, the process tree. */
  async close(): Promise<void> {
    this.#closed = true;
    const client = this.#client;
    this.#client = undefined;
    await client?.close().catch(() => {});
    await this.#transport?.close().catch(() => {});
  }
}
