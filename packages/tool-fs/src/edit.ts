import { isUtf8 } from "node:buffer";
import { Type, type AgentTool, type AgentToolResult, type Static, type ToolAccess } from "@toolhost/core";
import { both } from "./_access.js";
import { type Args, rename } from "./_arguments.js";
import { changedSinceJudged, checkLeadsAsJudged, type JudgedPath, recordJudged, takeJudged } from "./_judged.js";
import { checkHardLinks } from "./_links.js";
import { writeAtomic } from "./_atomic.js";
import { createContext, type FsContext } from "./_context.js";
import { echo } from "./_echo.js";
import { FsError } from "./_errors.js";
import { withPathLock } from "./_lock.js";
import { describeDifference, findText, type Match, RELAXED_MAX_BYTES } from "./_match.js";
import { openChecked } from "./_open.js";
import { type CheckedPath, checkPath, locate } from "./_paths.js";
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
import { type FsCall, fsTool } from "./_tool.js";
import { FsErrorCode } from "./errors.js";
import type { FsToolOptions } from "./options.js";

const TextEdit = Type.Object(
  {
    oldText: Type.String({ description: "The exact text to replace." }),
    newText: Type.String({ description: "The text to put in its place." }),
    replaceAll: Type.Optional(Type.Boolean({ description: "Replace every occurrence of oldText." })),
  },
  { additionalProperties: false },
);

export const EditParameters = Type.Object(
  {
    path: Type.String({ description: "The file to edit, relative to the working directory or absolute." }),
    startLine: Type.Optional(Type.Integer({ minimum: 1, description: "Lines form: first line to replace (1-based)." })),
    endLine: Type.Optional(Type.Integer({ minimum: 1, description: "Lines form: last line to replace (inclusive)." })),
    content: Type.Optional(Type.String({ description: "Lines form: the new lines; empty deletes the range." })),
    oldText: Type.Optional(Type.String({ description: "Text form: the exact text to replace; must occur once unless replaceAll." })),
    newText: Type.Optional(Type.String({ description: "Text form: the text to put in its place." })),
    replaceAll: Type.Optional(Type.Boolean({ description: "Text form: replace every occurrence of oldText." })),
    edits: Type.Optional(
      Type.Array(TextEdit, {
        minItems: 1,
        maxItems: 100,
        description: "Several text edits, applied in order to the same content, all or nothing.",
      }),
    ),
    dryRun: Type.Optional(Type.Boolean({ description: "Return the diff and change nothing." })),
  },
  { additionalProperties: false },
);

/** `details` of an `edit` result. */
export interface EditDetails {
  path: string;
  /** First line of the file the edit touched (before the edit). */
  startLine: number;
  /** Last line of the file the edit touched (before the edit). */
  endLine: number;
  /** Lines of the old file in the changed region. */
  linesChanged: number;
  /** A unified diff of the change, with three lines of context. */
  diff: string;
  /** Text forms: how many occurrences were replaced, over every edit. */
  replacements?: number;
  /** Text forms: for each edit that matched only after relaxing, which relaxation (by edit index). */
  relaxations?: Record<number, string>;
  /** `dryRun`: nothing was written. */
  dryRun?: boolean;
}

/** The `edit` tool: replaces a line range or texts, keeping line endings, BOM and final newline. */
export function createEditTool(options: FsToolOptions = {}): AgentTool<typeof EditParameters, EditDetails> {
  return editTool(createContext(options));
}

export function editTool(ctx: FsContext): AgentTool<typeof EditParameters, EditDetails> {
  return fsTool(ctx, {
    name: "edit",
    label: "Edit file",
    description:
      "Edit a file: replace lines startLine..endLine (1-based, inclusive) with content; or replace oldText (once; every occurrence with replaceAll) with newText; or apply edits: [{oldText, newText}] in order, all or nothing. dryRun returns the diff without writing. If oldText is not found exactly, small differences (trailing spaces, Unicode forms, typographic quotes, indentation) are forgiven when the match is unique; the result says so. Line endings, BOM and final newline are kept.",
    parameters: EditParameters,
    executionMode: "sequential",
    annotations: { readOnly: false, destructive: true, idempotent: false },
    aliases: ["file_path", "old_string", "new_string", "replace_all"],
    dialect: editDialect,
    target: (params) => params.path,
    access: editAccess,
    run: edit,
  });
}

/** Claude Code's Edit and MultiEdit names; the MCP server's `edits` and `dryRun` are ours already. */
function editDialect(args: Args): Args {
  rename(args, "file_path", "path");
  rename(args, "old_string", "oldText");
  rename(args, "new_string", "newText");
  rename(args, "replace_all", "replaceAll");
  if (Array.isArray(args.edits)) {
    args.edits = args.edits.map((item: unknown) => {
      if (typeof item !== "object" || item === null || Array.isArray(item)) return item;
      const copy = { ...(item as Args) };
      rename(copy, "old_string", "oldText");
      rename(copy, "new_string", "newText");
      rename(copy, "replace_all", "replaceAll");
      return copy;
    });
  }
  return args;
}

type EditParams = Static<typeof EditParameters>;
type TextEditParams = Static<typeof TextEdit>;

function formOf(params: EditParams): "lines" | "text" {
  const lines = (["startLine", "endLine", "content"] as const).filter((key) => params[key] !== undefined);
  const text = (["oldText", "newText", "replaceAll", "edits"] as const).filter((key) => params[key] !== undefined);
  const forms =
    "Give either { path, startLine, endLine, content } to replace lines, { path, oldText, newText } to replace text, or { path, edits: [{ oldText, newText }] }.";
  if (lines.length > 0 && text.length > 0) {
    throw new FsError(FsErrorCode.BAD_EDIT, `edit got both forms (${[...lines, ...text].join(", ")}). ${forms}`);
  }
  if (params.edits !== undefined && (params.oldText !== undefined || params.newText !== undefined || params.replaceAll !== undefined)) {
    throw new FsError(FsErrorCode.BAD_EDIT, `edit got edits and oldText/newText; put every change in edits. ${forms}`);
  }
  if (lines.length === 0 && text.length === 0) throw new FsError(FsErrorCode.BAD_EDIT, `edit got no change to make. ${forms}`);
  const missing =
    lines.length > 0
      ? (["startLine", "endLine", "content"] as const).filter((key) => params[key] === undefined)
      : params.edits !== undefined
        ? []
        : (["oldText", "newText"] as const).filter((key) => params[key] === undefined);
  if (missing.length > 0) throw new FsError(FsErrorCode.BAD_EDIT, `edit is missing ${missing.join(" and ")}. ${forms}`);
  return lines.length > 0 ? "lines" : "text";
}

/** The changed region: `[from, toBefore)` of the old body became `[from, toAfter)` of the new one. */
interface Region {
  from: number;
  toBefore: number;
  toAfter: number;
}

/** An edit worked out against the file's bytes: what it holds, and what it will hold. */
interface PlannedEdit {
  bytes: Buffer;
  bom: number;
  body: Buffer;
  endings: LineEndings;
  relaxations: Record<number, string>;
  changed: { after: Buffer; region: Region; replacements?: number };
}

/** Reads the file and applies the call's change in memory; throws the tool's error for a change that cannot be made. */
async function planEdit(ctx: FsContext, params: EditParams, path: CheckedPath, judged: JudgedPath | undefined): Promise<PlannedEdit> {
  const form = formOf(params);
  const bytes = await readText(ctx, path, judged);
  // The file is edited as bytes: only the changed region is ever decoded, bytes that are not valid
  // UTF-8 stay as they were, and the BOM and line endings are kept because nothing else is touched.
  const bom = bomLength(bytes);
  const body = bytes.subarray(bom);
  const endings = lineEndingsOf(body);
  const relaxations: Record<number, string> = {};
  if (form === "lines") {
    const change = linesChange(path, body, params.startLine as number, params.endLine as number, params.content as string, endings);
    const after = Buffer.concat([body.subarray(0, change.from), change.bytes, body.subarray(change.to)]);
    return { bytes, bom, body, endings, relaxations, changed: { after, region: { from: change.from, toBefore: change.to, toAfter: change.from + change.bytes.length } } };
  }
  const edits: TextEditParams[] = params.edits ?? [
    { oldText: params.oldText as string, newText: params.newText as string, ...(params.replaceAll ? { replaceAll: true } : {}) },
  ];
  return { bytes, bom, body, endings, relaxations, changed: applyEdits(path, body, edits, endings, relaxations, params.edits !== undefined) };
}

/** The whole file after the edit, as text, when it is small and UTF-8 (for an approver's diff); else undefined. */
function newContentOf(plan: PlannedEdit): string | undefined {
  const whole = Buffer.concat([plan.bytes.subarray(0, plan.bom), plan.changed.after]);
  return whole.length <= CONTENT_MAX_BYTES && isUtf8(whole) ? whole.toString("utf8") : undefined;
}

/** Files up to this size declare their new content (`ToolAccess.contents`), so a prompt shows the edit as a diff. */
const CONTENT_MAX_BYTES = 2 * 1024 * 1024;

/**
 * What an edit declares: the file it writes, and, when the change can be worked out now, the file's
 * new content (an approver's diff). A change that cannot be made is left to the run to report.
 */
async function editAccess(ctx: FsContext, params: EditParams): Promise<ToolAccess> {
  const { path, info } = await locate(ctx, params.path);
  await checkHardLinks(ctx, path, info, "edit");
  const plan = info.size > CONTENT_MAX_BYTES ? undefined : await planEdit(ctx, params, path, undefined).catch(() => undefined);
  const content = plan === undefined || plan.changed.after.equals(plan.body) ? undefined : newContentOf(plan);
  await recordJudged(params, path, content);
  return { writes: both(path), ...(content !== undefined && { contents: [{ path: path.absolute, content }] }) };
}

async function edit(ctx: FsContext, params: EditParams, call: FsCall): Promise<AgentToolResult<EditDetails>> {
  const judged = takeJudged(params);
  formOf(params);
  const located = await locate(ctx, params.path);
  if (located.note) call.notes.push(located.note);
  const path = await checkPath(ctx, located.path.input);
  checkLeadsAsJudged(path, judged);
  const roots = await ctx.realRoots();
  return withPathLock(path.real, async () => {
    const plan = await planEdit(ctx, params, path, judged);
    const { bytes, bom, body, changed, endings, relaxations } = plan;
    // The approver saw this content as a diff: a file changed since (in place) would make another edit.
    if (judged?.content !== undefined && newContentOf(plan) !== judged.content) {
      throw changedSinceJudged(path, "its content is not what it was, so the edit would not be the one judged");
    }
    const unchanged = changed.after.equals(body);
    call.signal?.throwIfAborted();
    if (!unchanged && !params.dryRun) {
      await writeAtomic(path, roots, [bytes.subarray(0, bom), changed.after], {
        overwriteReadOnly: ctx.overwriteReadOnly,
        ...(judged && { judged }),
        checkFile: (info) => checkHardLinks(ctx, path, info, "edit"),
      });
    }
    return describe(path, params, body, changed, endings, relaxations, unchanged);
  });
}

/** The file's bytes, through a checked, non-blocking handle; a binary file is refused. */
async function readText(ctx: FsContext, path: CheckedPath, judged: JudgedPath | undefined): Promise<Buffer> {
  const { file } = await openChecked(ctx, path, "edit", judged);
  let bytes: Buffer;
  try {
    bytes = await file.readFile();
  } finally {
    await file.close();
  }
  const kind = sniff(bytes.subarray(0, SNIFF_BYTES));
  if (kind.kind !== "text") {
    throw new FsError(FsErrorCode.BINARY_FILE, `${echo(path.input)} is a binary file (${kind.type}, ${bytes.length} bytes); edit changes text files only.`, {
      path: path.absolute,
      size: bytes.length,
      type: kind.type,
    });
  }
  return bytes;
}

/** The result: what changed where, the diff, and which relaxations matched. */
async function describe(
  path: CheckedPath,
  params: EditParams,
  body: Buffer,
  changed: { after: Buffer; region: Region; replacements?: number },
  endings: LineEndings,
  relaxations: Record<number, string>,
  unchanged: boolean,
): Promise<AgentToolResult<EditDetails>> {
  const { region, replacements } = changed;
  const startLine = countOf(body, 10, 0, region.from) + 1;
  const endLine = Math.max(startLine, countOf(body, 10, 0, Math.max(region.from, region.toBefore - 1)) + 1);
  const diff = await diffOf(path.input, body, changed.after, region, startLine, endings);
  const details: EditDetails = { path: path.absolute, startLine, endLine, linesChanged: endLine - startLine + 1, diff };
  if (replacements !== undefined) details.replacements = replacements;
  if (Object.keys(relaxations).length > 0) details.relaxations = relaxations;
  const times = replacements !== undefined && replacements > 1 ? ` (${replacements} replacements)` : "";
  const same = unchanged ? " (no change: the new text equals the old)" : "";
  let text = `✓ Edited lines ${startLine}-${endLine} in ${path.input}${times}${same}`;
  if (params.dryRun) {
    details.dryRun = true;
    text = `Dry run: nothing was written. This edit would change lines ${startLine}-${endLine} of ${path.input}${times}:\n${diff}`;
  }
  const notes = Object.entries(relaxations).map(([index, how]) =>
    params.edits ? `[Edit ${Number(index) + 1} matched only with ${how}.]` : `[oldText matched only with ${how}.]`,
  );
  if (notes.length > 0) text += `\n${notes.join("\n")}`;
  return { content: [{ type: "text", text }], details };
}

/** Applies text edits in order to the body, each to the result of the one before; any failure fails all. */
function applyEdits(
  path: CheckedPath,
  body: Buffer,
  edits: readonly TextEditParams[],
  endings: LineEndings,
  relaxations: Record<number, string>,
  several: boolean,
): { after: Buffer; region: Region; replacements: number } {
  let current = body;
  let lo = Number.POSITIVE_INFINITY;
  let hi = 0;
  let replacements = 0;
  edits.forEach((each, index) => {
    const which = several ? `edits[${index}]: ` : "";
    if (each.oldText.length === 0) {
      throw new FsError(FsErrorCode.BAD_EDIT, `${which}oldText is empty; give the exact text to replace in ${echo(path.input)}, or use the lines form to insert.`);
    }
    const found = findText(current, each.oldText, each.newText, each.replaceAll === true, endings === "crlf");
    if (found.ambiguous) {
      const lines = found.ambiguous.lines;
      const more = lines.length > 20 ? "more than 20 times" : `${lines.length} times`;
      const why = found.ambiguous.why ? ` (${found.ambiguous.why})` : "";
      throw new FsError(
        FsErrorCode.MULTIPLE_MATCHES,
        `${which}oldText occurs ${more} in ${echo(path.input)}${why}, at lines ${lines.slice(0, 20).join(", ")}. Include more of the surrounding lines so it matches once${found.relaxation ? "" : ", or set replaceAll to replace every one"}.${several ? " Nothing was changed." : ""}`,
        { path: path.absolute, lines: lines.slice(0, 20), ...(several ? { edit: index } : {}) },
      );
    }
    if (found.matches.length === 0) throw noMatch(path, current, each.oldText, endings, which, several ? index : undefined);
    if (found.relaxation) relaxations[index] = found.relaxation;
    const pieces: Buffer[] = [];
    let at = 0;
    let delta = 0;
    for (const match of found.matches) {
      pieces.push(current.subarray(at, match.from), match.bytes);
      at = match.to;
      delta += match.bytes.length - (match.to - match.from);
    }
    pieces.push(current.subarray(at));
    const first = found.matches[0] as Match;
    const last = found.matches[found.matches.length - 1] as Match;
    const lastEnd = last.to + delta;
    // The changed region, in the coordinates of the new content.
    hi = hi === 0 && lo === Number.POSITIVE_INFINITY ? lastEnd : Math.max(hi <= first.from ? hi : hi >= last.to ? hi + delta : lastEnd, lastEnd);
    lo = Math.min(lo, first.from);
    current = Buffer.concat(pieces);
    replacements += found.matches.length;
  });
  const suffix = current.length - hi;
  return { after: current, region: { from: lo, toBefore: body.length - suffix, toAfter: hi }, replacements };
}

function linesChange(
  path: CheckedPath,
  body: Buffer,
  startLine: number,
  endLine: number,
  content: string,
  endings: LineEndings,
): Match {
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
      `Cannot edit ${echo(path.input)}: ${why}; the file has ${total} line${total === 1 ? "" : "s"}.${total === 0 ? " Use write to give an empty file content." : ` Use a range within 1-${total}.`}`,
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

/** How much of a file a failed match is compared with, to keep a miss in a huge file cheap. */
const CLOSEST_SCAN_BYTES = 8 * 1024 * 1024;

function noMatch(path: CheckedPath, body: Buffer, oldText: string, endings: LineEndings, which: string, index: number | undefined): FsError {
  const lines = decodeForDiff(body.subarray(0, CLOSEST_SCAN_BYTES), endings).replaceAll("\r\n", "\n").split("\n");
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
    const differences: string[] = [];
    for (let k = 0; k < Math.min(wanted.length, 20) && differences.length < 5; k++) {
      const fileLine = lines[best.start + k];
      const difference = fileLine === undefined ? undefined : describeDifference(fileLine, wanted[k] as string);
      if (difference) differences.push(`  line ${best.start + k + 1}, ${difference}`);
    }
    const where = differences.length > 0 ? `\nWhere they differ:\n${differences.join("\n")}` : "";
    hint = ` The closest lines are ${best.start + 1}-${best.start + shown}${diffs}:\n${excerpt}${where}\nCopy the text exactly (spaces and indentation too), or use the lines form.`;
  }
  const exactOnly =
    body.length > RELAXED_MAX_BYTES
      ? ` (The file is over ${RELAXED_MAX_BYTES / 1024 / 1024} MiB, so only exact matches were tried.)`
      : isUtf8(body)
        ? ""
        : " (The file is not valid UTF-8, so only exact matches were tried.)";
  return new FsError(FsErrorCode.NO_MATCH, `${which}oldText was not found in ${echo(path.input)}.${exactOnly}${hint}${which ? " Nothing was changed." : ""}`, {
    path: path.absolute,
    ...(best ? { closestLine: best.start + 1 } : {}),
    ...(index === undefined ? {} : { edit: index }),
  });
}

/** A unified diff of the changed region only (3 lines of context), so a small edit of a huge file stays cheap. */
async function diffOf(name: string, body: Buffer, after: Buffer, region: Region, firstChangedLine: number, endings: LineEndings): Promise<string> {
  // Loaded on the first edit: a host that only reads never pays for it.
  const { FILE_HEADERS_ONLY, formatPatch, structuredPatch } = await import("diff");
  const { start, moved } = startOfLineBefore(body, region.from, 3);
  const end = endOfLineAfter(body, region.toBefore, 3);
  const afterEnd = end + (after.length - body.length);
  const before = decodeForDiff(body.subarray(start, end), endings);
  const patch = structuredPatch(name, name, before, decodeForDiff(after.subarray(start, afterEnd), endings), "", "", { context: 3 });
  const offset = firstChangedLine - moved - 1;
  for (const hunk of patch.hunks) {
    hunk.oldStart += offset;
    hunk.newStart += offset;
  }
  // No timestamps: the header lines end at the name, as `git diff` writes them.
  return formatPatch(patch, FILE_HEADERS_ONLY).replace(/^(---|\+\+\+) (.*)\t$/gm, "$1 $2");
}
