import { open } from "node:fs/promises";
import { isAbsolute, relative } from "node:path";
import type { ApprovalRequest, ToolAccess } from "@toolhost/core";
import type { Painter } from "../_output.js";
import { terminalLine, terminalText } from "../_terminal-text.js";

/*
 * What the approve prompt shows of a call: what it will do, read from its declared access (core's
 * `ToolAccess`), not from tool names: each command as the command, each network destination as the
 * URL, each write as a bounded, coloured unified diff against the file as it is when the tool
 * declares the new content, reads as paths; a call that declares nothing (or a write whose new
 * content is not declared) as a bounded preview of its arguments. Everything shown is escaped for
 * the terminal: arguments and files are the model's or anyone's.
 */

/** Lines of a diff, of a command, of the arguments shown before "… N more lines". */
const MAX_DIFF_LINES = 40;
const MAX_COMMAND_LINES = 12;
const MAX_ARGUMENT_LINES = 24;
/** A file larger than this is not read for a diff. */
const MAX_FILE_BYTES = 1024 * 1024;

/**
 * The new content of a file a call writes, when its tool declares it before running (a write's
 * content, an edit applied to the file as it is). Not in core's `ToolAccess` yet: a proposed
 * additive field `contents?: FileContent[]`, read here with a checked reader, so a tool that
 * declares it gets its writes shown as diffs and every other write falls back to its arguments.
 */
export interface FileContent {
  path: string;
  content: string;
}

/** The lines that say what the call will do. */
export async function callPreview(request: ApprovalRequest, cwd: string, paint: Painter): Promise<string[]> {
  const access = request.access;
  const lines: string[] = [];
  const show = (path: string): string => terminalLine(shortPath(path, cwd));
  for (const { command, cwd: where } of access?.commands ?? []) lines.push(...commandLines(command, where === cwd ? undefined : show(where), paint));
  for (const { url, method } of access?.network ?? []) lines.push(`${paint("cyan", "→")} ${terminalLine(`${method ?? "GET"} ${url}`)}`);
  const contents = declaredContents(access);
  let undeclaredWrite = false;
  for (const path of access?.writes ?? []) {
    const content = contents.find((each) => each.path === path)?.content;
    if (content === undefined) undeclaredWrite = true;
    lines.push(...(content === undefined ? [`writes ${paint("bold", show(path))}`] : await diffLines(path, show(path), content, paint)));
  }
  for (const path of access?.reads ?? []) lines.push(`reads ${show(path)}`);
  for (const path of access?.readTrees ?? []) lines.push(`reads everything under ${show(path)}`);
  // What no declaration says: the arguments (a write's content among them when the tool does not declare it).
  if (lines.length === 0 || undeclaredWrite) lines.push(...argumentLines(request.args));
  return lines;
}

/** The `contents` a tool declared with its access, when they have the shape of `FileContent[]`. */
export function declaredContents(access: ToolAccess | undefined): FileContent[] {
  const contents = (access as { contents?: unknown } | undefined)?.contents;
  if (!Array.isArray(contents)) return [];
  return contents.filter((each): each is FileContent => each !== null && typeof each === "object" && typeof each.path === "string" && typeof each.content === "string");
}

function commandLines(command: string, where: string | undefined, paint: Painter): string[] {
  const lines = terminalText(command).split("\n");
  const shown = bounded(lines, MAX_COMMAND_LINES).map((line, i) => `${paint("dim", i === 0 ? "$" : ">")} ${line}`);
  if (where !== undefined) shown.push(paint("dim", `  (in ${where})`));
  return shown;
}

/** A unified diff of the file as it is against the declared content, coloured, at most MAX_DIFF_LINES. */
async function diffLines(path: string, shown: string, content: string, paint: Painter): Promise<string[]> {
  const current = await currentText(path);
  if (typeof current === "object") return [`writes ${paint("bold", shown)} ${paint("dim", `(${current.why}: no diff shown)`)}`];
  const { structuredPatch } = await import("diff");
  const patch = structuredPatch(shown, shown, current, content, "", "", { context: 3 });
  const header = `${current === "" ? "creates" : "changes"} ${paint("bold", shown)}`;
  if (patch.hunks.length === 0) return [`${header} ${paint("dim", "(no change)")}`];
  const body: string[] = [];
  for (const hunk of patch.hunks) {
    body.push(paint("cyan", `@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`));
    for (const line of hunk.lines) body.push(diffLine(line, paint));
  }
  return [header, ...bounded(body, MAX_DIFF_LINES)];
}

function diffLine(line: string, paint: Painter): string {
  const text = terminalLine(line.replace(/\r$/, ""));
  if (line.startsWith("+")) return paint("green", text);
  if (line.startsWith("-")) return paint("red", text);
  return line.startsWith("\\") ? paint("dim", text) : text;
}

/** The file's text as it is: "" when it does not exist; why not when it cannot be shown. */
async function currentText(path: string): Promise<string | { why: string }> {
  let handle: Awaited<ReturnType<typeof open>> | undefined;
  try {
    handle = await open(path, "r");
    const { size, isFile } = await handle.stat().then((info) => ({ size: info.size, isFile: info.isFile() }));
    if (!isFile) return { why: "not a file" };
    if (size > MAX_FILE_BYTES) return { why: `${size} bytes` };
    const bytes = await handle.readFile();
    if (bytes.includes(0)) return { why: "a binary file" };
    return bytes.toString("utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === "ENOENT" ? "" : { why: `cannot be read: ${code ?? (error as Error).message}` };
  } finally {
    await handle?.close();
  }
}

/** The arguments as indented JSON, escaped for the terminal, at most MAX_ARGUMENT_LINES. */
export function argumentLines(args: unknown): string[] {
  let text: string;
  try {
    text = JSON.stringify(args, null, 2) ?? String(args);
  } catch {
    text = String(args);
  }
  return bounded(terminalText(text).split("\n"), MAX_ARGUMENT_LINES);
}

function bounded(lines: string[], max: number): string[] {
  if (lines.length <= max) return lines;
  return [...lines.slice(0, max), `… (${lines.length - max} more lines)`];
}

/** Relative to the working directory when under it. */
export function shortPath(path: string, cwd: string): string {
  const rel = relative(cwd, path);
  return rel !== "" && !rel.startsWith("..") && !isAbsolute(rel) ? rel : path;
}
