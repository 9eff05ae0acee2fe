/** What a bounded line reader yields: a whole line, or news of one that is over the limit. */
export type LineEvent =
  | { kind: "line"; text: string }
  /**
   * A line over the limit. `started` once, when it passes the limit (its first bytes in `head`);
   * then `ended` when its newline came (its last bytes in `tail`, its size in `bytes`), or
   * `endless` when it went on past the discard bound without one (nothing is read after that).
   */
  | { kind: "too-long"; state: "started" | "ended" | "endless"; head: string; tail: string; bytes: number };

const HEAD_BYTES = 4096;
const TAIL_BYTES = 512;

/**
 * Splits a byte stream into lines of at most `maxLine` bytes, pulled one at a time so that the
 * caller decides when to read on. A longer line is never held: its first and last bytes are kept
 * (to find its id) and the rest is dropped until its newline, unless more than `maxDiscard` bytes
 * go by without one. What it holds is at most one line under the limit and the chunks not pulled.
 */
export class LineReader {
  readonly #chunks: Buffer[] = [];
  #parts: Buffer[] = [];
  #partBytes = 0;
  #over: { head: string; tail: Buffer; bytes: number } | undefined;
  #endless = false;

  constructor(
    private readonly maxLine: number,
    private readonly maxDiscard: number,
  ) {}

  push(chunk: Buffer): void {
    if (!this.#endless && chunk.length > 0) this.#chunks.push(chunk);
  }

  /** Whether bytes are waiting that have not been pulled yet. */
  get hasUnread(): boolean {
    return this.#chunks.length > 0;
  }

  /** The bytes of the line begun and not ended yet (a message cut off when the stream ends). */
  get partialBytes(): number {
    return this.#over ? this.#over.bytes : this.#partBytes;
  }

  /** The next line, or undefined when no whole line (or news of a long one) is buffered. */
  next(): LineEvent | undefined {
    while (!this.#endless) {
      const chunk = this.#chunks[0];
      if (chunk === undefined) return undefined;
      const newline = chunk.indexOf(10);
      const piece = newline === -1 ? chunk : chunk.subarray(0, newline);
      if (newline === -1) this.#chunks.shift();
      else if (newline + 1 < chunk.length) this.#chunks[0] = chunk.subarray(newline + 1);
      else this.#chunks.shift();
      const news = this.#take(piece);
      if (newline !== -1) return this.#endLine();
      if (news) return news;
    }
    return undefined;
  }

  /** Adds a piece to the current line; reports when it passes the limit or the discard bound. */
  #take(piece: Buffer): LineEvent | undefined {
    if (this.#over) {
      const over = this.#over;
      over.bytes += piece.length;
      over.tail = Buffer.concat([over.tail, piece]).subarray(-TAIL_BYTES);
      if (over.bytes <= this.maxLine + this.maxDiscard) return undefined;
      this.#endless = true;
      this.#chunks.length = 0;
      return { kind: "too-long", state: "endless", head: over.head, tail: over.tail.toString("utf8"), bytes: over.bytes };
    }
    if (this.#partBytes + piece.length <= this.maxLine) {
      if (piece.length > 0) this.#parts.push(piece);
      this.#partBytes += piece.length;
      return undefined;
    }
    const start = Buffer.concat([...this.#parts, piece.subarray(0, HEAD_BYTES)]).subarray(0, HEAD_BYTES);
    this.#over = { head: start.toString("utf8"), tail: piece.subarray(-TAIL_BYTES), bytes: this.#partBytes + piece.length };
    this.#parts = [];
    this.#partBytes = 0;
    return { kind: "too-long", state: "started", head: this.#over.head, tail: "", bytes: this.#over.bytes };
  }

  #endLine(): LineEvent {
    if (this.#over) {
      const over = this.#over;
      this.#over = undefined;
      return { kind: "too-long", state: "ended", head: over.head, tail: over.tail.toString("utf8"), bytes: over.bytes };
    }
    const parts = this.#parts;
    this.#parts = [];
    this.#partBytes = 0;
    const text = parts.length === 1 ? (parts[0] as Buffer).toString("utf8") : Buffer.concat(parts).toString("utf8");
    return { kind: "line", text: text.endsWith("\r") ? text.slice(0, -1) : text };
  }
}
