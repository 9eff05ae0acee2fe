import { Type, type Static, type AgentTool, type AgentToolResult, type ImageContent, type TextContent } from "@toolhost/core";
import { asResult, FsError, FsErrorCode } from "./_errors.js";
import { CHECKPOINT_MIN_SIZE, checkpointsFor } from "./_checkpoints.js";
import { readLineRange } from "./_lines.js";
import { createContext, type FsContext, type FsToolOptions } from "./_options.js";
import { checkPath, openChecked, statOrExplain } from "./_paths.js";
import { SNIFF_BYTES, sniff } from "./_sniff.js";

export const ReadParameters = Type.Object({
  path: Type.String({ description: "The file to read, relative to the working directory or absolute." }),
  startLine: Type.Optional(Type.Integer({ minimum: 1, description: "First line to read (1-based). Default 1." })),
  endLine: Type.Optional(Type.Integer({ minimum: 1, description: "Last line to read (inclusive). Default: as many as fit." })),
});

/** `details` of a `read` result. */
export interface ReadDetails {
  path: string;
  linesRead: number;
  /** Lines in the file, when the read reached its end. */
  totalLines?: number;
  /** Whether lines were left out (limits, or a range that stops before the end). */
  truncated: boolean;
  /** Where to continue, when there is more. */
  nextStartLine?: number;
  /** For images: the MIME type and size. */
  mimeType?: string;
  size?: number;
}

const count = (n: number): string => n.toLocaleString("en-US");

/** The `read` tool: text by line range, streamed; images as image content; other binary refused. */
export function createReadTool(options: FsToolOptions = {}): AgentTool<typeof ReadParameters, ReadDetails> {
  return readTool(createContext(options));
}

export function readTool(ctx: FsContext): AgentTool<typeof ReadParameters, ReadDetails> {
  return {
    name: "read",
    label: "Read file",
    description: `Read a text file, or an image (PNG, JPEG, GIF, WebP). Returns up to ${ctx.maxLines} lines or ${count(ctx.maxSize)} bytes per call; use startLine and endLine to read a part of a large file. Use ls for folders.`,
    parameters: ReadParameters,
    executionMode: "parallel",
    execute: (_id, params, signal) =>
      asResult(signal, params.path, () => read(ctx, params, signal)) as Promise<AgentToolResult<ReadDetails>>,
  };
}

async function read(ctx: FsContext, params: Static<typeof ReadParameters>, signal?: AbortSignal): Promise<AgentToolResult<ReadDetails>> {
  const path = await checkPath(ctx, params.path);
  const info = await statOrExplain(ctx, path);
  if (info.isDirectory()) {
    throw new FsError(FsErrorCode.IS_DIRECTORY, `"${path.input}" is a folder, not a file. Use ls to list it, or find to search in it.`, {
      path: path.absolute,
    });
  }
  if (!info.isFile()) {
    throw new FsError(FsErrorCode.INVALID_PATH, `"${path.input}" is not a regular file (a device, socket or pipe); read takes files only.`, {
      path: path.absolute,
    });
  }
  const startLine = params.startLine ?? 1;
  if (params.endLine !== undefined && params.endLine < startLine) {
    throw new FsError(
      FsErrorCode.BAD_RANGE,
      `endLine ${params.endLine} is before startLine ${startLine} in "${path.input}". Give endLine >= startLine.`,
      { path: path.absolute },
    );
  }

  const file = await openChecked(ctx, path);
  try {
    const head = Buffer.alloc(Math.min(SNIFF_BYTES, info.size));
    if (head.length > 0) await file.read(head, 0, head.length, 0);
    const kind = sniff(head);
    if (kind.kind === "binary") {
      throw new FsError(
        FsErrorCode.BINARY_FILE,
        `"${path.input}" is a binary file (${kind.type}, ${count(info.size)} bytes); read returns text and PNG, JPEG, GIF or WebP images only.`,
        { path: path.absolute, size: info.size, type: kind.type },
      );
    }
    if (kind.kind === "image") {
      if (info.size > ctx.maxSize) {
        throw new FsError(
          FsErrorCode.TOO_LARGE,
          `"${path.input}" is a ${kind.type} of ${count(info.size)} bytes, more than the ${count(ctx.maxSize)}-byte limit (maxSize). Make a smaller copy and read that.`,
          { path: path.absolute, size: info.size, mimeType: kind.mimeType, maxSize: ctx.maxSize },
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
        `startLine ${startLine} is past the end of "${path.input}", which has ${count(range.totalLines)} lines.`,
        { path: path.absolute, totalLines: range.totalLines },
      );
    }
    let text = range.bytes.toString("utf8");
    if (startLine === 1 && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    text = text.replace(/\r\n/g, "\n");
    if (text.endsWith("\n")) text = text.slice(0, -1);

    const first = startLine;
    const last = startLine + range.lines - 1;
    const wantedMore = params.endLine === undefined || last < params.endLine;
    const truncated = range.cutLine !== undefined || (range.more && wantedMore);
    const cutHasMore = range.cutLine !== undefined && (range.totalLines === undefined || range.cutLine < range.totalLines);
    const nextStartLine =
      range.cutLine !== undefined ? (cutHasMore ? range.cutLine + 1 : undefined) : truncated ? last + 1 : undefined;
    const notes: string[] = [];
    if (range.cutLine !== undefined) {
      notes.push(
        `[Line ${range.cutLine} is cut: the output reached the ${count(ctx.maxSize)}-byte limit (maxSize).${cutHasMore ? ` Use startLine=${range.cutLine + 1} to continue.` : ""}]`,
      );
    } else if (truncated) {
      const of = range.totalLines === undefined ? ` (the file has ${count(opened.size)} bytes)` : ` of ${count(range.totalLines)}`;
      notes.push(`[Showing lines ${first}-${last}${of}. Use startLine=${last + 1} to continue.]`);
    }
    if (range.totalLines === 0) notes.push("[The file is empty.]");
    const body = notes.length > 0 ? (text.length > 0 ? `${text}\n\n${notes.join("\n")}` : notes.join("\n")) : text;
    const details: ReadDetails = { path: path.absolute, linesRead: range.lines, truncated };
    if (range.totalLines !== undefined) details.totalLines = range.totalLines;
    if (nextStartLine !== undefined) details.nextStartLine = nextStartLine;
    return { content: [{ type: "text", text: body }], details };
  } finally {
    await file.close();
  }
}
