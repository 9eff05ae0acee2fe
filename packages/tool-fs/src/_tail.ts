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
  // A final newline ends the last line; it does not start an empty one.
  let end = size;
  if (size > 0) {
    const last = Buffer.alloc(1);
    await file.read(last, 0, 1, size - 1);
    if (last[0] === NEWLINE) end = size - 1;
  }
  const limit = Math.max(0, size - maxBytes);
  let found = 0; // newlines met, each the start of a line after it
  let from = 0;
  let whole = true;
  let position = end;
  const buffer = Buffer.allocUnsafe(CHUNK);
  search: while (position > 0) {
    signal?.throwIfAborted();
    const start = Math.max(0, position - CHUNK);
    const { bytesRead } = await file.read(buffer, 0, position - start, start);
    for (let i = bytesRead - 1; i >= 0; i--) {
      if (buffer[i] !== NEWLINE) continue;
      const lineStart = start + i + 1;
      if (lineStart < limit) {
        whole = false;
        break search;
      }
      from = lineStart;
      found += 1;
      if (found >= count) {
        whole = false;
        break search;
      }
    }
    position = start;
  }
  if (position <= 0 && found < count) {
    if (limit === 0) {
      from = 0;
      found += 1;
    } else whole = false;
  }
  let cut = false;
  if (found === 0) {
    // The last line alone is longer than maxBytes: its end, from a character boundary.
    cut = true;
    from = limit;
    const probe = Buffer.alloc(4);
    const { bytesRead } = await file.read(probe, 0, 4, from);
    let k = 0;
    while (k < bytesRead && ((probe[k] as number) & 0xc0) === 0x80) k++;
    from += k;
    found = 1;
  }
  const bytes = Buffer.alloc(size - from);
  let done = 0;
  while (done < bytes.length) {
    const { bytesRead } = await file.read(bytes, done, bytes.length - done, from + done);
    if (bytesRead === 0) break;
    done += bytesRead;
  }
  return { bytes: bytes.subarray(0, done), lines: found, from, whole: whole && from === 0, cut };
}
