import type { SyncWaterfallHook } from "tapable";
import { ErrorCode } from "./errors.js";
import { snapshot } from "./preview.js";
import { toolError } from "./results.js";
import { TapError } from "./_taps.js";
import type { AgentToolResult, AgentToolUpdate } from "./types/index.js";

/*
 * Redaction of everything that leaves the kernel: every text passes through `hooks.redact`. Without
 * a redact tap each function gives its input back after one check, so redaction costs nothing
 * unless someone redacts. A walk is bounded (depth, size) and cycle-safe; what is past the bound
 * is left out, never passed through unredacted. A tap that throws (or returns something other than
 * a string) withholds the item.
 */

type RedactHook = SyncWaterfallHook<[string]>;

/** How far a redaction walks into `details` and arguments. */
const LIMITS = { depth: 64, nodes: 100_000 };
const WITHHELD = "[withheld: redaction failed]";

function texts(hook: RedactHook): (text: string) => string {
  return (text) => {
    const redacted: unknown = hook.call(text);
    if (typeof redacted !== "string") throw new TypeError(`a redact tap returned ${typeof redacted}, not a string`);
    return redacted;
  };
}

/** A result with its texts and the strings of its details redacted; an error result when redaction fails. */
export function redactResult(hook: RedactHook, result: AgentToolResult): AgentToolResult {
  if (hook.taps.length === 0) return result;
  const text = texts(hook);
  try {
    return {
      ...result,
      content: result.content.map((block) => (block.type === "text" ? { ...block, text: text(block.text) } : block)),
      details: snapshot(result.details, LIMITS, text),
    };
  } catch (error) {
    const tap = error instanceof TapError ? error.tapName : undefined;
    // The tap's message is not shown: it may quote the text it failed on.
    const by = tap === undefined ? "" : ` (redact tap "${tap}" failed)`;
    return toolError(ErrorCode.REDACTION_FAILED, `This result was withheld: redacting it failed${by}, so none of it is shown.`, {
      failedTap: tap,
    });
  }
}

/** An update redacted, or undefined when redaction fails: the update is dropped. */
export function redactUpdate(hook: RedactHook, update: AgentToolUpdate): AgentToolUpdate | undefined {
  if (hook.taps.length === 0) return update;
  const text = texts(hook);
  try {
    const content = update.content.map((block) => (block.type === "text" ? { ...block, text: text(block.text) } : block));
    return update.details === undefined ? { content } : { content, details: snapshot(update.details, LIMITS, text) };
  } catch {
    return undefined;
  }
}

/** Arguments as an event carries them, redacted; a note in their place when redaction fails. */
export function redactArgs(hook: RedactHook, args: unknown): unknown {
  if (hook.taps.length === 0) return args;
  try {
    return snapshot(args, LIMITS, texts(hook));
  } catch {
    return WITHHELD;
  }
}

/** One text redacted; a note in its place when redaction fails. */
export function redactText(hook: RedactHook, text: string): string {
  if (hook.taps.length === 0) return text;
  try {
    return texts(hook)(text);
  } catch {
    return WITHHELD;
  }
}
