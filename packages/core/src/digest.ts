import { createHash } from "node:crypto";
import type { ToolAccess } from "./types/tool.js";

/** What a call will do, as an approval binds to it: its tool, prepared arguments and declared access. */
export interface CallContent {
  /** The tool's name. */
  name: string;
  /** The prepared, validated arguments. */
  args: unknown;
  /** What the call declared it touches (absent when it declares nothing). */
  access?: ToolAccess;
}

const MAX_DEPTH = 64;

function canonical(value: unknown, depth: number, seen: Set<object>): string {
  if (value === null || typeof value === "boolean" || typeof value === "number") return JSON.stringify(value);
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "bigint") return JSON.stringify(`${value}n`);
  if (typeof value !== "object") return "null";
  if (depth >= MAX_DEPTH) throw new TypeError(`a call's content is nested over ${MAX_DEPTH} levels`);
  if (seen.has(value)) throw new TypeError("a call's content holds a cycle");
  seen.add(value);
  try {
    if (Array.isArray(value)) return `[${value.map((item) => canonical(item, depth + 1, seen)).join(",")}]`;
    const keys = Object.keys(value).filter((key) => (value as Record<string, unknown>)[key] !== undefined).sort();
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonical((value as Record<string, unknown>)[key], depth + 1, seen)}`).join(",")}}`;
  } finally {
    seen.delete(value);
  }
}

/**
 * A digest of a call's content (`sha256:` and 64 hex digits): the tool, its prepared arguments and
 * its declared access, as canonical JSON (keys sorted, `undefined` left out). An approval is for
 * one call's content, never for an id alone: every approver keeps the digest with its answer and
 * takes an answer only for a call with the same digest, so a reused id with other content is asked
 * again. Throws a `TypeError` for content over 64 levels deep or with a cycle (no call's
 * arguments are, once validated): an approver then asks anew.
 */
export function callDigest(call: CallContent): string {
  const text = canonical({ name: call.name, args: call.args, access: call.access }, 0, new Set());
  return `sha256:${createHash("sha256").update(text).digest("hex")}`;
}
