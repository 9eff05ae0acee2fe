import type { FileHandle } from "node:fs/promises";

export interface LineRangeRequest {
  /** 1-based, first line to return. */
  startLine: number;
  /** 1-based, inclusive, last line to return at most. */
  endLine: number;
  /** The most bytes to return: the range ends at the last whole line that fits; only a first line longer than this is cut. */
  maxBytes: number;
  /** Keep counting lines to the end of the file once the range is read (for `totalLines`). */
  countAll: boolean;
  /** The file's size, to know the end was reached without another read. */
  size: number;
  /** Where to start scanning: a known line start at or before `startLine`. Default line 1 at offset 0. */
  from?: LinePosition;
  /** Told the start of every `CHECKPOINT_LINES`-th line the scan passes, to be given back as `from` later. */
  onCheckpoint?: (position: LinePosition) => void;
  signal?: AbortSignal;
}

/** A line number and the byte offset where that line starts. */
export interface LinePosition {
  line: number;
  offset: number;
}

/** Lines between two checkpoints: a 5,000,000-line file has 77 of them. */
export const CHECKPOINT_LINES = 65536;

export interface LineRange {
  /** The bytes of the lines returned, newlines included. */
  bytes: Buffer;
  /** How many lines (whole or cut) `bytes` holds. */
  lines: number;
  /** The line cut at `maxBytes` (a single line longer than the limit), if one was. */
  cutLine?: number;
  /** Where in the file the returned part of `cutLine` ends (a UTF-8 character boundary). */
  cutAt?: number;
  /** Lines in the file, when the end was reached. */
  totalLines?: number;
  /** Whether the file has lines after the last one returned. */
  more: boolean;
}

const CHUNK = 1024 * 1024;
const NEWLINE = 10;

/**
 * Reads a range of lines by streaming through the file with two reusable buffers (the next chunk
 * is read on the thread pool while this one is scanned): memory stays at two chunks plus the lines
 * returned, whatever the file's size.
 */
export async function readLineRange(file: FileHandle, request: LineRangeRequest): Promise<LineRange> {
  const from = request.from ?? { line: 1, offset: 0 };
  const scan = new RangeScan(request, from);
  let position = from.offset;
  let lastByte = -1;
  let exhausted = true;
  for await (const { view, start } of chunksOf(file, from.offset, request.size, request.signal)) {
    scan.scan(view, start);
    position = start + view.length;
    lastByte = view[view.length - 1] as number;
    if (scan.done && !request.countAll) {
      exhausted = false;
      break;
    }
  }
  // Every newline of the last chunk read was counted: having read up to the size is the end.
  return rangeOf(scan, request.startLine, exhausted || position >= request.size ? { position, lastByte } : undefined);
}

/**
 * The file from `offset` in chunks, the next one read ahead into the other of two buffers. A
 * chunk's view is valid until the next is asked for. Ends at the size or at a read of nothing;
 * never leaves a read going into a buffer once the caller stops (it may close the file then).
 */
async function* chunksOf(file: FileHandle, offset: number, size: number, signal: AbortSignal | undefined): AsyncGenerator<{ view: Buffer; start: number }> {
  const buffers = [Buffer.allocUnsafe(CHUNK), Buffer.allocUnsafe(CHUNK)];
  let which = 0;
  let position = offset;
  let pending: Promise<{ bytesRead: number }> | undefined = file.read(buffers[0] as Buffer, 0, CHUNK, position);
  try {
    while (pending) {
      signal?.throwIfAborted();
      const { bytesRead } = await pending;
      pending = undefined;
      if (bytesRead === 0) return;
      const view = (buffers[which] as Buffer).subarray(0, bytesRead);
      const start = position;
      position += bytesRead;
      if (position < size) {
        which ^= 1;
        pending = file.read(buffers[which] as Buffer, 0, CHUNK, position);
      }
      yield { view, start };
    }
  } finally {
    await pending?.catch(() => undefined);
  }
}

/** The scan's state across chunks: the line it stands in, the bytes of the range kept so far, the next checkpoint. */
class RangeScan {
  readonly parts: Buffer[] = [];
  kept = 0;
  /** The number of the line the scan stands in. */
  line: number;
  /** The last line (whole or cut) in `parts`. */
  lastLine: number;
  /** The range is read (the end line, the byte limit, or a cut line reached). */
  done = false;
  cutLine: number | undefined;
  cutAt: number | undefined;
  /** `parts.length` and `kept` where the current line starts, to take it back when it does not fit. */
  #lineParts = 0;
  #lineKept = 0;
  #nextCheckpoint: number;

  constructor(
    readonly request: LineRangeRequest,
    from: LinePosition,
  ) {
    this.line = from.line;
    this.lastLine = request.startLine - 1;
    this.#nextCheckpoint = request.onCheckpoint
      ? (Math.floor((from.line - 1) / CHECKPOINT_LINES) + 1) * CHECKPOINT_LINES + 1
      : Number.POSITIVE_INFINITY;
  }

  /** One chunk, line by line: keeps what belongs to the range, counts every newline. */
  scan(view: Buffer, chunkStart: number): void {
    // What the loop reads once a line lives in locals while the chunk is scanned.
    const { startLine, endLine } = this.request;
    let line = this.line;
    let done = this.done;
    let checkpoint = this.#nextCheckpoint;
    let i = 0;
    while (i < view.length) {
      const next = view.indexOf(NEWLINE, i);
      const end = next === -1 ? view.length : next + 1;
      if (!done && line >= startLine) done = this.#keep(view, i, end, chunkStart, line);
      if (next === -1) break;
      if (!done && line >= endLine) done = true;
      i = end;
      line += 1;
      // Before the range nothing is kept: where a line starts matters from the range's second line on.
      if (!done && line > startLine) {
        this.#lineParts = this.parts.length;
        this.#lineKept = this.kept;
      }
      if (line === checkpoint) checkpoint = this.#checkpoint(line, chunkStart + i);
    }
    this.line = line;
    this.done = done;
    this.#nextCheckpoint = checkpoint;
  }

  /** Keeps `view[i, end)` (a line or the part of it in this chunk) if it fits; true when the page is full. */
  #keep(view: Buffer, i: number, end: number, chunkStart: number, line: number): boolean {
    const room = this.request.maxBytes - this.kept;
    if (end - i <= room) {
      this.parts.push(Buffer.from(view.subarray(i, end)));
      this.kept += end - i;
      this.lastLine = line;
      return false;
    }
    if (this.#lineKept === 0) {
      // A single line longer than the whole limit: cut it, at a character boundary.
      let k = i + room;
      while (k > i && ((view[k] as number) & 0xc0) === 0x80) k--;
      this.parts.push(Buffer.from(view.subarray(i, k)));
      this.kept += k - i;
      this.cutLine = line;
      this.cutAt = chunkStart + k;
      this.lastLine = line;
    } else {
      // The page ends before this line: take back what of it was kept.
      this.parts.length = this.#lineParts;
      this.kept = this.#lineKept;
      this.lastLine = line - 1;
    }
    return true;
  }

  /** Line `line` starts at `offset` of the file: tells the caller (who may start there next time); the next checkpoint's line. */
  #checkpoint(line: number, offset: number): number {
    if (offset < this.request.size) this.request.onCheckpoint?.({ line, offset });
    return line + CHECKPOINT_LINES;
  }
}

/** The range a scan kept; `end` (where the reading stopped, and its last byte) when it reached the end of the file. */
function rangeOf(scan: RangeScan, startLine: number, end: { position: number; lastByte: number } | undefined): LineRange {
  const bytes = Buffer.concat(scan.parts, scan.kept);
  const cut = scan.cutLine === undefined ? {} : { cutLine: scan.cutLine, cutAt: scan.cutAt as number };
  if (!end) return { bytes, lines: Math.max(0, scan.lastLine - startLine + 1), ...cut, more: true };
  // `scan.line` is the number of the line the reader stands in.
  const totalLines = end.position === 0 ? 0 : end.lastByte === NEWLINE ? scan.line - 1 : scan.line;
  const returned = Math.min(scan.lastLine, totalLines);
  return { bytes, lines: Math.max(0, returned - startLine + 1), ...cut, totalLines, more: totalLines > returned };
}
