import { TextDecoder } from "node:util";
import { withCommas } from "./_numbers.js";

/** A shown line longer than this many characters is cut. */
export const MAX_LINE_CHARS = 2000;

const NEWLINE = 10;

/**
 * One output stream, kept in bounded memory: copies of the first `headLimit` bytes and of the last
 * `tailLimit` bytes (a ring), and counts of everything. Lines are only counted while the output
 * streams; they are split and decoded when shown. Chunks are copied, never kept: the pipes reuse
 * their buffers.
 */
export class StreamCapture {
  readonly #headLimit: number;
  readonly #tailLimit: number;
  #head: Buffer | undefined;
  #headBytes = 0;
  /** The last `tailLimit + 1` bytes after the head: the extra one tells whether the tail starts a line. */
  #ring: Buffer | undefined;
  #ringBytes = 0;
  #ringAt = 0;
  #total = 0;
  #newlines = 0;
  #lastByte = NEWLINE;

  constructor(limitBytes: number) {
    this.#headLimit = Math.floor(limitBytes / 2);
    this.#tailLimit = limitBytes - this.#headLimit;
  }

  /** Bytes received. */
  get totalBytes(): number {
    return this.#total;
  }

  /** Whether more came than the limit: the middle is no longer held. */
  get overflowed(): boolean {
    return this.#total > this.#headLimit + this.#tailLimit;
  }

  push(chunk: Buffer): void {
    const length = chunk.length;
    if (length === 0) return;
    this.#total += length;
    this.#newlines += countNewlines(chunk);
    this.#lastByte = chunk[length - 1] as number;

    let rest = chunk;
    if (this.#headBytes < this.#headLimit) {
      this.#head ??= Buffer.allocUnsafe(this.#headLimit);
      const take = Math.min(this.#headLimit - this.#headBytes, length);
      chunk.copy(this.#head, this.#headBytes, 0, take);
      this.#headBytes += take;
      if (take === length) return;
      rest = chunk.subarray(take);
    }
    const ring = (this.#ring ??= Buffer.allocUnsafe(this.#tailLimit + 1));
    const size = ring.length;
    if (rest.length >= size) {
      rest.copy(ring, 0, rest.length - size);
      this.#ringAt = 0;
      this.#ringBytes = size;
      return;
    }
    const first = Math.min(size - this.#ringAt, rest.length);
    rest.copy(ring, this.#ringAt, 0, first);
    if (first < rest.length) rest.copy(ring, 0, first);
    this.#ringAt = (this.#ringAt + rest.length) % size;
    this.#ringBytes = Math.min(size, this.#ringBytes + rest.length);
  }

  /** The lines to show, at most `maxLines` (half from the head, half from the tail), long lines cut. */
  render(maxLines: number | undefined): RenderedStream {
    const { head, tail, beforeTail } = this.#held();
    const droppedBytes = this.#total - head.length - tail.length;
    const lineCount = this.#newlines + (this.#total > 0 && this.#lastByte !== NEWLINE ? 1 : 0);
    const headCount = maxLines === undefined ? Number.POSITIVE_INFINITY : Math.ceil(maxLines / 2);
    const tailCount = maxLines === undefined ? Number.POSITIVE_INFINITY : maxLines - headCount;
    const [shownHead, shownTail] =
      droppedBytes === 0
        ? chooseWhole(head, tail, maxLines, headCount, tailCount)
        : chooseAroundGap(head, tail, beforeTail, lineCount, headCount, tailCount);
    const omittedLines = Math.max(0, lineCount - shownHead.length - shownTail.length);
    const lastLine = this.#total > 0 && this.#lastByte !== NEWLINE ? (shownTail.at(-1) ?? shownHead.at(-1)) : undefined;
    const shown = showLines(shownHead, shownTail, lastLine);
    return {
      head: shown.head,
      tail: shown.tail,
      separated: droppedBytes > 0 || omittedLines > 0,
      omittedLines,
      leftOutBytes: Math.max(0, this.#total - shown.bytes),
      linesCut: shown.partial,
      truncated: droppedBytes > 0 || omittedLines > 0 || shown.cutLines > 0,
      totalBytes: this.#total,
      totalLines: lineCount,
    };
  }

  /** The bytes held: the head, the tail in order, and the byte before the tail (a newline: it starts a line). */
  #held(): { head: Buffer; tail: Buffer; beforeTail: number } {
    const head = this.#head ? this.#head.subarray(0, this.#headBytes) : EMPTY;
    const ring = this.#ring;
    if (!ring || this.#ringBytes === 0) return { head, tail: EMPTY, beforeTail: NEWLINE };
    const ordered =
      this.#ringBytes < ring.length ? ring.subarray(0, this.#ringBytes) : Buffer.concat([ring.subarray(this.#ringAt), ring.subarray(0, this.#ringAt)]);
    if (ordered.length > this.#tailLimit) return { head, tail: ordered.subarray(1), beforeTail: ordered[0] as number };
    return { head, tail: ordered, beforeTail: NEWLINE };
  }
}

/** Nothing was left out between head and tail: every line is known, the first and last `maxLines / 2` are kept. */
function chooseWhole(head: Buffer, tail: Buffer, maxLines: number | undefined, headCount: number, tailCount: number): [Line[], Line[]] {
  const all = splitLines(decoder().decode(tail.length > 0 ? Buffer.concat([head, tail]) : head), false, false);
  if (maxLines === undefined || all.length <= maxLines) return [all, []];
  return [all.slice(0, headCount), tailCount > 0 ? all.slice(all.length - tailCount) : []];
}

/** Bytes were left out between head and tail: only whole lines are shown around the gap, each line once. */
function chooseAroundGap(head: Buffer, tail: Buffer, beforeTail: number, lineCount: number, headCount: number, tailCount: number): [Line[], Line[]] {
  const headEndsInLine = head.length > 0 && head[head.length - 1] !== NEWLINE;
  // The head may end inside a character: a streaming decode holds those bytes back.
  const headLines = splitLines(decoder().decode(head, { stream: true }), false, headEndsInLine);
  const headLineCount = countNewlines(head) + (headEndsInLine ? 1 : 0);
  if (headLines.length < headLineCount) {
    // Held-back bytes begin a line of their own: the line before them is whole.
    const last = headLines[headLines.length - 1];
    if (last) last.partial = false;
    while (headLines.length < headLineCount) headLines.push({ text: "", partial: true });
  }
  let skip = 0;
  while (skip < 3 && skip < tail.length && ((tail[skip] as number) & 0xc0) === 0x80) skip += 1;
  const tailLines = splitLines(decoder().decode(tail.subarray(skip)), beforeTail !== NEWLINE, false);
  // The tail starts inside the line the head ends in: that line is shown once, from the head.
  const sameLine = headLines.length + tailLines.length > lineCount;
  if (sameLine) tailLines.shift();
  // Only whole lines are shown around the gap, unless a part of a line is all there is.
  else if (tailLines[0]?.startsBefore && (tailLines.length > 1 || tailLines[0].text === "")) tailLines.shift();
  if (headLines.length > 1 && headLines[headLines.length - 1]?.partial && (tailLines.length > 0 || !sameLine)) {
    headLines.pop();
  }
  return [headLines.slice(0, headCount), tailCount > 0 ? tailLines.slice(Math.max(0, tailLines.length - tailCount)) : []];
}

/** The chosen lines as shown (long lines cut), with the bytes of output they show and whether any is cut or partial. */
function showLines(head: Line[], tail: Line[], lastLine: Line | undefined): { head: string[]; tail: string[]; bytes: number; cutLines: number; partial: boolean } {
  let cutLines = 0;
  let bytes = 0;
  let partial = false;
  const show = (line: Line): string => {
    const shown = showLine(line);
    if (shown.cut) cutLines += 1;
    if (shown.cut || line.partial) partial = true;
    // The line's newline was shown too, unless the line goes on past what is held or ends the output without one.
    const newline = (line.partial && !line.startsBefore) || line === lastLine ? 0 : 1;
    bytes += Buffer.byteLength(shown.kept) + newline;
    return shown.text;
  };
  return { head: head.map(show), tail: tail.map(show), bytes, cutLines, partial };
}

/**
 * A word no longer than this is kept whole or left out whole where a line is cut, so that a
 * token (a key, a JWT) is never shown in part, where a redactor would miss it. A longer run
 * without spaces is no token: it is cut where the limit falls.
 */
export const WORD_LIMIT = 8192;

const isSpace = (char: string | undefined): boolean => char === " " || char === "\t" || char === "\r" || char === "\f" || char === "\v";

/** The first `limit` characters, less the word the cut falls in; `goesOn`: the text continues past its end. */
function keepStart(text: string, limit: number, goesOn: boolean): string {
  const end = Math.min(limit, text.length);
  if (end === text.length && !goesOn) return text;
  if (end < text.length && isSpace(text[end])) return text.slice(0, end);
  let start = end;
  while (start > 0 && !isSpace(text[start - 1])) start -= 1;
  let stop = end;
  while (stop < text.length && !isSpace(text[stop])) stop += 1;
  if (stop - start >= WORD_LIMIT) return text.slice(0, end);
  return text.slice(0, start);
}

/** The text less the word it starts inside of (which began before what is held). */
function keepEnd(text: string): string {
  let at = 0;
  while (at < text.length && !isSpace(text[at])) at += 1;
  return at >= WORD_LIMIT ? text : text.slice(at);
}

/** What a line shows (`text`, with marks) and what of the output that is (`kept`). */
function showLine(line: Line): { text: string; kept: string; cut: boolean } {
  const startsCut = line.partial && line.startsBefore === true;
  const goesOn = line.partial && !startsCut;
  const whole = startsCut ? keepEnd(line.text) : line.text;
  if (whole.length > MAX_LINE_CHARS) {
    const kept = keepStart(whole, MAX_LINE_CHARS, goesOn);
    const more = whole.length - kept.length;
    const mark = goesOn ? "… [line cut]" : `… [line cut: ${withCommas(more)} more characters]`;
    return { text: `${startsCut ? "…" : ""}${kept}${mark}`, kept, cut: true };
  }
  if (startsCut) return { text: `…${whole}`, kept: whole, cut: false };
  if (goesOn) {
    const kept = keepStart(whole, whole.length, true);
    return { text: `${kept}…`, kept, cut: false };
  }
  return { text: whole, kept: whole, cut: false };
}

interface Line {
  text: string;
  /** Only part of the line is held: it goes on past the head, or starts before the tail. */
  partial: boolean;
  startsBefore?: boolean;
}

function countNewlines(buffer: Buffer): number {
  let count = 0;
  let at = buffer.indexOf(NEWLINE);
  while (at !== -1) {
    count += 1;
    at = buffer.indexOf(NEWLINE, at + 1);
  }
  return count;
}

const EMPTY: Buffer = Buffer.alloc(0);

/** What a stream shows: head lines, tail lines, and what was left out between them. */
export interface RenderedStream {
  head: string[];
  tail: string[];
  /** Whether something was left out between head and tail. */
  separated: boolean;
  omittedLines: number;
  /** Every byte of the stream not shown: left out between head and tail, or cut from a shown line. */
  leftOutBytes: number;
  /** Whether a shown line shows less than the whole line (cut, or only partly held). */
  linesCut: boolean;
  truncated: boolean;
  totalBytes: number;
  totalLines: number;
}

/** The text of a rendered stream; `note` is what follows "… N lines left out; ". */
export function streamText(stream: RenderedStream, note: string): string {
  if (!stream.truncated) return stream.head.join("\n");
  const lines = `${withCommas(stream.omittedLines)} ${stream.omittedLines === 1 ? "line" : "lines"}`;
  const bytes = `${withCommas(stream.leftOutBytes)} bytes left out`;
  const what = !stream.linesCut ? `${lines} left out` : stream.omittedLines > 0 ? `${bytes} (${lines} among them)` : bytes;
  const marker = stream.separated ? `… ${what}; ${note}` : `… long lines cut; ${note}`;
  return (stream.separated ? [...stream.head, marker, ...stream.tail] : [...stream.head, ...stream.tail, marker]).join("\n");
}

function decoder(): TextDecoder {
  // Not fatal: invalid UTF-8 becomes U+FFFD instead of throwing.
  return new TextDecoder("utf-8", { fatal: false });
}

/** Lines without their newlines; `startsCut` marks the first as begun earlier, `endsCut` the last as going on. */
function splitLines(text: string, startsCut: boolean, endsCut: boolean): Line[] {
  if (text.length === 0) return [];
  const parts = text.split("\n");
  if (parts[parts.length - 1] === "") parts.pop();
  const lines: Line[] = parts.map((part) => ({ text: part, partial: false }));
  const first = lines[0];
  if (startsCut && first) {
    first.partial = true;
    first.startsBefore = true;
  }
  const last = lines[lines.length - 1];
  if (endsCut && last) last.partial = true;
  return lines;
}
