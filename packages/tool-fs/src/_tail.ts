import type { FileHandle } from "node:fs/promises";

const CHUNK = 64 * 1024;
const NEWLINE = 10;

export interface Tail {
  /** The bytes of the lines returned. */
  bytes: Buffer;
  /** Lines returned. */
  lines: number;
  /** Where in the file they start. */
  from: number;
  /** Whether they start at the beginning of the file (so `lines` is every line). */
  whole: boolean;
  /** Set when the last line alone is longer than `maxBytes`: only its end is returned. */
  cut: boolean;
}

/**
 * The last `count` lines of a file, found by reading backwards from the end in 64 KiB chunks: a
 * tail of a huge file costs what the lines cost, never the whole file. At most `maxBytes` bytes
 * are returned, whole lines (the earliest are dropped), unless the last line alone is longer.
 */
export async function readTail(file: FileHandle, size: number, count: number, maxBytes: number, signal?: AbortSignal): Promise<Tail> {
  const limit = Math.max(0, size - maxBytes);
  const start = await tailStart(file, await contentEnd(file, size), count, limit, signal);
  let { from, found } = start;
  const cut = found === 0;
  if (cut) {
    // The last line alone is longer than maxBytes: its end, from a character boundary.
    from = await characterStart(file, limit);
    found = 1;
  }
  const bytes = await readFrom(file, from, size - from);
  return { bytes, lines: found, from, whole: start.whole && from === 0, cut };
}

/** Where the last line ends: a final newline ends it, it does not start an empty one. */
async function contentEnd(file: FileHandle, size: number): Promise<number> {
  if (size === 0) return 0;
  const last = Buffer.alloc(1);
  await file.read(last, 0, 1, size - 1);
  return last[0] === NEWLINE ? size - 1 : size;
}

/**
 * Reads backwards from `end` for the starts of the last `count` lines, not before `limit`: where
 * the earliest found starts, how many were found, and whether they are every line of the file.
 */
async function tailStart(
  file: FileHandle,
  end: number,
  count: number,
  limit: number,
  signal: AbortSignal | undefined,
): Promise<{ from: number; found: number; whole: boolean }> {
  let found = 0; // newlines met, each the start of a line after it
  let from = 0;
  let position = end;
  const buffer = Buffer.allocUnsafe(CHUNK);
  while (position > 0) {
    signal?.throwIfAborted();
    const start = Math.max(0, position - CHUNK);
    const { bytesRead } = await file.read(buffer, 0, position - start, start);
    for (let i = bytesRead - 1; i >= 0; i--) {
      if (buffer[i] !== NEWLINE) continue;
      const lineStart = start + i + 1;
      if (lineStart < limit) return { from, found, whole: false };
      from = lineStart;
      found += 1;
      if (found >= count) return { from, found, whole: false };
    }
    position = start;
  }
  // The file's start reached: it starts the first line, if that line fits.
  return limit === 0 ? { from: 0, found: found + 1, whole: true } : { from, found, whole: false };
}

/** The first UTF-8 character boundary at or after `offset`. */
async function characterStart(file: FileHandle, offset: number): Promise<number> {
  const probe = Buffer.alloc(4);
  const { bytesRead } = await file.read(probe, 0, 4, offset);
  let k = 0;
  while (k < bytesRead && ((probe[k] as number) & 0xc0) === 0x80) k++;
  return offset + k;
}

/** Up to `length` bytes from `offset` (fewer when the file ends sooner). */
async function readFrom(file: FileHandle, offset: number, length: number): Promise<Buffer> {
  const bytes = Buffer.alloc(length);
  let done = 0;
  while (done < bytes.length) {
    const { bytesRead } = await file.read(bytes, done, bytes.length - done, offset + done);
    if (bytesRead === 0) break;
    done += bytesRead;
  }
  return bytes.subarray(0, done);
}
