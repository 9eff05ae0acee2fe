import type { Writable } from "node:stream";
import { preview } from "@toolhost/core";
import { ExitCode } from "./exit-code.js";

export { ExitCode };


/** Whether to color a stream: a terminal, NO_COLOR unset or empty, TERM not dumb (FORCE_COLOR wins). */
export function colorEnabled(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== "0") return true;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return false;
  return stream.isTTY === true && env.TERM !== "dumb";
}

export type Style = "bold" | "dim" | "red" | "green" | "yellow" | "cyan";
const CODES: Record<Style, [number, number]> = {
  bold: [1, 22],
  dim: [2, 22],
  red: [31, 39],
  green: [32, 39],
  yellow: [33, 39],
  cyan: [36, 39],
};

/** A function that styles text for one stream, or leaves it plain. */
/** Paints a text in a style when the stream is a terminal (and NO_COLOR is not set). */
export type Painter = (style: Style, text: string) => string;

export function painter(stream: { isTTY?: boolean }): Painter {
  if (!colorEnabled(stream)) return (_style, text) => text;
  return (style, text) => `\u001B[${CODES[style][0]}m${text}\u001B[${CODES[style][1]}m`;
}

/** Writes and resolves once the text is handed to the OS, so that an exit right after loses nothing. */
export function write(stream: Writable, text: string): Promise<void> {
  return new Promise((resolve) => {
    if (text === "") resolve();
    else stream.write(text, () => resolve());
  });
}

/** The text of a result's content: text blocks as they are, images as a short note. */
export function contentText(content: ReadonlyArray<{ type: string; text?: string; mimeType?: string; data?: string }>): string {
  return content
    .map((block) =>
      block.type === "text" ? (block.text ?? "") : `[${block.type}${block.mimeType ? ` ${block.mimeType}` : ""}, ${block.data?.length ?? 0} base64 characters]`,
    )
    .join("\n");
}

/** How much of a value JSON cannot hold (too deep, a cycle, a BigInt) is shown, as a preview. */
const MAX_PREVIEW = 10_000;

/**
 * A value as one JSON line, whatever it holds, never throwing: a property that JSON cannot write
 * (nested too deep, cyclic, a BigInt) is written as a bounded preview text in its place, so that a
 * result whose tool echoed a 5,000-level argument is printed instead of crashing the command.
 */
export function jsonLine(value: unknown): string {
  return `${printable(value, 0)}\n`;
}

function printable(value: unknown, depth: number): string {
  try {
    return JSON.stringify(value) ?? "null";
  } catch {
    if (depth >= 2 || value === null || typeof value !== "object" || Array.isArray(value)) return JSON.stringify(preview(value, MAX_PREVIEW));
    try {
      const parts = Object.keys(value).map((key) => `${JSON.stringify(key)}:${printable((value as Record<string, unknown>)[key], depth + 1)}`);
      return `{${parts.join(",")}}`;
    } catch {
      return JSON.stringify(preview(value, MAX_PREVIEW));
    }
  }
}
