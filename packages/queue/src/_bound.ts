import type { AgentToolResult, AgentToolUpdate } from "@toolhost/core";

const DETAILS_BYTES = 8192;
const KEPT_DETAILS = ["code", "fullOutputPath", "exitCode", "truncated"] as const;

/**
 * A result or update of at most `maxBytes` of JSON: text blocks keep their head and tail with a note
 * of what was left out, images that do not fit are replaced by a note, and large `details` keep only
 * the fields that point to the rest (`fullOutputPath`: the worker's full-output file, not its bytes).
 */
export function bound<T extends AgentToolResult | AgentToolUpdate>(value: T, maxBytes: number): T {
  if (size(value) <= maxBytes) return value;
  let details = value.details;
  if (details !== undefined && size(details) > DETAILS_BYTES) details = keptDetails(details);
  const blocks = value.content.map((block) =>
    block.type === "image" && block.data.length > maxBytes / 2
      ? { type: "text" as const, text: `[an image of ${block.data.length} base64 bytes was left out: results in the queue are bounded to ${maxBytes} bytes]` }
      : block,
  );
  const fixed = JSON.stringify({ ...value, content: blocks.filter((b) => b.type !== "text"), details }).length;
  const texts = blocks.filter((b) => b.type === "text");
  const budget = Math.max(256, Math.floor((maxBytes - fixed - 200 * texts.length) / Math.max(1, texts.length)));
  const content = blocks.map((block) => (block.type === "text" ? { type: "text" as const, text: cut(block.text, budget) } : block));
  return { ...value, content, ...(details !== undefined ? { details } : {}) };
}

function size(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value) ?? "");
}

/** Head and tail of a text, within `budget` bytes of JSON (escaping can make a character 6 bytes). */
function cut(text: string, budget: number): string {
  if (size(text) <= budget) return text;
  let keep = Math.max(32, Math.floor(budget / 2));
  for (;;) {
    const left = text.length - 2 * keep;
    const kept = `${text.slice(0, keep)}\n… ${left} characters left out (results in the queue are bounded; see fullOutputPath on the worker when given) …\n${text.slice(-keep)}`;
    if (size(kept) <= budget || keep <= 32) return kept;
    keep = Math.floor(keep / 2);
  }
}

function keptDetails(details: unknown): Record<string, unknown> {
  const kept: Record<string, unknown> = { detailsLeftOut: `${size(details)} bytes of details were left out (bounded in the queue)` };
  if (typeof details === "object" && details !== null) {
    for (const key of KEPT_DETAILS) {
      const item = (details as Record<string, unknown>)[key];
      if (item !== undefined && size(item) < 1024) kept[key] = item;
    }
  }
  return kept;
}
