import { close, openSync, writev } from "node:fs";
import { rm } from "node:fs/promises";
import type { FullOutputFile } from "./_full-output.js";
import { LineRedactor } from "./_redact-lines.js";

/** Bytes queued for the file beyond which the readers are asked to pause. */
const QUEUE_LIMIT = 1024 * 1024;
/** Most chunks in one writev call. */
const BATCH = 64;
/** Writes in flight at once, each at its own offset: the thread pool overlaps them. */
const CONCURRENT_WRITES = 2;

interface Pending {
  chunk: Buffer;
  release: () => void;
}

/**
 * The whole output of a call, stdout and stderr in the order they arrived. Until `start`, it keeps
 * copies of the chunks (bounded: the captures start it once a stream passes its limit); from then
 * on each chunk is queued, still held by its pipe, and written to a private temporary file in
 * order, then released.
 */
export class Spill {
  #log: Array<{ stream: 0 | 1; chunk: Buffer }> | undefined = [];
  #queue: Pending[] = [];
  #queuedBytes = 0;
  /** Bytes taken for the file (at most `#maxBytes`), and all the bytes it was offered. */
  #keptBytes = 0;
  #offeredBytes = 0;
  readonly #maxBytes: number;
  #fd: number | undefined;
  #writing = 0;
  /** Where the next batch goes in the file. */
  #position = 0;
  #onDrain: () => void;
  #onIdle: (() => void) | undefined;
  readonly #makeFile: (() => FullOutputFile) | undefined;
  readonly #redactor: LineRedactor | undefined;
  path: string | undefined;
  /** When the file will be deleted (ISO 8601), or undefined: with the harness. */
  expiresAt: string | undefined;
  error: Error | undefined;

  /**
   * `onDrain` is called when the queue has shrunk after `record` returned false; `makeFile` names
   * the file, and without it (`keepFullOutput: false`) nothing is kept or written; `redact`, when
   * given, is applied to whole lines before they are written (if it throws, the file is not kept);
   * `maxBytes` bounds the file (what comes past it is counted, not written).
   */
  constructor(onDrain: () => void, makeFile: (() => FullOutputFile) | undefined, redact?: (text: string) => string, maxBytes = Number.POSITIVE_INFINITY) {
    this.#onDrain = onDrain;
    this.#maxBytes = maxBytes;
    this.#makeFile = makeFile;
    this.#redactor = redact ? new LineRedactor(redact) : undefined;
    if (!makeFile) this.#log = undefined;
  }

  get started(): boolean {
    return this.#log === undefined;
  }

  /** Keeps a chunk; false when the file is behind and the readers should pause until `onDrain`. */
  record(chunk: Buffer, release: () => void, stream: 0 | 1 = 0): boolean {
    if (this.#log) {
      this.#log.push({ stream, chunk: Buffer.from(chunk) });
      release();
      return true;
    }
    if (this.#fd === undefined || this.error) {
      release();
      return true;
    }
    if (this.#redactor) {
      this.#enqueue(this.#redacted(() => this.#redactor?.push(stream, chunk)), noop);
      release();
    } else this.#enqueue(chunk, release);
    this.#pump();
    return this.#queuedBytes < QUEUE_LIMIT;
  }

  #enqueue(whole: Buffer | undefined, release: () => void): void {
    if (!whole || whole.length === 0 || this.error) {
      release();
      return;
    }
    this.#offeredBytes += whole.length;
    const room = this.#maxBytes - this.#keptBytes;
    if (room <= 0) {
      release();
      return;
    }
    const chunk = whole.length > room ? whole.subarray(0, room) : whole;
    this.#keptBytes += chunk.length;
    this.#queue.push({ chunk, release });
    this.#queuedBytes += chunk.length;
  }

  /** When the file was cut at its bound: the bytes it holds and the bytes the output had. */
  get cut(): { keptBytes: number; totalBytes: number } | undefined {
    return this.#offeredBytes > this.#keptBytes ? { keptBytes: this.#keptBytes, totalBytes: this.#offeredBytes } : undefined;
  }

  /** Removes the file (the result does not name it, so nobody needs it). */
  async discard(): Promise<void> {
    if (this.path) await rm(this.path, { force: true }).catch(() => {});
  }

  /** The redactor's output; its failure fails the file (never written unredacted). */
  #redacted(run: () => Buffer | undefined): Buffer | undefined {
    try {
      return run();
    } catch (error) {
      this.#fail(new Error(`the redact hook failed on it: ${(error as Error)?.message ?? String(error)}`));
      return undefined;
    }
  }

  /** Opens the file and queues what was kept so far. */
  start(): void {
    const log = this.#log ?? [];
    this.#log = undefined;
    if (!this.#makeFile || this.path !== undefined) return;
    try {
      const file = this.#makeFile();
      this.path = file.path;
      this.expiresAt = file.expiresAt;
      // Output can hold secrets: the file is the user's alone.
      this.#fd = openSync(this.path, "wx", 0o600);
    } catch (error) {
      this.error = error as Error;
      return;
    }
    for (const { stream, chunk } of log) {
      this.#enqueue(this.#redactor ? this.#redacted(() => this.#redactor?.push(stream, chunk)) : chunk, noop);
    }
    this.#pump();
  }

  #pump(): void {
    if (this.#fd === undefined) return;
    while (this.#writing < CONCURRENT_WRITES && this.#queue.length > 0) {
      const batch = this.#queue.splice(0, BATCH);
      const at = this.#position;
      for (const { chunk } of batch) this.#position += chunk.length;
      this.#writing += 1;
      this.#write(this.#fd, batch, at, 0);
    }
    if (this.#writing === 0 && this.#queue.length === 0) this.#onIdle?.();
  }

  /** Writes the batch, which starts at `at` in the file, from `skip` bytes in (writev may write less than asked). */
  #write(fd: number, batch: Pending[], at: number, skip: number): void {
    const buffers: Buffer[] = [];
    let left = skip;
    for (const { chunk } of batch) {
      if (left >= chunk.length) {
        left -= chunk.length;
        continue;
      }
      buffers.push(left > 0 ? chunk.subarray(left) : chunk);
      left = 0;
    }
    writev(fd, buffers, at + skip, (error, written) => {
      const total = buffers.reduce((sum, buffer) => sum + buffer.length, 0);
      if (!error && written < total) {
        this.#write(fd, batch, at, skip + written);
        return;
      }
      this.#writing -= 1;
      const wasFull = this.#queuedBytes >= QUEUE_LIMIT;
      for (const pending of batch) {
        this.#queuedBytes -= pending.chunk.length;
        pending.release();
      }
      if (error) this.#fail(error);
      if (wasFull && this.#queuedBytes < QUEUE_LIMIT) this.#onDrain();
      this.#pump();
    });
  }

  #fail(error: Error): void {
    this.error ??= error;
    for (const pending of this.#queue.splice(0)) {
      this.#queuedBytes -= pending.chunk.length;
      pending.release();
    }
  }

  /** Writes what is queued and closes the file. */
  async finish(): Promise<void> {
    this.#log = undefined;
    const fd = this.#fd;
    if (fd === undefined) return;
    for (const stream of [0, 1] as const) this.#enqueue(this.#redacted(() => this.#redactor?.flush(stream)), noop);
    this.#pump();
    if (this.#writing > 0 || this.#queue.length > 0) {
      await new Promise<void>((resolve) => {
        this.#onIdle = resolve;
        this.#pump();
      });
    }
    this.#fd = undefined;
    await new Promise<void>((resolve) => close(fd, () => resolve()));
    // A file that is not whole would mislead: it goes, and the result says it could not be saved.
    if (this.error && this.path) await rm(this.path, { force: true }).catch(() => {});
  }
}

const noop = (): void => {};
