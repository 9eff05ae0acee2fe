/** Byte-level helpers for editing text files without decoding them whole. */

const NL = 10;
const CRLF = Buffer.from("\r\n");

/** How the lines of a file end: all LF, all CRLF, or a mix (left as it is). */
export type LineEndings = "lf" | "crlf" | "mixed";

export function bomLength(bytes: Uint8Array): number {
  return bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
}

export function lineEndingsOf(body: Buffer): LineEndings {
  if (body.indexOf(CRLF) === -1) return "lf";
  return countOf(body, CRLF) === countOf(body, NL) ? "crlf" : "mixed";
}

/** Text from the model, encoded with the file's line endings (a CRLF file gets CRLF, whatever was sent). */
export function encodeFor(text: string, endings: LineEndings): Buffer {
  return Buffer.from(endings === "crlf" ? text.replace(/\r?\n/g, "\r\n") : text, "utf8");
}

/** Bytes decoded for people: CRLF shown as LF. */
export function decodeForDiff(bytes: Uint8Array, endings: LineEndings): string {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8");
  return endings === "crlf" ? text.replaceAll("\r\n", "\n") : text;
}

export function countOf(bytes: Buffer, needle: number | Buffer, from = 0, to = bytes.length): number {
  const step = typeof needle === "number" ? 1 : needle.length;
  let n = 0;
  for (let i = bytes.indexOf(needle, from); i !== -1 && i < to; i = bytes.indexOf(needle, i + step)) n += 1;
  return n;
}

/** Offset of the first byte of line `line` (1-based), or -1 when there are fewer lines. */
export function lineStart(bytes: Buffer, line: number): number {
  let offset = 0;
  for (let n = 1; n < line; n++) {
    const next = bytes.indexOf(NL, offset);
    if (next === -1) return -1;
    offset = next + 1;
  }
  return offset < bytes.length ? offset : -1;
}

/** Lines in a text: a final newline ends the last line rather than starting an empty one. */
export function lineCount(bytes: Buffer): number {
  if (bytes.length === 0) return 0;
  return countOf(bytes, NL) + (bytes[bytes.length - 1] === NL ? 0 : 1);
}

/** Offset just after the newline that ends the line starting at `offset`, or the end. */
export function endOfLine(bytes: Buffer, offset: number): number {
  const next = bytes.indexOf(NL, offset);
  return next === -1 ? bytes.length : next + 1;
}

/** The start of the line holding `offset`, moved up to `back` lines up; and how many it moved. */
export function startOfLineBefore(bytes: Buffer, offset: number, back: number): { start: number; moved: number } {
  let start = offset > 0 ? bytes.lastIndexOf(NL, offset - 1) + 1 : 0;
  let moved = 0;
  while (moved < back && start > 0) {
    start = start >= 2 ? bytes.lastIndexOf(NL, start - 2) + 1 : 0;
    moved += 1;
  }
  return { start, moved };
}

/** Offset just after the end of the line holding `offset - 1`, moved `ahead` more lines down. */
export function endOfLineAfter(bytes: Buffer, offset: number, ahead: number): number {
  let end = offset > 0 && bytes[offset - 1] !== NL ? endOfLine(bytes, offset) : offset;
  for (let k = 0; k < ahead && end < bytes.length; k++) end = endOfLine(bytes, end);
  return end;
}
