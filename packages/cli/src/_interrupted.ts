import type { AgentHarness, AgentToolResult, AgentToolUpdate, ToolResultMessage } from "@toolhost/core";
import { contentText } from "./_output.js";

/**
 * What a call showed last before Ctrl-C: the latest non-empty line of each running call's updates,
 * by call id. A tool stopped before it could return its output so far (not every tool keeps it)
 * still leaves this line, which the interrupted result then carries.
 */
export class LastLines {
  readonly #lines = new Map<string, string>();
  readonly #unsubscribe: () => void;

  constructor(harness: AgentHarness) {
    this.#unsubscribe = harness.subscribe((event) => {
      if (event.type !== "tool_execution_update") return;
      const line = latestLine(event.partialResult);
      if (line !== undefined) this.#lines.set(event.toolCallId, line);
    });
  }

  get(toolCallId: string): string | undefined {
    return this.#lines.get(toolCallId);
  }

  stop(): void {
    this.#unsubscribe();
  }
}

/** The last non-empty line of an update, trimmed. */
export function latestLine(update: AgentToolUpdate): string | undefined {
  return contentText(update.content)
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "")
    .at(-1);
}

/** How a person stopped the run: `Ctrl-C`, or the signal that came instead (a closed terminal's SIGHUP). */
export type InterruptedBy = "Ctrl-C" | "SIGTERM" | "SIGHUP";

/** The line that says a call was interrupted, and what it showed last when its result does not hold that. */
export function interruptedLine(by: InterruptedBy, result: Pick<AgentToolResult, "content">, lastLine: string | undefined): string {
  const shown = lastLine !== undefined && !contentText(result.content).includes(lastLine);
  return `Interrupted (${by})${shown ? `; the last output line seen: ${lastLine}` : "."}`;
}

/**
 * An aborted result of an interrupted run, saying so: a last text line (`Interrupted (Ctrl-C); the
 * last output line seen: …`) after the tool's own output and the kernel's `Tool "x" aborted.`, and
 * `interrupted` and `lastOutputLine` in its details.
 */
export function markInterrupted(result: ToolResultMessage, by: InterruptedBy, lastLine: string | undefined): ToolResultMessage {
  const details = result.details !== null && typeof result.details === "object" ? (result.details as Record<string, unknown>) : {};
  return {
    ...result,
    content: [...result.content, { type: "text", text: interruptedLine(by, result, lastLine) }],
    details: { ...details, interrupted: by, ...(lastLine !== undefined && { lastOutputLine: lastLine }) },
  };
}
