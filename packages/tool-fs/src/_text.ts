/** How a text file is encoded on disk, so an edit writes it back the same way. */
export interface TextShape {
  bom: boolean;
  /** Every line ends with CRLF: the text was normalized to LF and is written back with CRLF. */
  crlf: boolean;
}

const BOM = "\uFEFF";

/** Splits a file's text into its shape and the text to work on (no BOM; LF when the file is all CRLF). */
export function normalize(raw: string): { shape: TextShape; text: string } {
  const bom = raw.startsWith(BOM);
  const body = bom ? raw.slice(1) : raw;
  if (body.indexOf("\r\n") === -1) return { shape: { bom, crlf: false }, text: body };
  const lf = body.replaceAll("\r\n", "\n");
  // Mixed endings are kept as they are: converting them either way would touch lines the edit did not.
  const crlf = body.length - lf.length === countOf(lf, "\n");
  return { shape: { bom, crlf }, text: crlf ? lf : body };
}

export function restore(text: string, shape: TextShape): string {
  const body = shape.crlf ? text.replaceAll("\n", "\r\n") : text;
  return shape.bom ? BOM + body : body;
}

export function countOf(text: string, needle: string, from = 0, to = text.length): number {
  let n = 0;
  let i = text.indexOf(needle, from);
  while (i !== -1 && i < to) {
    n += 1;
    i = text.indexOf(needle, i + needle.length);
  }
  return n;
}

/** Offset of the first character of line `line` (1-based), or -1 when the text has fewer lines. */
export function lineStart(text: string, line: number): number {
  let offset = 0;
  for (let n = 1; n < line; n++) {
    const next = text.indexOf("\n", offset);
    if (next === -1) return -1;
    offset = next + 1;
  }
  return offset < text.length ? offset : -1;
}

/** Lines in a text: a final newline ends the last line rather than starting an empty one. */
export function lineCount(text: string): number {
  if (text.length === 0) return 0;
  return countOf(text, "\n") + (text.endsWith("\n") ? 0 : 1);
}

/** Offset of the start of the line holding `offset`, moved `back` more lines up. */
export function startOfLineBefore(text: string, offset: number, back: number): number {
  let start = offset > 0 ? text.lastIndexOf("\n", offset - 1) + 1 : 0;
  for (let k = 0; k < back && start > 0; k++) start = text.lastIndexOf("\n", start - 2) + 1;
  return start;
}

/** Offset just after the end (newline included) of the line holding `offset - 1`, moved `ahead` more lines down. */
export function endOfLineAfter(text: string, offset: number, ahead: number): number {
  let end = offset;
  if (end > 0 && text[end - 1] !== "\n") {
    const next = text.indexOf("\n", end);
    end = next === -1 ? text.length : next + 1;
  }
  for (let k = 0; k < ahead && end < text.length; k++) {
    const next = text.indexOf("\n", end);
    end = next === -1 ? text.length : next + 1;
  }
  return end;
}
