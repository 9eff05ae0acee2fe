import { constants } from "node:fs";
import { open } from "node:fs/promises";
import type { ApprovalRequest, ToolAccess } from "@toolhost/core";
import type { CallPreview, DiffLine, WritePreview } from "../wire.js";

/*
 * What the page shows of a call, made where the call is (the asking process sees the files the call
 * would change): each command, each destination, each write as a diff against the file as it is
 * when the tool declares the new content (core's `ToolAccess.contents`), the reads, and the
 * arguments when the access does not say everything. Bounded, and every text through `redact`
 * (the page is one more outward channel). The page shows it as text, never as markup.
 */

const MAX_DIFF_LINES = 400;
const MAX_LINE = 2_000;
const MAX_ARGS = 16_000;
const MAX_ITEMS = 100;
/** A file larger than this is not read for a diff. */
const MAX_FILE_BYTES = 1024 * 1024;

export type Redact = (text: string) => string;

/** The preview of a request's call. */
export async function callPreview(request: ApprovalRequest, redact: Redact): Promise<CallPreview> {
  const access: ToolAccess = request.access ?? {};
  const preview: CallPreview = {
    commands: bounded(access.commands ?? []).map(({ command, cwd }) => ({ command: redact(bounded(command, MAX_ARGS)), ...(cwd !== undefined && { cwd }) })),
    network: bounded(access.network ?? []).map(({ url, method }) => ({ method: method ?? "GET", url: redact(url) })),
    writes: [],
    reads: bounded(access.reads ?? []),
    readTrees: bounded(access.readTrees ?? []),
  };
  const contents = declaredContents(access);
  let undeclared = false;
  for (const path of bounded(access.writes ?? [])) {
    const content = contents.get(path);
    if (content === undefined) undeclared = true;
    preview.writes.push(content === undefined ? { path, note: "the new content is not declared: see the arguments" } : await writePreview(path, content, redact));
  }
  const declaresNothing = preview.commands.length + preview.network.length + preview.writes.length + preview.reads.length + preview.readTrees.length === 0;
  if (declaresNothing || undeclared) preview.args = redact(argumentsText(request.args));
  return preview;
}

function bounded<T>(items: readonly T[]): T[];
function bounded(text: string, max: number): string;
function bounded<T>(value: readonly T[] | string, max = MAX_ITEMS): T[] | string {
  if (typeof value === "string") return value.length <= max ? value : `${value.slice(0, max)}… (${value.length - max} more characters)`;
  return value.slice(0, max);
}

function declaredContents(access: ToolAccess): Map<string, string> {
  const found = new Map<string, string>();
  for (const each of Array.isArray(access.contents) ? access.contents : []) {
    if (each !== null && typeof each === "object" && typeof each.path === "string" && typeof each.content === "string") found.set(each.path, each.content);
  }
  return found;
}

async function writePreview(path: string, content: string, redact: Redact): Promise<WritePreview> {
  const current = await currentText(path);
  if (typeof current === "object") return { path, note: `${current.why}: no diff shown` };
  const { structuredPatch } = await import("diff");
  const patch = structuredPatch(path, path, current, content, "", "", { context: 3 });
  if (patch.hunks.length === 0) return { path, change: "no change", diff: [] };
  const lines: DiffLine[] = [];
  for (const hunk of patch.hunks) {
    lines.push({ kind: "hunk", text: `@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@` });
    for (const line of hunk.lines) lines.push(diffLine(line, redact));
  }
  const diff = lines.length <= MAX_DIFF_LINES ? lines : [...lines.slice(0, MAX_DIFF_LINES), { kind: "note" as const, text: `… ${lines.length - MAX_DIFF_LINES} more lines` }];
  return { path, change: current === "" ? "creates" : "changes", diff };
}

function diffLine(line: string, redact: Redact): DiffLine {
  const text = redact(bounded(line.slice(1).replace(/\r$/, ""), MAX_LINE));
  if (line.startsWith("+")) return { kind: "add", text };
  if (line.startsWith("-")) return { kind: "remove", text };
  return line.startsWith("\\") ? { kind: "note", text: line.slice(2) } : { kind: "same", text };
}

/** The file's text as it is: "" when it does not exist; why not when it cannot be shown. */
async function currentText(path: string): Promise<string | { why: string }> {
  let handle: Awaited<ReturnType<typeof open>> | undefined;
  try {
    // Without waiting on a FIFO (or a device) someone put where the call writes.
    handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY);
    const info = await handle.stat();
    if (!info.isFile()) return { why: "not a file" };
    if (info.size > MAX_FILE_BYTES) return { why: `${info.size} bytes` };
    const bytes = await handle.readFile();
    if (bytes.includes(0)) return { why: "a binary file" };
    return bytes.toString("utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === "ENOENT" ? "" : { why: `cannot be read (${code ?? (error as Error).message})` };
  } finally {
    await handle?.close();
  }
}

function argumentsText(args: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(args, null, 2) ?? String(args);
  } catch {
    text = String(args);
  }
  return bounded(text, MAX_ARGS);
}
