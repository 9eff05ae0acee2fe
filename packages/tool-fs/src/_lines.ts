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
  const { startLine, endLine, maxBytes, countAll, size, onCheckpoint, signal } = request;
  const from = request.from ?? { line: 1, offset: 0 };
  const buffers = [Buffer.allocUnsafe(CHUNK), Buffer.allocUnsafe(CHUNK)];
  let which = 0;
  let pending: Promise<{ bytesRead: number }> | undefined = file.read(buffers[0] as Buffer, 0, CHUNK, from.offset);
  const parts: Buffer[] = [];
  let kept = 0;
  let line = from.line;
  let position = from.offset;
  let nextCheckpoint = onCheckpoint ? (Math.floor((line - 1) / CHECKPOINT_LINES) + 1) * CHECKPOINT_LINES + 1 : Number.POSITIVE_INFINITY;
  let lastByte = -1;
  let cutLine: number | undefined;
  let cutAt: number | undefined;
  let lastLine = startLine - 1; // the last line (whole or cut) in `parts`
  let lineParts = 0; // parts.length where the current line starts
  let lineKept = 0; // kept where the current line starts
  let done = false; // the range is read
  let atEnd = false;

  try {
    while (pending) {
      signal?.throwIfAborted();
      const { bytesRead } = await pending;
      pending = undefined;
      if (bytesRead === 0) {
        atEnd = true;
        break;
      }
      const view = (buffers[which] as Buffer).subarray(0, bytesRead);
      const chunkStart = position;
      position += bytesRead;
      if (position < size) {
        which ^= 1;
        pending = file.read(buffers[which] as Buffer, 0, CHUNK, position);
      }
      lastByte = view[bytesRead - 1] as number;
      let i = 0;
      while (i < bytesRead) {
        const next = view.indexOf(NEWLINE, i);
        const end = next === -1 ? bytesRead : next + 1;
        if (!done && line >= startLine) {
          const room = maxBytes - kept;
          if (end - i <= room) {
            parts.push(Buffer.from(view.subarray(i, end)));
            kept += end - i;
            lastLine = line;
          } else if (lineKept === 0) {
            // A single line longer than the whole limit: cut it, at a character boundary.
            let k = i + room;
            while (k > i && ((view[k] as number) & 0xc0) === 0x80) k--;
            parts.push(Buffer.from(view.subarray(i, k)));
            kept += k - i;
            cutLine = line;
            cutAt = chunkStart + k;
            lastLine = line;
            done = true;
          } else {
            // The page ends before this line: take back what of it was kept.
            parts.length = lineParts;
            kept = lineKept;
            lastLine = line - 1;
            done = true;
          }
        }
        if (next === -1) break;
        if (!done && line >= endLine) done = true;
        line += 1;
        i = end;
        lineParts = parts.length;
        lineKept = kept;
        if (line === nextCheckpoint) {
          const offset = chunkStart + i;
          if (offset < size) (onCheckpoint as (position: LinePosition) => void)({ line, offset });
          nextCheckpoint += CHECKPOINT_LINES;
        }
      }
      if (done && !countAll) break;
    }
  } finally {
    // Never leave a read going into a buffer once the caller may close the file.
    await pending?.catch(() => undefined);
  }
  // Every newline of the last chunk read was counted: having read up to the size is the end.
  if (position >= size) atEnd = true;

  const bytes = Buffer.concat(parts, kept);
  const cut = cutLine === undefined ? {} : { cutLine, cutAt: cutAt as number };
  if (!atEnd) return { bytes, lines: Math.max(0, lastLine - startLine + 1), ...cut, more: true };
  // `line` is now the number of the line the reader stands in.
  const totalLines = position === 0 ? 0 : lastByte === NEWLINE ? line - 1 : line;
  const returned = Math.min(lastLine, totalLines);
  return {
    bytes,
    lines: Math.max(0, returned - startLine + 1),
    ...cut,
    totalLines,
    more: totalLines > returned,
  };
}
