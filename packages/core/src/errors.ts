import { preview } from "./preview.js";

/**
 * Stable codes of the errors toolhost reports. Results made by the kernel carry theirs in
 * `details.code`; thrown errors are `ToolhostError`s with `code`.
 */
export const ErrorCode = Object.freeze({
  INVALID_BATCH: "TOOLHOST_INVALID_BATCH",
  INVALID_CALL: "TOOLHOST_INVALID_CALL",
  TOOL_NOT_FOUND: "TOOLHOST_TOOL_NOT_FOUND",
  TOOL_RESOLVE_FAILED: "TOOLHOST_TOOL_RESOLVE_FAILED",
  PREPARE_FAILED: "TOOLHOST_PREPARE_FAILED",
  VALIDATION_FAILED: "TOOLHOST_VALIDATION_FAILED",
  INVALID_ARGUMENTS: "TOOLHOST_INVALID_ARGUMENTS",
  ACCESS_FAILED: "TOOLHOST_ACCESS_FAILED",
  BLOCKED: "TOOLHOST_BLOCKED",
  NOT_APPROVED: "TOOLHOST_NOT_APPROVED",
  POLICY_FAILED: "TOOLHOST_POLICY_FAILED",
  TOOL_FAILED: "TOOLHOST_TOOL_FAILED",
  INVALID_RESULT: "TOOLHOST_INVALID_RESULT",
  AFTER_HOOK_FAILED: "TOOLHOST_AFTER_HOOK_FAILED",
  REDACTION_FAILED: "TOOLHOST_REDACTION_FAILED",
  ABORTED: "TOOLHOST_ABORTED",
  TIMED_OUT: "TOOLHOST_TIMED_OUT",
  INVALID_TOOL: "TOOLHOST_INVALID_TOOL",
  DUPLICATE_TOOL: "TOOLHOST_DUPLICATE_TOOL",
  DUPLICATE_SERVICE: "TOOLHOST_DUPLICATE_SERVICE",
  INVALID_PLUGIN: "TOOLHOST_INVALID_PLUGIN",
  INVALID_PLUGIN_OPTIONS: "TOOLHOST_INVALID_PLUGIN_OPTIONS",
  INCOMPATIBLE_PLUGIN: "TOOLHOST_INCOMPATIBLE_PLUGIN",
  PLUGIN_APPLY_FAILED: "TOOLHOST_PLUGIN_APPLY_FAILED",
  HARNESS_DISPOSED: "TOOLHOST_HARNESS_DISPOSED",
  AGENT_BUSY: "TOOLHOST_AGENT_BUSY",
  OUTPUT_CUT_OFF: "TOOLHOST_OUTPUT_CUT_OFF",
  /** A bug of toolhost itself, never of what a caller sent. */
  INTERNAL: "TOOLHOST_INTERNAL",
} as const);

export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

/** An error a user can meet: a stable `code`, and a message that says what happened, where, and what to do. */
export class ToolhostError extends Error {
  override name = "ToolhostError";
  readonly code: string;
  /**
   * Facts for the result a refusal becomes (`suggestions` for a missing file, the roots a path is
   * outside of): a tool's `access` that throws a ToolhostError gets them in its result's `details`.
   */
  readonly details: Record<string, unknown> | undefined;

  constructor(code: string, message: string, options?: { cause?: unknown; details?: Record<string, unknown> }) {
    super(message, options);
    this.code = code;
    this.details = options?.details;
  }
}

const MAX_MESSAGE = 2_000;

/**
 * The message of anything thrown, for a result or a log line: at most 2,000 characters, and never
 * throwing itself (a thrown Proxy, a getter that throws, an object without a prototype).
 */
export function messageOf(error: unknown): string {
  try {
    if (typeof error === "string") return cut(error);
    if (error instanceof Error) return cut(String(error.message || error.name));
    return preview(error, MAX_MESSAGE);
  } catch {
    return "(an error that could not be described)";
  }
}

function cut(text: string): string {
  return text.length > MAX_MESSAGE ? `${text.slice(0, MAX_MESSAGE)}… (${text.length - MAX_MESSAGE} more characters)` : text;
}

/**
 * An error's message followed by its causes (`err.cause`), each once, without doubled punctuation:
 * "fetch failed: connect ECONNREFUSED 127.0.0.1:9" where the message alone ("fetch failed") hides
 * what failed and where. An `AggregateError` without a message (Node's connection attempts to each
 * address of a host) says each of its errors.
 */
export function describeError(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current !== undefined && current !== null && depth < 5; depth++) {
    const text = ownText(current).replace(/[.:;\s]+$/, "");
    if (text !== "" && !parts.some((part) => part.includes(text))) parts.push(text);
    current = (current as { cause?: unknown }).cause;
  }
  return parts.join(": ") || "unknown error";
}

function ownText(error: unknown): string {
  const { errors, code } = error as { errors?: unknown; code?: unknown };
  let text = error instanceof Error ? error.message : messageOf(error);
  if (text === "" && Array.isArray(errors) && errors.length > 0) text = [...new Set(errors.map(ownText))].join("; ");
  if (typeof code === "string" && !text.includes(code)) text = text === "" ? code : `${text} (${code})`;
  return text === "" && error instanceof Error ? error.name : text;
}
