import { isUtf8 } from "node:buffer";
import { countOf } from "./_text.js";

/** One place `oldText` was found, as bytes of the body, and the bytes to put there. */
export interface Match {
  from: number;
  to: number;
  bytes: Buffer;
}

export interface Found {
  matches: Match[];
  /** Set when the text matched only after relaxing: which relaxation. */
  relaxation?: string;
  /** Set when it matched more than once: the 1-based lines, and why (for the error). */
  ambiguous?: { lines: number[]; why: string };
}

/** Relaxations tried in order when the exact text is not found; each keeps the ones before it. */
export const RELAXATIONS = [
  "trailing whitespace ignored",
  "Unicode normalisation (NFKC: fullwidth forms, composed accents)",
  "typographic quotes and dashes taken as ASCII",
  "non-breaking and other Unicode spaces taken as plain spaces",
  "indentation ignored (newText re-indented by the same offset)",
] as const;

/** Files larger than this are matched exactly only: relaxed matching decodes the file and maps every character (about 30 bytes of memory per byte). */
export const RELAXED_MAX_BYTES = 2 * 1024 * 1024;

const lineOf = (body: Buffer, offset: number): number => countOf(body, 10, 0, offset) + 1;

/**
 * Where `oldText` is in `body`. Exact first, as bytes: text with plain newlines matches an LF copy
 * and a CRLF copy of the same lines (a model reads CRLF as LF), and both at once is ambiguous.
 * Then, for a single match only, the relaxations in order.
 */
export function findText(body: Buffer, oldText: string, newText: string, replaceAll: boolean, crlfFile: boolean): Found {
  const plain = oldText.replaceAll("\r\n", "\n");
  const plainNew = newText.replaceAll("\r\n", "\n");
  const variants = [
    { needle: Buffer.from(crlfFile ? plain.replaceAll("\n", "\r\n") : plain), bytes: Buffer.from(crlfFile ? plainNew.replaceAll("\n", "\r\n") : plainNew), kind: crlfFile ? "CRLF" : "LF" },
  ];
  if (plain.includes("\n")) {
    const other = crlfFile ? { needle: Buffer.from(plain), bytes: Buffer.from(plainNew), kind: "LF" } : { needle: Buffer.from(plain.replaceAll("\n", "\r\n")), bytes: Buffer.from(plainNew.replaceAll("\n", "\r\n")), kind: "CRLF" };
    variants.push(other);
  }
  const found: (Match & { kind: string })[] = [];
  for (const variant of variants) {
    for (let i = body.indexOf(variant.needle); i !== -1; i = body.indexOf(variant.needle, i + variant.needle.length)) {
      found.push({ from: i, to: i + variant.needle.length, bytes: variant.bytes, kind: variant.kind });
      if (!replaceAll && found.length > 20) break;
    }
  }
  found.sort((a, b) => a.from - b.from);
  const kept = found.filter((match, i) => i === 0 || match.from >= (found[i - 1] as Match).to);
  if (kept.length > 1 && !replaceAll) {
    const kinds = new Set(kept.map((match) => match.kind));
    const why = kinds.size > 1 ? "it matches both a copy with LF line endings and one with CRLF (read shows both alike)" : "";
    return { matches: [], ambiguous: { lines: kept.slice(0, 20).map((match) => lineOf(body, match.from)), why } };
  }
  if (kept.length > 0) return { matches: kept };
  return relaxed(body, oldText, newText, crlfFile);
}

function relaxed(body: Buffer, oldText: string, newText: string, crlfFile: boolean): Found {
  if (body.length > RELAXED_MAX_BYTES || !isUtf8(body)) return { matches: [] };
  const text = body.toString("utf8");
  for (let level = 1; level <= 4; level++) {
    const view = viewOf(text, level);
    const want = viewOf(oldText, level).norm;
    if (want.length === 0) continue;
    // oldText whose last line lost trailing spaces must end where a line ends: "x = 1 " is not "x = 1" of "x = 1 + 2".
    const atLineEnd = /[ \t]$/.test(oldText);
    const at: number[] = [];
    for (let i = view.norm.indexOf(want); i !== -1 && at.length < 21; i = view.norm.indexOf(want, i + 1)) {
      const end = i + want.length;
      if (atLineEnd && end < view.norm.length && view.norm[end] !== "\n") continue;
      if (at.length > 0 && i < (at[at.length - 1] as number) + want.length) continue;
      at.push(i);
    }
    if (at.length === 0) continue;
    const relaxation = RELAXATIONS[level - 1] as string;
    if (at.length > 1) return { matches: [], relaxation, ambiguous: { lines: at.map((i) => lineAt(view.norm, i)), why: `after relaxing (${relaxation})` } };
    const start = view.starts[at[0] as number] as number;
    const end = view.ends[(at[0] as number) + want.length - 1] as number;
    return { matches: [toBytes(text, start, end, newText, crlfFile)], relaxation };
  }
  return indentInsensitive(text, oldText, newText, crlfFile);
}

const lineAt = (text: string, index: number): number => text.slice(0, index).split("\n").length;

function toBytes(text: string, start: number, end: number, newText: string, crlfFile: boolean): Match {
  const from = Buffer.byteLength(text.slice(0, start));
  const to = from + Buffer.byteLength(text.slice(start, end));
  const crlf = crlfFile || text.slice(start, end).includes("\r\n");
  const plain = newText.replaceAll("\r\n", "\n");
  return { from, to, bytes: Buffer.from(crlf ? plain.replaceAll("\n", "\r\n") : plain) };
}

const QUOTES: Record<string, string> = {
  "\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'", "\u2032": "'",
  "\u201c": '"', "\u201d": '"', "\u201e": '"', "\u201f": '"', "\u2033": '"',
  "\u2010": "-", "\u2011": "-", "\u2012": "-", "\u2013": "-", "\u2014": "-", "\u2015": "-", "\u2212": "-",
};
const SPACE = /[\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000]/;

/**
 * The text as matched at a relaxation level, with, for each of its UTF-16 units, where in the
 * original text the character that made it starts and ends: CRLF as LF always; then (by level)
 * trailing whitespace dropped, NFKD per character (spaces excepted), quotes and dashes as ASCII,
 * Unicode spaces as plain spaces.
 */
function viewOf(text: string, level: number): { norm: string; starts: number[]; ends: number[] } {
  const chars: string[] = [];
  const starts: number[] = [];
  const ends: number[] = [];
  let i = 0;
  while (i < text.length) {
    const point = text.codePointAt(i) as number;
    const width = point > 0xffff ? 2 : 1;
    let char = String.fromCodePoint(point);
    let end = i + width;
    if (char === "\r" && text[i + 1] === "\n") {
      char = "\n";
      end = i + 2;
    } else {
      if (level >= 2 && !SPACE.test(char)) char = char.normalize("NFKD");
      if (level >= 3) char = [...char].map((c) => QUOTES[c] ?? c).join("");
      if (level >= 4 && SPACE.test(char)) char = " ";
    }
    for (const unit of char.split("")) {
      chars.push(unit);
      starts.push(i);
      ends.push(end);
    }
    i = end;
  }
  // Trailing whitespace: dropped before each newline and at the end.
  const keep: boolean[] = chars.map(() => true);
  let atLineEnd = true;
  for (let k = chars.length - 1; k >= 0; k--) {
    const c = chars[k] as string;
    if (c === "\n") atLineEnd = true;
    else if (atLineEnd && (c === " " || c === "\t")) keep[k] = false;
    else atLineEnd = false;
  }
  const norm: string[] = [];
  const s: number[] = [];
  const e: number[] = [];
  for (let k = 0; k < chars.length; k++) {
    if (!keep[k]) continue;
    norm.push(chars[k] as string);
    s.push(starts[k] as number);
    e.push(ends[k] as number);
  }
  return { norm: norm.join(""), starts: s, ends: e };
}

/** Level 5: whole lines compared with their indentation (and every relaxation before) taken out. */
function indentInsensitive(text: string, oldText: string, newText: string, crlfFile: boolean): Found {
  const relaxation = RELAXATIONS[4];
  const key = (line: string): string => viewOf(line, 4).norm.trimStart();
  const oldLines = oldText.replaceAll("\r\n", "\n").replace(/\n$/, "").split("\n");
  if (oldLines.every((line) => line.trim() === "")) return { matches: [] };
  const lines = text.split("\n");
  const keys = lines.map((line) => key(line.replace(/\r$/, "")));
  const want = oldLines.map(key);
  const at: number[] = [];
  for (let s = 0; s + want.length <= keys.length && at.length < 21; s++) {
    if (want.every((line, k) => keys[s + k] === line)) at.push(s);
  }
  if (at.length === 0) return { matches: [] };
  if (at.length > 1) return { matches: [], relaxation, ambiguous: { lines: at.map((s) => s + 1), why: `after relaxing (${relaxation})` } };
  const s = at[0] as number;
  let start = 0;
  for (let k = 0; k < s; k++) start += (lines[k] as string).length + 1;
  let end = start;
  for (let k = 0; k < want.length; k++) end += (lines[s + k] as string).length + 1;
  end -= 1; // the last line's newline stays
  const lastLine = lines[s + want.length - 1] as string;
  if (lastLine.endsWith("\r")) end -= 1;
  const fileIndent = /^[ \t]*/.exec(lines[s] as string)?.[0] ?? "";
  const oldIndent = /^[ \t]*/.exec(oldLines[0] as string)?.[0] ?? "";
  const reindented = newText
    .replaceAll("\r\n", "\n")
    .replace(/\n$/, "")
    .split("\n")
    .map((line) => (line.startsWith(oldIndent) && line.trim() !== "" ? fileIndent + line.slice(oldIndent.length) : line))
    .join("\n");
  return { matches: [toBytes(text, start, end, reindented, crlfFile)], relaxation };
}

/** How a wanted line and a file line differ, with code points, so a model sees an en dash or a non-breaking space. */
export function describeDifference(fileLine: string, wanted: string): string | undefined {
  if (fileLine === wanted) return undefined;
  const a = [...fileLine];
  const b = [...wanted];
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  const show = (c: string | undefined): string =>
    c === undefined ? "the end of the line" : `U+${(c.codePointAt(0) as number).toString(16).toUpperCase().padStart(4, "0")}${/[\p{L}\p{N}\p{P}\p{S}]/u.test(c) ? ` "${c}"` : ""}`;
  return `column ${i + 1}: the file has ${show(a[i])}, oldText has ${show(b[i])}`;
}
