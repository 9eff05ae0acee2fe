import { closeSync, constants, fstatSync, openSync, unlinkSync } from "node:fs";
import { type OnReadOpts, Socket, type SocketConstructorOpts } from "node:net";
import type { Readable } from "node:stream";
import { takeFifoPair } from "./_fifos.js";

/**
 * One output stream of the command. Each chunk handed to `onChunk` is valid until its `release`
 * is called: whoever keeps it (the full-output file) releases it when done; anything else copies
 * what it needs and releases at once.
 */
export interface OutputPipe {
  start(onChunk: (chunk: Buffer, release: () => void) => void): void;
  pause(): void;
  resume(): void;
  /** Settles when the pipe is closed: the end of the output, or `destroy`. */
  readonly closed: Promise<void>;
  /** Whether it is closed now: no process holds its write end any more (or it was destroyed). */
  readonly isClosed: boolean;
  destroy(): void;
}

/** The command's stdout and stderr: the write ends to give it, and the pipes to read. */
export interface CommandOutputs {
  /** File descriptors for the child's stdout and stderr, or "pipe" to let Node make them. */
  stdio: [number | "pipe", number | "pipe"];
  /**
   * What the command's stdout and stderr are open on (`device:inode`), known here without asking
   * the command's process (which may have exited before anyone looks): undefined for Node's pipes.
   */
  files: string[] | undefined;
  /** Called once the child has started (or failed to): closes this process's copies of its ends. */
  spawned(child: { stdout: Readable | null; stderr: Readable | null }): [OutputPipe, OutputPipe];
  /** Closes everything, when the child could not be started. */
  abandon(): void;
}

const CHUNK_BYTES = 64 * 1024;
/** Buffers of a pipe that wait to be written to the full-output file: beyond them, reading pauses. */
const POOL_LIMIT = 32;

/**
 * Real pipes (FIFOs) for the command's output where `mkfifo` exists, else Node's. Node's own
 * stdio pipes are socket pairs, on which `> /dev/stdout` and `tee /dev/stderr` fail with ENXIO; a
 * FIFO behaves as a shell user expects, and is read here into a few reused buffers, so that 100 MB
 * of output do not become 100 MB of garbage for the collector.
 */
export async function commandOutputs(): Promise<CommandOutputs> {
  const fifos = await openFifos();
  if (fifos) return fifos;
  return {
    stdio: ["pipe", "pipe"],
    files: undefined,
    spawned: (child) => [new StreamPipe(child.stdout as Readable), new StreamPipe(child.stderr as Readable)],
    abandon: () => {},
  };
}

async function openFifos(): Promise<CommandOutputs | undefined> {
  const paths = await takeFifoPair();
  if (!paths) return undefined;
  const fds: number[] = [];
  try {
    // The read end first, without blocking; then the write end opens at once (and blocks as a pipe should).
    for (const path of paths) {
      fds.push(openSync(path, constants.O_RDONLY | constants.O_NONBLOCK));
      fds.push(openSync(path, constants.O_WRONLY));
    }
  } catch {
    for (const fd of fds) closeSync(fd);
    return undefined;
  } finally {
    // Opened: the names are no longer needed, and nothing else can open them now.
    for (const path of paths) {
      try {
        unlinkSync(path);
      } catch {
        // Gone with its folder.
      }
    }
  }
  const [outRead, outWrite, errRead, errWrite] = fds as [number, number, number, number];
  let writeEndsOpen = true;
  const closeWriteEnds = (): void => {
    if (!writeEndsOpen) return;
    writeEndsOpen = false;
    closeSync(outWrite);
    closeSync(errWrite);
  };
  return {
    stdio: [outWrite, errWrite],
    // A FIFO's ends are one inode: whoever holds its write end holds this.
    files: [outWrite, errWrite].map((fd) => {
      const stat = fstatSync(fd);
      return `${stat.dev}:${stat.ino}`;
    }),
    spawned: () => {
      // The child has its own copies; ours would keep the pipes open after it exits.
      closeWriteEnds();
      return [new PooledPipe(outRead), new PooledPipe(errRead)];
    },
    abandon: () => {
      closeWriteEnds();
      closeSync(outRead);
      closeSync(errRead);
    },
  };
}

/** Reads a pipe into a small pool of reused buffers (`net.Socket`'s `onread`). */
class PooledPipe implements OutputPipe {
  readonly #fd: number;
  readonly #free: Buffer[] = [Buffer.allocUnsafe(CHUNK_BYTES), Buffer.allocUnsafe(CHUNK_BYTES)];
  #allocated = 2;
  #socket: Socket | undefined;
  #pausedByUser = false;
  #pausedForBuffers = false;
  #onClosed: () => void = () => {};
  isClosed = false;
  readonly closed = new Promise<void>((resolve) => {
    this.#onClosed = () => {
      this.isClosed = true;
      resolve();
    };
  });

  constructor(fd: number) {
    this.#fd = fd;
  }

  start(onChunk: (chunk: Buffer, release: () => void) => void): void {
    const options: SocketConstructorOpts & { onread: OnReadOpts } = {
      fd: this.#fd,
      readable: true,
      writable: false,
      onread: {
        // Node reads the next chunk into the buffer returned here: never one still held.
        buffer: () => this.#take(),
        callback: (bytes: number, buffer: Buffer): boolean => {
          let released = false;
          onChunk(buffer.subarray(0, bytes), () => {
            if (released) return;
            released = true;
            this.#free.push(buffer);
            this.#refilled();
          });
          if (this.#free.length <= 1 && this.#allocated >= POOL_LIMIT) {
            this.#pausedForBuffers = true;
            return false;
          }
          return !this.#pausedByUser;
        },
      },
    };
    // `onread` works for sockets on a file descriptor too; Node's types only list it for connect().
    const socket = new Socket(options);
    this.#socket = socket;
    socket.on("error", () => {});
    socket.once("close", () => this.#onClosed());
  }

  #take(): Buffer {
    const buffer = this.#free.pop();
    if (buffer) return buffer;
    this.#allocated += 1;
    return Buffer.allocUnsafe(CHUNK_BYTES);
  }

  #refilled(): void {
    if (!this.#pausedForBuffers || this.#free.length < 2) return;
    this.#pausedForBuffers = false;
    if (!this.#pausedByUser) this.#socket?.resume();
  }

  pause(): void {
    this.#pausedByUser = true;
    this.#socket?.pause();
  }

  resume(): void {
    this.#pausedByUser = false;
    if (!this.#pausedForBuffers) this.#socket?.resume();
  }

  destroy(): void {
    if (this.#socket) this.#socket.destroy();
    else {
      closeSync(this.#fd);
      this.#onClosed();
    }
  }
}

/** A Node stream (the child's stdio pipe): each chunk is its own buffer. */
class StreamPipe implements OutputPipe {
  readonly #stream: Readable;
  readonly closed: Promise<void>;
  isClosed = false;

  constructor(stream: Readable) {
    this.#stream = stream;
    this.closed = new Promise((resolve) => {
      const close = (): void => {
        this.isClosed = true;
        resolve();
      };
      if (stream.destroyed) close();
      else stream.once("close", close);
    });
    // A destroyed pipe may report an error; the output so far stands.
    stream.on("error", () => {});
  }

  start(onChunk: (chunk: Buffer, release: () => void) => void): void {
    this.#stream.on("data", (chunk: Buffer) => onChunk(chunk, noop));
  }

  pause(): void {
    this.#stream.pause();
  }

  resume(): void {
    this.#stream.resume();
  }

  destroy(): void {
    this.#stream.destroy();
  }
}

const noop = (): void => {};
