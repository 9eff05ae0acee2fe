import type { Readable, Writable } from "node:stream";
import { type JSONRPCMessage, type JSONRPCRequest, type Transport, serializeMessage } from "@modelcontextprotocol/server";
import { type Batch, InboundMessages } from "./_inbound.js";
import type { MessageId } from "@toolhost/mcp-wire";
import { DISCARD_BYTES, type ResolvedLimits } from "./limits.js";
import { LineReader } from "@toolhost/mcp-wire";

/**
 * Told by the `tools/call` handler when it starts and ends, so that a cancelled call keeps its slot
 * until it has really stopped (the SDK sends no answer for a cancelled request).
 */
export interface CallTracker {
  started(id: MessageId): void;
  ended(id: MessageId): void;
}

interface InFlight {
  cancelled: boolean;
  batch: Batch | undefined;
}

interface Queued {
  message: JSONRPCRequest;
  batch: Batch | undefined;
  bytes: number;
}

const swallowing = new WeakSet<Writable>();

/**
 * MCP over a client's stdin and stdout, bounded: at most `maxInFlight` requests are served at once
 * (a request holds its slot until its answer is written out), up to `maxInFlight` more wait read
 * but not delivered, and past that stdin is not read, so a client that pipelines is slowed down instead of
 * buffered. Notifications and the client's answers are read through, so a cancellation or an
 * answer to a question still arrives while every slot is taken. Output the client has not read
 * beyond `maxOutputBytes` stops the reading too, and progress notifications are dropped meanwhile.
 */
export class BoundedStdioWire implements Transport, CallTracker {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  readonly #reader: LineReader;
  readonly #inFlight = new Map<MessageId, InFlight>();
  readonly #queue: Queued[] = [];
  readonly #running = new Set<MessageId>();
  readonly #inbound: InboundMessages;
  #queuedBytes = 0;
  #version: string | undefined;
  #closed = false;
  #kicked = false;
  /** Whether this wire paused stdin (a full queue, a client not reading its output). */
  #paused = false;

  constructor(
    private readonly stdin: Readable,
    private readonly stdout: Writable,
    private readonly limits: ResolvedLimits,
    private readonly onEnded: () => void = () => {},
  ) {
    this.#reader = new LineReader(limits.maxMessageBytes, DISCARD_BYTES);
    this.#inbound = new InboundMessages({
      limits,
      version: () => this.#version,
      isTaken: (id) => this.#inFlight.has(id) || this.#queue.some((queued) => queued.message.id === id),
      request: (message, bytes, batch) => this.#enqueue(message, bytes, batch),
      notify: (message) => this.#notify(message),
      reply: (text, ids, after) => this.#write(text, ids, after),
      end: () => void this.close(),
    });
  }

  async start(): Promise<void> {
    this.stdin.on("data", this.#onData);
    this.stdin.on("end", this.#onEnd);
    this.stdin.on("close", this.#onEnd);
    this.stdin.on("error", this.#onError);
    this.stdout.on("error", this.#onError);
    this.stdout.on("drain", this.#kick);
    if (!swallowing.has(this.stdout)) {
      // A write that fails after the connection closed (EPIPE) must not become an uncaught 'error'.
      swallowing.add(this.stdout);
      this.stdout.on("error", () => {});
    }
    if (this.stdin.readableEnded || this.stdin.destroyed) setImmediate(this.#onEnd);
  }

  setProtocolVersion(version: string): void {
    this.#version = version;
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (this.#closed) throw new Error("the MCP client has gone: its stdio is closed");
    if ("method" in message) {
      if (message.method === "notifications/progress" && this.#backlogged()) return; // the client is not reading: progress is advisory
      this.#write(serializeMessage(message), []);
      return;
    }
    const id = message.id;
    const entry = id === undefined ? undefined : this.#inFlight.get(id);
    if (entry?.batch && id !== undefined) entry.batch.answer(id, message);
    else this.#write(serializeMessage(message), entry && id !== undefined ? [id] : []);
  }

  started(id: MessageId): void {
    this.#running.add(id);
  }

  ended(id: MessageId): void {
    this.#running.delete(id);
    if (this.#inFlight.get(id)?.cancelled) this.#release(id);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.stdin.off("data", this.#onData);
    this.stdin.off("end", this.#onEnd);
    this.stdin.off("close", this.#onEnd);
    this.stdin.off("error", this.#onError);
    this.stdout.off("error", this.#onError);
    this.stdout.off("drain", this.#kick);
    this.stdin.pause();
    this.onclose?.();
    this.onEnded();
  }

  readonly #onData = (chunk: Buffer): void => {
    this.#reader.push(chunk);
    this.#pump();
  };

  readonly #onEnd = (): void => void this.close();

  readonly #onError = (error: Error): void => {
    this.onerror?.(error);
    void this.close();
  };

  /**
   * Runs the reading again soon (a slot was freed, the client read its output), when something
   * waits for it: a queued request, or stdin this wire paused. Otherwise there is nothing to pump.
   */
  readonly #kick = (): void => {
    if (this.#kicked || this.#closed || (this.#queue.length === 0 && !this.#paused)) return;
    this.#kicked = true;
    queueMicrotask(() => {
      this.#kicked = false;
      this.#pump();
    });
  };

  /** Delivers what waits while slots are free, reads lines while there is room, then sets the flow. */
  #pump(): void {
    try {
      while (!this.#closed && !this.#backlogged()) {
        this.#deliverQueued();
        if (this.#queueFull()) break;
        const event = this.#reader.next();
        if (event === undefined) break;
        this.#inbound.read(event);
      }
    } catch (error) {
      this.#onError(error instanceof Error ? error : new Error(String(error)));
      return;
    }
    if (this.#closed) return;
    const pause = this.#backlogged() || this.#queueFull();
    if (pause === this.#paused) return;
    this.#paused = pause;
    if (pause) this.stdin.pause();
    else this.stdin.resume();
  }

  #backlogged(): boolean {
    return this.stdout.writableLength > this.limits.maxOutputBytes;
  }

  #queueFull(): boolean {
    return this.#queue.length >= this.limits.maxInFlight || this.#queuedBytes >= this.limits.maxMessageBytes;
  }

  #enqueue(message: JSONRPCRequest, bytes: number, batch: Batch | undefined): void {
    this.#queue.push({ message, batch, bytes });
    this.#queuedBytes += bytes;
    this.#deliverQueued();
  }

  #deliverQueued(): void {
    while (this.#queue.length > 0 && this.#inFlight.size < this.limits.maxInFlight) {
      const { message, batch, bytes } = this.#queue.shift() as Queued;
      this.#queuedBytes -= bytes;
      this.#inFlight.set(message.id, { cancelled: false, batch });
      this.onmessage?.(message);
    }
  }

  #notify(message: JSONRPCMessage): void {
    if ("method" in message && message.method === "notifications/cancelled") {
      const id = (message.params as { requestId?: MessageId } | undefined)?.requestId;
      if (id !== undefined) this.#cancel(id);
    }
    this.onmessage?.(message);
  }

  /** A cancelled request: dropped if it still waits; else its slot is freed once its handler stopped. */
  #cancel(id: MessageId): void {
    const waiting = this.#queue.findIndex((queued) => queued.message.id === id);
    if (waiting !== -1) {
      const [queued] = this.#queue.splice(waiting, 1) as [Queued];
      this.#queuedBytes -= queued.bytes;
      queued.batch?.forget(id);
      return;
    }
    const entry = this.#inFlight.get(id);
    if (!entry || entry.cancelled) return;
    entry.cancelled = true;
    entry.batch?.forget(id);
    // The SDK starts a handler in a microtask: by the next turn it is running (and tracked) or never will.
    setImmediate(() => {
      if (!this.#running.has(id)) this.#release(id);
    });
  }

  #release(id: MessageId): void {
    if (this.#inFlight.delete(id)) this.#kick();
  }

  /** Writes a line; the requests it answers keep their slots until it has been handed to the OS. */
  #write(text: string, ids: MessageId[], after?: () => void): void {
    const done = (): void => {
      for (const id of ids) this.#release(id);
      after?.();
    };
    if (text === "") queueMicrotask(done);
    else this.stdout.write(text, done);
  }
}
