import type { Socket } from "node:net";

/**
 * Reads a client's handshake from its socket, a few bytes at a time, and then hands the socket
 * over (paused, with what came after the handshake) to be piped. Every read is bounded.
 */
export class HandshakeReader {
  readonly #socket: Socket;
  #buffer: Buffer = Buffer.alloc(0);
  #ended = false;
  #wake: (() => void) | undefined;
  readonly #onData = (chunk: Buffer): void => {
    this.#buffer = this.#buffer.length === 0 ? chunk : Buffer.concat([this.#buffer, chunk]);
    this.#notify();
  };
  readonly #onEnd = (): void => {
    this.#ended = true;
    this.#notify();
  };

  constructor(socket: Socket) {
    this.#socket = socket;
    socket.on("data", this.#onData);
    socket.once("end", this.#onEnd);
    socket.once("close", this.#onEnd);
  }

  /** Exactly `count` bytes, or undefined when the client ends first. */
  async take(count: number): Promise<Buffer | undefined> {
    while (this.#buffer.length < count) {
      if (this.#ended) return undefined;
      await this.#next();
    }
    const taken = this.#buffer.subarray(0, count);
    this.#buffer = this.#buffer.subarray(count);
    return taken;
  }

  /** The bytes up to and with `marker`; undefined when the client ends first or sends more than `limit` without it. */
  async until(marker: string, limit: number): Promise<Buffer | undefined> {
    for (;;) {
      const at = this.#buffer.indexOf(marker);
      if (at >= 0) return this.take(at + marker.length);
      if (this.#ended || this.#buffer.length > limit) return undefined;
      await this.#next();
    }
  }

  /** Stops reading: the socket is paused, and what came after the handshake is returned, to be sent on first. */
  detach(): Buffer {
    this.#socket.pause();
    this.#socket.off("data", this.#onData);
    this.#socket.off("end", this.#onEnd);
    this.#socket.off("close", this.#onEnd);
    return this.#buffer;
  }

  #next(): Promise<void> {
    return new Promise((resolve) => {
      this.#wake = resolve;
    });
  }

  #notify(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }
}
