import { Type, type Static } from "@sinclair/typebox";
import type { AgentTool, AgentToolResult } from "@toolhost/core";
import { writeAtomic } from "./_atomic.js";
import { asResult, FsError, FsErrorCode } from "./_errors.js";
import { withPathLock } from "./_lock.js";
import { createContext, type FsContext, type FsToolOptions } from "./_options.js";
import { checkPath, openChecked, statOrExplain, type CheckedPath } from "./_paths.js";
import { closestBlock } from "./_similar.js";
import { SNIFF_BYTES, sniff } from "./_sniff.js";
import { countOf, endOfLineAfter, lineCount, lineStart, normalize, restore, startOfLineBefore } from "./_text.js";

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
type Change = { from: number; to: number; text: string }[];

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
    const { shape, text } = normalize(bytes.toString("utf8"));
    const eol = (value: string): string => (shape.crlf ? value.replaceAll("\r\n", "\n") : value);

    let change: Change;
    let startLine: number;
    let endLine: number;
    let linesChanged: number;
    let replacements: number | undefined;
    if (form === "lines") {
      startLine = params.startLine as number;
      endLine = params.endLine as number;
      change = [linesChange(path, text, startLine, endLine, eol(params.content as string))];
      linesChanged = endLine - startLine + 1;
    } else {
      const found = textChange(path, text, eol(params.oldText as string), eol(params.newText as string), params.replaceAll === true);
      ({ change, startLine, endLine, linesChanged } = found);
      replacements = change.length;
    }

    const from = (change[0] as Change[number]).from;
    const to = (change[change.length - 1] as Change[number]).to;
    let next = text.slice(0, from);
    for (let i = 0; i < change.length; i++) {
      const piece = change[i] as Change[number];
      next += piece.text + text.slice(piece.to, i + 1 < change.length ? (change[i + 1] as Change[number]).from : text.length);
    }
    signal?.throwIfAborted();
    if (next !== text) await writeAtomic(path, roots, Buffer.from(restore(next, shape), "utf8"));

    const diff = await diffOf(path.input, text, next, from, to);
    const times = replacements !== undefined && replacements > 1 ? ` (${replacements} replacements)` : "";
    const same = next === text ? " (no change: the new text equals the old)" : "";
    const details: EditDetails = { path: path.absolute, startLine, endLine, linesChanged, diff };
    if (replacements !== undefined) details.replacements = replacements;
    return { content: [{ type: "text", text: `✓ Edited lines ${startLine}-${endLine} in ${path.input}${times}${same}` }], details };
  });
}

function linesChange(path: CheckedPath, text: string, startLine: number, endLine: number, content: string): Change[number] {
  const from = startLine <= endLine ? lineStart(text, startLine) : -1;
  const last = from === -1 ? -1 : lineStart(text, endLine);
  if (from === -1 || last === -1) {
    const total = lineCount(text);
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
  const newline = text.indexOf("\n", last);
  const to = newline === -1 ? text.length : newline + 1;
  const endsWithNewline = newline !== -1;
  let replacement = content;
  if (replacement.length > 0) {
    if (endsWithNewline && !replacement.endsWith("\n")) replacement += "\n";
    if (!endsWithNewline && replacement.endsWith("\n")) replacement = replacement.slice(0, -1);
  }
  return { from, to, text: replacement };
}

function lineOf(text: string, offset: number, cursor: { offset: number; line: number }): number {
  cursor.line += countOf(text, "\n", cursor.offset, offset);
  cursor.offset = offset;
  return cursor.line;
}

function textChange(
  path: CheckedPath,
  text: string,
  oldText: string,
  newText: string,
  replaceAll: boolean,
): { change: Change; startLine: number; endLine: number; linesChanged: number } {
  if (oldText.length === 0) {
    throw new FsError(FsErrorCode.BAD_EDIT, `oldText is empty; give the exact text to replace in "${path.input}", or use the lines form to insert.`);
  }
  const at: number[] = [];
  for (let i = text.indexOf(oldText); i !== -1; i = text.indexOf(oldText, i + oldText.length)) {
    at.push(i);
    if (!replaceAll && at.length > 20) break;
  }
  if (at.length === 0) throw noMatch(path, text, oldText);
  const cursor = { offset: 0, line: 1 };
  const spanLines = countOf(oldText, "\n") + 1 - (oldText.endsWith("\n") ? 1 : 0);
  const lines = at.map((offset) => lineOf(text, offset, cursor));
  if (at.length > 1 && !replaceAll) {
    const more = at.length > 20 ? "more than 20 times" : `${at.length} times`;
    throw new FsError(
      FsErrorCode.MULTIPLE_MATCHES,
      `oldText occurs ${more} in "${path.input}", at lines ${lines.slice(0, 20).join(", ")}. Include more of the surrounding lines so it matches once, or set replaceAll to replace every one.`,
      { path: path.absolute, lines: lines.slice(0, 20) },
    );
  }
  return {
    change: at.map((from) => ({ from, to: from + oldText.length, text: newText })),
    startLine: lines[0] as number,
    endLine: (lines[lines.length - 1] as number) + Math.max(spanLines, 1) - 1,
    linesChanged: at.length * Math.max(spanLines, 1),
  };
}

function noMatch(path: CheckedPath, text: string, oldText: string): FsError {
  const lines = text.split("\n", 100_000);
  const wanted = oldText.replace(/\n$/, "").split("\n");
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

/** A unified diff of the changed region only, so a small edit of a huge file stays cheap. */
async function diffOf(name: string, before: string, after: string, from: number, to: number): Promise<string> {
  // Loaded on the first edit: a host that only reads never pays for it.
  const { FILE_HEADERS_ONLY, formatPatch, structuredPatch } = await import("diff");
  const start = startOfLineBefore(before, from, 3);
  const end = endOfLineAfter(before, to, 3);
  const delta = after.length - before.length;
  const firstLine = countOf(before, "\n", 0, start) + 1;
  const patch = structuredPatch(name, name, before.slice(start, end), after.slice(start, end + delta), "", "", { context: 3 });
  for (const hunk of patch.hunks) {
    hunk.oldStart += firstLine - 1;
    hunk.newStart += firstLine - 1;
  }
  // No timestamps: the header lines end at the name, as `git diff` writes them.
  return formatPatch(patch, FILE_HEADERS_ONLY).replace(/^(---|\+\+\+) (.*)\t$/gm, "$1 $2");
}
