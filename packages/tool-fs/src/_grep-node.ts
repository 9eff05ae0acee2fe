import { constants } from "node:fs";
import { type FileHandle, open } from "node:fs/promises";
import { join } from "node:path";
import { isInside } from "@toolhost/core";
import { capped } from "./_echo.js";
import { badPattern, clip, type Collector, globOf, type GrepOutcome, type GrepQuery, type GrepSearch } from "./_grep.js";
import { Ignores } from "./_ignore.js";
import { SNIFF_BYTES, sniff } from "./_sniff.js";
import { walk } from "./_walk.js";

const MAX_NODE_FILE = 64 * 1024 * 1024;

/** The fallback: walks the folder (ignore files respected, skipped folders left out) and matches each text file's lines in Node. */
export async function withNode(search: GrepSearch): Promise<GrepOutcome> {
  const { path, source, query, out, signal } = search;
  const regex = regexOf(query);
  if ("file" in source) {
    const text = await textOf(source.file, MAX_NODE_FILE);
    if (typeof text === "string") matchLines(path.input, text, regex, query.context ?? 0, out);
    return { warnings: typeof text === "string" || text === undefined ? [] : [`${path.input}: ${text.skipped}`], skipped: [] };
  }
  const { files, ignores } = await filesOf(search);
  const warnings: string[] = [];
  for (const file of files) {
    signal?.throwIfAborted();
    if (out.full) break;
    let text: string | { skipped: string } | undefined;
    try {
      const handle = await open(file.absolute, constants.O_RDONLY | constants.O_NONBLOCK);
      try {
        text = await textOf(handle, MAX_NODE_FILE);
      } finally {
        await handle.close();
      }
    } catch (error) {
      warnings.push(`${file.shown}: ${capped((error as Error).message)}`);
      continue;
    }
    if (typeof text === "string") matchLines(file.shown, text, regex, query.context ?? 0, out);
    else if (text !== undefined) warnings.push(`${file.shown}: ${text.skipped}`);
  }
  return { warnings, skipped: ignores.skipped };
}

function regexOf(query: GrepQuery): RegExp {
  try {
    return new RegExp(query.literal ? escapeRegExp(query.pattern) : query.pattern, query.ignoreCase ? "i" : "");
  } catch (error) {
    throw badPattern(query.pattern, (error as Error).message);
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** The files of the searched folder to read, sorted: what the walk's filter and the policy leave out taken out. */
async function filesOf(search: GrepSearch): Promise<{ files: { absolute: string; shown: string }[]; ignores: Ignores }> {
  const { path, query, signal } = search;
  const policy = "policy" in search.source ? search.source.policy : undefined;
  const ignores = await Ignores.below(path.real, search.root, search.skip);
  const pattern = globOf(query.glob) ?? "**/*";
  const found = await walk({ cwd: path.real, pattern, expandDirectories: true, filter: ignores, ...(signal ? { signal } : {}) });
  const files: { absolute: string; shown: string }[] = [];
  for (const file of found) {
    const absolute = join(path.real, file);
    if (!isInside(absolute, path.real)) continue;
    if (policy?.denies(absolute)) {
      policy.leaveOut(file);
      continue;
    }
    files.push({ absolute, shown: file });
  }
  files.sort((a, b) => (a.shown < b.shown ? -1 : 1));
  return { files, ignores };
}

/** The text of an opened file; undefined for a binary or special file; `skipped` for one too large. */
async function textOf(handle: FileHandle, max: number): Promise<string | { skipped: string } | undefined> {
  const info = await handle.stat();
  if (!info.isFile()) return undefined;
  if (info.size > max) return { skipped: `skipped, larger than ${max} bytes (install @vscode/ripgrep to search it)` };
  const head = Buffer.alloc(Math.min(SNIFF_BYTES, info.size));
  await handle.read(head, 0, head.length, 0);
  if (sniff(head).kind !== "text") return undefined;
  return (await handle.readFile()).toString("utf8");
}

/** Adds the matching lines of one file (and their context) to `out`. */
function matchLines(shown: string, text: string, regex: RegExp, context: number, out: Collector): void {
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  let printedUpTo = -1; // index of the last line printed
  let afterUntil = -1;
  for (let i = 0; i < lines.length; i++) {
    const line = (lines[i] as string).replace(/\r$/, "");
    const isMatch = regex.test(line);
    if (!isMatch && i > afterUntil) continue;
    if (isMatch) {
      const from = Math.max(i - context, printedUpTo + 1);
      if (printedUpTo >= 0 && from > printedUpTo + 1 && context > 0) out.add("--", false);
      else if (printedUpTo < 0 && context > 0 && out.lines.length > 0) out.add("--", false);
      for (let k = from; k < i; k++) out.add(`${shown}-${k + 1}-${clip((lines[k] as string).replace(/\r$/, ""))}`, false);
      afterUntil = i + context;
    }
    if (!out.add(`${shown}${isMatch ? ":" : "-"}${i + 1}${isMatch ? ":" : "-"}${clip(line)}`, isMatch)) break;
    printedUpTo = i;
  }
}
