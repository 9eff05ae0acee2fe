import { Type, type Static, type AgentTool, type AgentToolResult } from "@toolhost/core";
import { writeAtomic } from "./_atomic.js";
import { asResult, FsError, FsErrorCode } from "./_errors.js";
import { withPathLock } from "./_lock.js";
import { createContext, type FsContext, type FsToolOptions } from "./_options.js";
import { checkPath, openChecked, statOrExplain, type CheckedPath } from "./_paths.js";
import { closestBlock } from "./_similar.js";
import { SNIFF_BYTES, sniff } from "./_sniff.js";
import {
  bomLength,
  countOf,
  decodeForDiff,
  encodeFor,
  endOfLine,
  endOfLineAfter,
  lineCount,
  lineEndingsOf,
  lineStart,
  startOfLineBefore,
  type LineEndings,
} from "./_text.js";

export const EditParameters = Type.Object({
  path: Type.String({ description: "The file to edit, relative to the working directory or absolute." }),
  startLine: Type.Optional(Type.Integer({ minimum: 1, description: "Lines form: first line to replace (1-based)." })),
  endLine: Type.Optional(Type.Integer({ minimum: 1, description: "Lines form: last line to replace (inclusive)." })),
  content: Type.Optional(Type.String({ description: "Lines form: the new lines; empty deletes the range." })),
  oldText: Type.Optional(Type.String({ description: "Text form: the exact text to replace; must occur once unless replaceAll." })),
  newText: Type.Optional(Type.String({ description: "Text form: the text to put in its place." })),
  replaceAll: Type.Optional(Type.Boolean({ description: "Text form: replace every occurrence of oldText." })),
});

/** `details` of an `edit` result. */
export interface EditDetails {
  path: string;
  /** First line of the file the edit touched (before the edit). */
  startLine: number;
  /** Last line of the file the edit touched (before the edit). */
  endLine: number;
  /** Lines of the old file that were replaced. */
  linesChanged: number;
  /** A unified diff of the change, with three lines of context. */
  diff: string;
  /** Text form: how many occurrences were replaced. */
  replacements?: number;
}

/** The `edit` tool: replaces a line range or an exact text, keeping line endings, BOM and final newline. */
export function createEditTool(options: FsToolOptions = {}): AgentTool<typeof EditParameters, EditDetails> {
  return editTool(createContext(options));
}

export function editTool(ctx: FsContext): AgentTool<typeof EditParameters, EditDetails> {
  return {
    name: "edit",
    label: "Edit file",
    description:
      "Edit a file in one of two ways: replace lines startLine..endLine (1-based, inclusive) with content, or replace oldText (exact, once; or every occurrence with replaceAll) with newText. Line endings, BOM and final newline are kept.",
    parameters: EditParameters,
    executionMode: "sequential",
    execute: (_id, params, signal) =>
      asResult(signal, params.path, () => edit(ctx, params, signal)) as Promise<AgentToolResult<EditDetails>>,
  };
}

type EditParams = Static<typeof EditParameters>;
/** Byte ranges of the file body to replace, in order, with the bytes to put there. */
type Change = { from: number; to: number; bytes: Buffer }[];

function formOf(params: EditParams): "lines" | "text" {
  const lines = (["startLine", "endLine", "content"] as const).filter((key) => params[key] !== undefined);
  const text = (["oldText", "newText", "replaceAll"] as const).filter((key) => params[key] !== undefined);
  const forms =
    "Give either { path, startLine, endLine, content } to replace lines, or { path, oldText, newText } to replace text.";
  if (lines.length > 0 && text.length > 0) {
    throw new FsError(FsErrorCode.BAD_EDIT, `edit got both forms (${[...lines, ...text].join(", ")}). ${forms}`);
  }
  if (lines.length === 0 && text.length === 0) throw new FsError(FsErrorCode.BAD_EDIT, `edit got no change to make. ${forms}`);
  const missing =
    lines.length > 0
      ? (["startLine", "endLine", "content"] as const).filter((key) => params[key] === undefined)
      : (["oldText", "newText"] as const).filter((key) => params[key] === undefined);
  if (missing.length > 0) throw new FsError(FsErrorCode.BAD_EDIT, `edit is missing ${missing.join(" and ")}. ${forms}`);
  return lines.length > 0 ? "lines" : "text";
}

async function edit(ctx: FsContext, params: EditParams, signal?: AbortSignal): Promise<AgentToolResult<EditDetails>> {
  const form = formOf(params);
  const path = await checkPath(ctx, params.path);
  const roots = await ctx.realRoots();
  return withPathLock(path.real, async () => {
    const info = await statOrExplain(ctx, path);
    if (info.isDirectory()) {
      throw new FsError(FsErrorCode.IS_DIRECTORY, `"${path.input}" is a folder; edit takes a file.`, { path: path.absolute });
    }
    const file = await openChecked(ctx, path);
    let bytes: Buffer;
    try {
      bytes = await file.readFile();
    } finally {
      await file.close();
    }
    const kind = sniff(bytes.subarray(0, SNIFF_BYTES));
    if (kind.kind !== "text") {
      throw new FsError(FsErrorCode.BINARY_FILE, `"${path.input}" is a binary file (${kind.type}, ${bytes.length} bytes); edit changes text files only.`, {
        path: path.absolute,
        size: bytes.length,
        type: kind.type,
      });
    }
    // The file is edited as bytes: only the changed region is ever decoded, bytes that are not valid
    // UTF-8 stay as they were, and the BOM and line endings are kept because nothing else is touched.
    const bom = bomLength(bytes);
    const body = bytes.subarray(bom);
    const endings = lineEndingsOf(body);

    let change: Change;
    let startLine: number;
    let endLine: number;
    let linesChanged: number;
    let replacements: number | undefined;
    if (form === "lines") {
      startLine = params.startLine as number;
      endLine = params.endLine as number;
      change = [linesChange(path, body, startLine, endLine, params.content as string, endings)];
      linesChanged = endLine - startLine + 1;
    } else {
      const found = textChange(path, body, params.oldText as string, params.newText as string, params.replaceAll === true, endings);
      ({ change, startLine, endLine, linesChanged } = found);
      replacements = change.length;
    }

    const pieces: Buffer[] = [bytes.subarray(0, bom)];
    let unchanged = true;
    let at = 0;
    for (const piece of change) {
      pieces.push(body.subarray(at, piece.from), piece.bytes);
      if (unchanged && !piece.bytes.equals(body.subarray(piece.from, piece.to))) unchanged = false;
      at = piece.to;
    }
    pieces.push(body.subarray(at));
    signal?.throwIfAborted();
    if (!unchanged) await writeAtomic(path, roots, pieces);

    const diff = await diffOf(path.input, body, change, startLine, endings);
    const times = replacements !== undefined && replacements > 1 ? ` (${replacements} replacements)` : "";
    const same = unchanged ? " (no change: the new text equals the old)" : "";
    const details: EditDetails = { path: path.absolute, startLine, endLine, linesChanged, diff };
    if (replacements !== undefined) details.replacements = replacements;
    return { content: [{ type: "text", text: `✓ Edited lines ${startLine}-${endLine} in ${path.input}${times}${same}` }], details };
  });
}

function linesChange(
  path: CheckedPath,
  body: Buffer,
  startLine: number,
  endLine: number,
  content: string,
  endings: LineEndings,
): Change[number] {
  const from = startLine <= endLine ? lineStart(body, startLine) : -1;
  const last = from === -1 ? -1 : lineStart(body, endLine);
  if (from === -1 || last === -1) {
    const total = lineCount(body);
    const why =
      startLine > endLine
        ? `the range ${startLine}-${endLine} is reversed (endLine must be >= startLine)`
        : `the range ${startLine}-${endLine} goes past the end`;
    throw new FsError(
      FsErrorCode.BAD_RANGE,
      `Cannot edit "${path.input}": ${why}; the file has ${total} line${total === 1 ? "" : "s"}.${total === 0 ? " Use write to give an empty file content." : ` Use a range within 1-${total}.`}`,
      { path: path.absolute, totalLines: total },
    );
  }
  const to = endOfLine(body, last);
  const endsWithNewline = body[to - 1] === 10;
  let replacement = content.replaceAll("\r\n", "\n");
  if (replacement.length > 0) {
    if (endsWithNewline && !replacement.endsWith("\n")) replacement += "\n";
    if (!endsWithNewline && replacement.endsWith("\n")) replacement = replacement.slice(0, -1);
  }
  return { from, to, bytes: encodeFor(replacement, endings) };
}

function textChange(
  path: CheckedPath,
  body: Buffer,
  oldText: string,
  newText: string,
  replaceAll: boolean,
  endings: LineEndings,
): { change: Change; startLine: number; endLine: number; linesChanged: number } {
  if (oldText.length === 0) {
    throw new FsError(FsErrorCode.BAD_EDIT, `oldText is empty; give the exact text to replace in "${path.input}", or use the lines form to insert.`);
  }
  const needle = encodeFor(oldText, endings);
  const at: number[] = [];
  for (let i = body.indexOf(needle); i !== -1; i = body.indexOf(needle, i + needle.length)) {
    at.push(i);
    if (!replaceAll && at.length > 20) break;
  }
  if (at.length === 0) throw noMatch(path, body, oldText, endings);
  let line = 1;
  let counted = 0;
  const lines = at.map((offset) => {
    line += countOf(body, 10, counted, offset);
    counted = offset;
    return line;
  });
  if (at.length > 1 && !replaceAll) {
    const more = at.length > 20 ? "more than 20 times" : `${at.length} times`;
    throw new FsError(
      FsErrorCode.MULTIPLE_MATCHES,
      `oldText occurs ${more} in "${path.input}", at lines ${lines.slice(0, 20).join(", ")}. Include more of the surrounding lines so it matches once, or set replaceAll to replace every one.`,
      { path: path.absolute, lines: lines.slice(0, 20) },
    );
  }
  const plain = oldText.replaceAll("\r\n", "\n");
  const spanLines = Math.max(1, countOf(Buffer.from(plain), 10) + 1 - (plain.endsWith("\n") ? 1 : 0));
  const replacement = encodeFor(newText, endings);
  return {
    change: at.map((from) => ({ from, to: from + needle.length, bytes: replacement })),
    startLine: lines[0] as number,
    endLine: (lines[lines.length - 1] as number) + spanLines - 1,
    linesChanged: at.length * spanLines,
  };
}

/** How much of a file a failed match is compared with, to keep a miss in a huge file cheap. */
const CLOSEST_SCAN_BYTES = 8 * 1024 * 1024;

function noMatch(path: CheckedPath, body: Buffer, oldText: string, endings: LineEndings): FsError {
  const lines = decodeForDiff(body.subarray(0, CLOSEST_SCAN_BYTES), endings).split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  const wanted = oldText.replaceAll("\r\n", "\n").replace(/\n$/, "").split("\n");
  const best = closestBlock(lines, wanted);
  let hint = " The file is empty.";
  if (best) {
    const shown = Math.max(wanted.length, 1);
    const first = Math.max(0, best.start - 1);
    const last = Math.min(lines.length, best.start + shown + 1);
    const width = String(last).length;
    const excerpt = lines
      .slice(first, last)
      .map((line, k) => `${String(first + k + 1).padStart(width)}| ${line}`)
      .join("\n");
    const diffs = best.score === 1 ? " (they differ only in leading or trailing spaces)" : "";
    hint = ` The closest lines are ${best.start + 1}-${best.start + shown}${diffs}:\n${excerpt}\nCopy the text exactly (spaces and indentation too), or use the lines form.`;
  }
  return new FsError(FsErrorCode.NO_MATCH, `oldText was not found in "${path.input}".${hint}`, {
    path: path.absolute,
    ...(best ? { closestLine: best.start + 1 } : {}),
  });
}

/** A unified diff of the changed region only (3 lines of context), so a small edit of a huge file stays cheap. */
async function diffOf(name: string, body: Buffer, change: Change, firstChangedLine: number, endings: LineEndings): Promise<string> {
  // Loaded on the first edit: a host that only reads never pays for it.
  const { FILE_HEADERS_ONLY, formatPatch, structuredPatch } = await import("diff");
  const first = change[0] as Change[number];
  const lastChange = change[change.length - 1] as Change[number];
  const { start, moved } = startOfLineBefore(body, first.from, 3);
  const end = endOfLineAfter(body, lastChange.to, 3);
  const after: Buffer[] = [];
  let at = start;
  for (const piece of change) {
    after.push(body.subarray(at, piece.from), piece.bytes);
    at = piece.to;
  }
  after.push(body.subarray(at, end));
  const before = decodeForDiff(body.subarray(start, end), endings);
  const patch = structuredPatch(name, name, before, decodeForDiff(Buffer.concat(after), endings), "", "", { context: 3 });
  const offset = firstChangedLine - moved - 1;
  for (const hunk of patch.hunks) {
    hunk.oldStart += offset;
    hunk.newStart += offset;
  }
  // No timestamps: the header lines end at the name, as `git diff` writes them.
  return formatPatch(patch, FILE_HEADERS_ONLY).replace(/^(---|\+\+\+) (.*)\t$/gm, "$1 $2");
}
