const NEWLINE = 10;
/** A stream's text held back waiting for its newline; beyond this it is cut at a space (or anywhere, without one). */
const CARRY_LIMIT = 64 * 1024;

/**
 * Passes a command's output through a redactor in blocks of whole lines, each stream on its own,
 * so that a token split across chunks is redacted whole. What follows the last newline waits for
 * the next chunk (up to `CARRY_LIMIT`, then it goes up to its last space).
 */
export class LineRedactor {
  readonly #redact: (text: string) => string;
  readonly #carry: [Buffer, Buffer] = [Buffer.alloc(0), Buffer.alloc(0)];

  constructor(redact: (text: string) => string) {
    this.#redact = redact;
  }

  /** The redacted whole lines that this chunk completes, or undefined. May throw (the redactor's error). */
  push(stream: 0 | 1, chunk: Buffer): Buffer | undefined {
    const data = this.#carry[stream].length > 0 ? Buffer.concat([this.#carry[stream], chunk]) : chunk;
    let end = data.lastIndexOf(NEWLINE) + 1;
    if (end === 0 && data.length > CARRY_LIMIT) end = Math.max(data.lastIndexOf(32), data.lastIndexOf(9)) + 1 || data.length;
    // Copied: the chunk's buffer goes back to its pipe.
    this.#carry[stream] = Buffer.from(data.subarray(end));
    return end > 0 ? this.#apply(data.subarray(0, end)) : undefined;
  }

  /** What is left of a stream, redacted. */
  flush(stream: 0 | 1): Buffer | undefined {
    const rest = this.#carry[stream];
    this.#carry[stream] = Buffer.alloc(0);
    return rest.length > 0 ? this.#apply(rest) : undefined;
  }

  #apply(bytes: Buffer): Buffer {
    return Buffer.from(this.#redact(bytes.toString("utf8")));
  }
}
