import { createWriteStream, mkdtempSync, type WriteStream } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * The whole output of a call, stdout and stderr in the order they arrived. Until `start`, it only
 * remembers the chunks (bounded: the captures start it once a stream passes its limit); from then
 * on every chunk goes straight to a private temporary file.
 */
export class Spill {
  #log: Buffer[] | undefined = [];
  #file: WriteStream | undefined;
  #closed: Promise<void> | undefined;
  #onDrain: () => void;
  path: string | undefined;
  error: Error | undefined;

  /** `onDrain` is called when the file has caught up after `record` or `start` returned false. */
  constructor(onDrain: () => void) {
    this.#onDrain = onDrain;
  }

  get started(): boolean {
    return this.#log === undefined;
  }

  /** Keeps a chunk; false when the file is behind and the sources should pause until `onDrain`. */
  record(chunk: Buffer): boolean {
    if (this.#log) {
      this.#log.push(chunk);
      return true;
    }
    if (!this.#file || this.error) return true;
    return this.#file.write(chunk);
  }

  /** Opens the file and writes what was kept so far; false when the sources should pause. */
  start(): boolean {
    const log = this.#log ?? [];
    this.#log = undefined;
    try {
      const folder = mkdtempSync(join(tmpdir(), "toolhost-bash-"));
      this.path = join(folder, "output.log");
      // Output can hold secrets: the file is the user's alone.
      const file = createWriteStream(this.path, { flags: "wx", mode: 0o600, highWaterMark: 1 << 20 });
      this.#file = file;
      this.#closed = new Promise<void>((resolve) => {
        file.once("close", resolve);
      });
      file.on("drain", () => this.#onDrain());
      file.once("error", (error) => {
        this.error = error;
        this.#onDrain();
      });
    } catch (error) {
      this.error = error as Error;
      return true;
    }
    let ready = true;
    for (const chunk of log) ready = this.#file.write(chunk);
    return ready;
  }

  /** Writes what is left and closes the file. */
  async finish(): Promise<void> {
    this.#log = undefined;
    const file = this.#file;
    if (!file) return;
    if (!file.destroyed) file.end();
    await this.#closed;
  }
}
