import type { FileHandle } from "node:fs/promises";
import { Type, type AgentTool, type AgentToolResult, type ImageContent, type Static, type TextContent } from "@toolhost/core";
import { both } from "./_access.js";
import { type Args, invalid, rename } from "./_arguments.js";
import { CHECKPOINT_MIN_SIZE, checkpointsFor } from "./_checkpoints.js";
import { createContext, type FsContext } from "./_context.js";
import { echo } from "./_echo.js";
import { FsError } from "./_errors.js";
import { readLineRange } from "./_lines.js";
import { checkLeadsAsJudged, recordJudged, takeJudged } from "./_judged.js";
import { checkHardLinks } from "./_links.js";
import { openChecked } from "./_open.js";
import { type CheckedPath, locate } from "./_paths.js";
import { SNIFF_BYTES, sniff } from "./_sniff.js";
import { readTail } from "./_tail.js";
import { type FsCall, fsTool } from "./_tool.js";
import { FsErrorCode } from "./errors.js";
import type { FsToolOptions } from "./options.js";

export const ReadParameters = Type.Object(
  {
    path: Type.String({ description: "The file to read, relative to the working directory or absolute." }),
    startLine: Type.Optional(Type.Integer({ minimum: 1, description: "First line to read (1-based). Default 1." })),
    endLine: Type.Optional(Type.Integer({ minimum: 1, description: "Last line to read (inclusive). Default: as many as fit." })),
    tail: Type.Optional(Type.Integer({ minimum: 1, description: "Read the last N lines instead (found from the end, not by reading the whole file)." })),
    byteOffset: Type.Optional(
      Type.Integer({ minimum: 0, description: "Read bytes from this offset instead of lines (for the rest of a line too long to show whole)." }),
    ),
  },
  { additionalProperties: false },
);

/** `details` of a `read` result. */
export interface ReadDetails {
  path: string;
  linesRead: number;
  /** Lines in the file, when the read reached its end. */
  totalLines?: number;
  /** Whether lines the call asked for were left out (by `maxLines` or `maxSize`). */
  truncated: boolean;
  /** Where to continue, when there is more. */
  nextStartLine?: number;
  /** Where the rest of a cut line (or of a `byteOffset` read) starts. */
  nextByteOffset?: number;
  /** For images: the MIME type and size. */
  mimeType?: string;
  size?: number;
}

type ReadParams = Static<typeof ReadParameters>;

const count = (n: number): string => n.toLocaleString("en-US");

/** The `read` tool: text by line range, streamed; images as image content; other binary refused. */
export function createReadTool(options: FsToolOptions = {}): AgentTool<typeof ReadParameters, ReadDetails> {
  return readTool(createContext(options));
}

export function readTool(ctx: FsContext): AgentTool<typeof ReadParameters, ReadDetails> {
  return fsTool(ctx, {
    name: "read",
    label: "Read file",
    description: `Read a text file, or an image (PNG, JPEG, GIF, WebP). Returns up to ${ctx.maxLines} lines or ${count(ctx.maxSize)} bytes per call, ending at a whole line; use startLine and endLine for a part of a large file, tail for its last lines. Use ls for folders.`,
    parameters: ReadParameters,
    executionMode: "parallel",
    annotations: { readOnly: true, idempotent: true },
    aliases: ["file_path", "offset", "limit", "head"],
    dialect: readDialect,
    target: (params) => params.path,
    access: async (ctx, params) => {
      const { path, info } = await locate(ctx, params.path);
      await checkHardLinks(ctx, path, info, "read");
      await recordJudged(params, path);
      return { reads: both(path) };
    },
    run: read,
  });
}

/** Claude Code's and pi's `file_path`/`offset`/`limit`, the MCP filesystem server's `head`/`tail`. */
function readDialect(args: Args): Args {
  rename(args, "file_path", "path");
  rename(args, "offset", "startLine", (value) => (typeof value === "number" && value < 1 ? 1 : value));
  if ("limit" in args) {
    const limit = args.limit;
    delete args.limit;
    const start = typeof args.startLine === "number" ? args.startLine : 1;
    rename(Object.assign(args, { limit: typeof limit === "number" ? start + limit - 1 : limit }), "limit", "endLine");
  }
  if ("head" in args) {
    if ("tail" in args) throw invalid('got both "head" and "tail"; send one.');
    const head = args.head;
    delete args.head;
    if (args.startLine !== undefined && args.startLine !== 1) throw invalid('got "head" with a startLine; send startLine and endLine.');
    rename(Object.assign(args, { head }), "head", "endLine");
  }
  return args;
}

async function read(ctx: FsContext, params: ReadParams, call: FsCall): Promise<AgentToolResult<ReadDetails>> {
  const judged = takeJudged(params);
  const located = await locate(ctx, params.path);
  if (located.note) call.notes.push(located.note);
  const path = located.path;
  checkLeadsAsJudged(path, judged);
  checkModes(params, path);
  const startLine = params.startLine ?? 1;
  if (params.endLine !== undefined && params.endLine < startLine) {
    throw new FsError(FsErrorCode.BAD_RANGE, `endLine ${params.endLine} is before startLine ${startLine} in ${echo(path.input)}. Give endLine >= startLine.`, {
      path: path.absolute,
    });
  }
  const { file, info } = await openChecked(ctx, path, "read", judged);
  try {
    const head = Buffer.alloc(Math.min(SNIFF_BYTES, info.size));
    if (head.length > 0) await file.read(head, 0, head.length, 0);
    const kind = sniff(head);
    if (kind.kind === "binary") {
      throw new FsError(
        FsErrorCode.BINARY_FILE,
        `${echo(path.input)} is a binary file (${kind.type}, ${count(info.size)} bytes); read returns text and PNG, JPEG, GIF or WebP images only.`,
        { path: path.absolute, size: info.size, type: kind.type },
      );
    }
    if (kind.kind === "image") return await image(ctx, file, path, info.size, kind);
    if (params.tail !== undefined) return await tail(ctx, file, path, info.size, params.tail, call.signal);
    if (params.byteOffset !== undefined) return await bytesFrom(ctx, file, path, info.size, params.byteOffset);
    return await lines(ctx, file, path, params, call.signal);
  } finally {
    await file.close();
  }
}

function checkModes(params: ReadParams, path: CheckedPath): void {
  const lineArgs = params.startLine !== undefined || params.endLine !== undefined;
  const modes = [lineArgs, params.tail !== undefined, params.byteOffset !== undefined].filter(Boolean).length;
  if (modes > 1) {
    throw new FsError(
      FsErrorCode.BAD_RANGE,
      `read takes one of startLine/endLine, tail or byteOffset, not several. Send one for ${echo(path.input)}.`,
      { path: path.absolute },
    );
  }
}

async function image(
  ctx: FsContext,
  file: FileHandle,
  path: CheckedPath,
  size: number,
  kind: { mimeType: string; type: string },
): Promise<AgentToolResult<ReadDetails>> {
  if (size > ctx.maxSize) {
    throw new FsError(
      FsErrorCode.TOO_LARGE,
      `${echo(path.input)} is a ${kind.type} of ${count(size)} bytes, more than the ${count(ctx.maxSize)}-byte limit (maxSize). Make a smaller copy and read that.`,
      { path: path.absolute, size, mimeType: kind.mimeType, maxSize: ctx.maxSize },
    );
  }
  const bytes = await file.readFile();
  const block: TextContent | ImageContent = ctx.imageProcessor
    ? await ctx.imageProcessor(bytes, { path: path.input, mimeType: kind.mimeType })
    : { type: "image", data: bytes.toString("base64"), mimeType: kind.mimeType };
  return {
    content: [{ type: "text", text: `${kind.type} ${path.input} (${count(bytes.length)} bytes)` }, block],
    details: { path: path.absolute, linesRead: 0, truncated: false, mimeType: kind.mimeType, size: bytes.length },
  };
}

/** Text as the model sees it: no BOM, CRLF as LF, no final newline. */
function shown(bytes: Buffer, atStart: boolean): string {
  let text = bytes.toString("utf8");
  if (atStart && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  text = text.replace(/\r\n/g, "\n");
  return text.endsWith("\n") ? text.slice(0, -1) : text;
}

function withNotes(text: string, notes: readonly string[]): string {
  if (notes.length === 0) return text;
  return text.length > 0 ? `${text}\n\n${notes.join("\n")}` : notes.join("\n");
}

async function lines(ctx: FsContext, file: FileHandle, path: CheckedPath, params: ReadParams, signal?: AbortSignal): Promise<AgentToolResult<ReadDetails>> {
  const startLine = params.startLine ?? 1;
  const lastWanted = Math.min(params.endLine ?? Number.POSITIVE_INFINITY, startLine + ctx.maxLines - 1);
  // The identity of what is read is taken from the open handle, so checkpoints match these bytes.
  const opened = await file.stat();
  const checkpoints = opened.size >= CHECKPOINT_MIN_SIZE ? checkpointsFor(opened) : undefined;
  const from = checkpoints?.nearest(startLine);
  const range = await readLineRange(file, {
    startLine,
    endLine: lastWanted,
    maxBytes: ctx.maxSize,
    countAll: opened.size <= ctx.maxSize,
    size: opened.size,
    ...(from ? { from } : {}),
    ...(checkpoints ? { onCheckpoint: checkpoints.add } : {}),
    ...(signal ? { signal } : {}),
  });
  if (range.totalLines !== undefined && startLine > Math.max(range.totalLines, 1)) {
    throw new FsError(
      FsErrorCode.BAD_RANGE,
      `startLine ${startLine} is past the end of ${echo(path.input)}, which has ${count(range.totalLines)} lines.`,
      { path: path.absolute, totalLines: range.totalLines },
    );
  }
  const text = shown(range.bytes, startLine === 1);
  const last = startLine + range.lines - 1;
  const askedEnd = params.endLine !== undefined && last >= params.endLine;
  const truncated = range.cutLine !== undefined || (range.more && !askedEnd);
  const nextStartLine = range.more ? last + 1 : undefined;
  const of = range.totalLines === undefined ? ` (the file has ${count(opened.size)} bytes)` : ` of ${count(range.totalLines)}`;
  const notes: string[] = [];
  if (range.cutLine !== undefined) {
    notes.push(
      `[Line ${range.cutLine} is cut: it is longer than the ${count(ctx.maxSize)}-byte limit (maxSize), so only its start is shown. Read the rest of it with byteOffset=${range.cutAt}${nextStartLine !== undefined ? `, or go on with startLine=${nextStartLine}` : ""}.]`,
    );
  } else if (range.more && !askedEnd) {
    notes.push(`[Showing lines ${startLine}-${last}${of}${pageLimit(ctx, range.lines, lastWanted - startLine + 1)}. Use startLine=${last + 1} to continue.]`);
  } else if (range.more) {
    const left =
      range.totalLines === undefined
        ? `; the file goes on (it has ${count(opened.size)} bytes)`
        : ` of ${count(range.totalLines)}: ${count(range.totalLines - last)} more line${range.totalLines - last === 1 ? " follows" : "s follow"}`;
    notes.push(`[Lines ${startLine}-${last}${left}. Use startLine=${last + 1} to continue.]`);
  }
  if (range.totalLines === 0) notes.push("[The file is empty.]");
  const details: ReadDetails = { path: path.absolute, linesRead: range.lines, truncated };
  if (range.totalLines !== undefined) details.totalLines = range.totalLines;
  if (nextStartLine !== undefined) details.nextStartLine = nextStartLine;
  if (range.cutAt !== undefined) details.nextByteOffset = range.cutAt;
  return { content: [{ type: "text", text: withNotes(text, notes) }], details };
}

/** Which limit ended a page that stopped before the lines asked for: the byte limit, or the line limit. */
function pageLimit(ctx: FsContext, lines: number, wanted: number): string {
  if (lines < wanted) return `: the next line would pass the ${count(ctx.maxSize)}-byte limit (maxSize)`;
  return lines >= ctx.maxLines ? `: the ${count(ctx.maxLines)}-line limit (maxLines)` : "";
}

async function tail(ctx: FsContext, file: FileHandle, path: CheckedPath, size: number, wanted: number, signal?: AbortSignal): Promise<AgentToolResult<ReadDetails>> {
  const asked = Math.min(wanted, ctx.maxLines);
  const found = await readTail(file, size, asked, ctx.maxSize, signal);
  const text = shown(found.bytes, found.from === 0);
  const notes: string[] = [];
  if (size === 0) notes.push("[The file is empty.]");
  else if (found.cut) {
    notes.push(`[The last line is longer than the ${count(ctx.maxSize)}-byte limit (maxSize): only its end is shown, from byte ${found.from}. Read its start with byteOffset.]`);
  } else if (found.whole) {
    if (found.lines < wanted) notes.push(`[The whole file: ${count(found.lines)} line${found.lines === 1 ? "" : "s"}.]`);
  } else {
    const why = found.lines < wanted ? ` (of the ${count(wanted)} asked: ${found.lines < asked ? `the ${count(ctx.maxSize)}-byte limit, maxSize` : `the ${ctx.maxLines}-line limit, maxLines`})` : "";
    notes.push(`[The last ${count(found.lines)} lines${why} of a file of ${count(size)} bytes. They start at byte ${found.from}; for lines before them, read with startLine and endLine.]`);
  }
  const details: ReadDetails = { path: path.absolute, linesRead: size === 0 ? 0 : found.lines, truncated: found.lines < wanted && !found.whole };
  if (found.whole) details.totalLines = size === 0 ? 0 : found.lines;
  return { content: [{ type: "text", text: withNotes(text, notes) }], details };
}

/** A window of bytes from `offset`: ends at the last newline inside it, unless it holds none. */
async function bytesFrom(ctx: FsContext, file: FileHandle, path: CheckedPath, size: number, offset: number): Promise<AgentToolResult<ReadDetails>> {
  if (offset > size || (offset === size && size > 0)) {
    throw new FsError(FsErrorCode.BAD_RANGE, `byteOffset ${offset} is past the end of ${echo(path.input)}, which has ${count(size)} bytes.`, {
      path: path.absolute,
      size,
    });
  }
  const buffer = Buffer.alloc(Math.min(ctx.maxSize, size - offset));
  let read = 0;
  while (read < buffer.length) {
    const { bytesRead } = await file.read(buffer, read, buffer.length - read, offset + read);
    if (bytesRead === 0) break;
    read += bytesRead;
  }
  let end = read;
  if (offset + read < size) {
    const newline = buffer.lastIndexOf(10, read - 1);
    if (newline !== -1) end = newline + 1;
    else while (end > 0 && ((buffer[end] as number) & 0xc0) === 0x80) end--;
  }
  const next = offset + end;
  const limit = buffer.length >= ctx.maxSize ? `: the ${count(ctx.maxSize)}-byte limit (maxSize)` : "";
  const notes = next < size ? [`[Bytes ${offset}-${next} of ${count(size)}${limit}. Use byteOffset=${next} to continue.]`] : [];
  const details: ReadDetails = { path: path.absolute, linesRead: 0, truncated: false };
  if (next < size) details.nextByteOffset = next;
  return { content: [{ type: "text", text: withNotes(shown(buffer.subarray(0, end), offset === 0), notes) }], details };
}
