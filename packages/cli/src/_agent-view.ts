import { type AgentEvent, type AgentHarness, ErrorCode, preview, resultCode } from "@toolhost/core";
import type { Cli } from "./cli.js";
import { interruptedLine, LastLines } from "./_interrupted.js";
import { contentText, jsonLine } from "./_output.js";
import { type Progress, startProgress } from "./_progress.js";
import { terminalLine } from "./_terminal-text.js";

/** How `toolhost agent` shows a run. */
export interface View {
  onEvent(event: AgentEvent): void;
  close(): Promise<void>;
}

/** Every event as a JSON line; the partial message of each delta is left out (the delta says it). */
export function jsonView(cli: Cli): View {
  return {
    onEvent(event) {
      const line = event.type === "message_update" ? { type: event.type, assistantMessageEvent: event.assistantMessageEvent } : event;
      cli.stdout.write(jsonLine(line));
    },
    close: () => cli.out(""),
  };
}

/**
 * The assistant's text on stdout as it streams; each tool call on stderr (`→ tool {args}`) with a
 * spinner, then `✓ tool (12 ms)  first line` or `✗ tool: the error`; a call stopped by Ctrl-C says
 * so, with the last line it showed. Everything it quotes is shown escaped.
 */
export class TerminalView implements View {
  readonly #running = new Map<string, string>();
  readonly #lastLines: LastLines;
  #progress: Progress | undefined;
  #textOpen = false;

  constructor(
    private readonly cli: Cli,
    private readonly harness: AgentHarness,
  ) {
    this.#lastLines = new LastLines(harness);
  }

  onEvent(event: AgentEvent): void {
    if (event.type === "message_update" && event.assistantMessageEvent.type === "text_delta") {
      this.cli.stdout.write(this.cli.toolOutput(event.assistantMessageEvent.delta));
      this.#textOpen = true;
    } else if (event.type === "message_end" && event.message.role === "assistant") {
      this.#endText();
      this.#retries(event.message.retries ?? 0);
    } else if (event.type === "tool_execution_start") {
      this.#started(event.toolCallId, terminalLine(`${event.toolName} ${short(event.args)}`));
    } else if (event.type === "tool_execution_end") {
      this.#ended(event);
    }
  }

  async close(): Promise<void> {
    this.#endText();
    this.#running.clear();
    this.#lastLines.stop();
    await this.#restartProgress();
    await this.cli.out("");
  }

  #endText(): void {
    if (!this.#textOpen) return;
    this.cli.stdout.write("\n");
    this.#textOpen = false;
  }

  #retries(retries: number): void {
    if (retries === 0 || this.cli.globals.quiet) return;
    const paint = this.cli.paintErr;
    this.cli.stderr.write(`${paint("yellow", "!")} ${paint("dim", `the model endpoint was retried ${retries} time${retries === 1 ? "" : "s"} before it answered`)}\n`);
  }

  #started(toolCallId: string, label: string): void {
    this.#endText();
    this.#running.set(toolCallId, label);
    if (!this.cli.globals.quiet) this.cli.stderr.write(`${this.cli.paintErr("cyan", "→")} ${label}\n`);
    void this.#restartProgress();
  }

  #ended(event: Extract<AgentEvent, { type: "tool_execution_end" }>): void {
    this.#running.delete(event.toolCallId);
    void this.#restartProgress();
    if (this.cli.globals.quiet) return;
    const paint = this.cli.paintErr;
    // The tool's own time: the wait for a person to approve it is not the tool's.
    const own = Math.max(0, event.durationMs - (this.cli.approvalWaitMs.get(event.toolCallId) ?? 0));
    const took = paint("dim", `(${Math.round(own)} ms)`);
    const by = this.cli.interruptedBy;
    const text = by !== undefined && resultCode(event.result) === ErrorCode.ABORTED ? interruptedLine(by, { content: [] }, this.#lastLines.get(event.toolCallId)) : contentText(event.result.content);
    const first = terminalLine(firstLine(text));
    const name = terminalLine(event.toolName);
    if (event.isError) this.cli.stderr.write(`${paint("red", "✗")} ${name}: ${first} ${took}\n`);
    else this.cli.stderr.write(`${paint("green", "✓")} ${name} ${took}${first === "" ? "" : `  ${paint("dim", first)}`}\n`);
  }

  async #restartProgress(): Promise<void> {
    this.#progress?.stop();
    this.#progress = undefined;
    this.cli.progress = undefined;
    if (this.#running.size === 0 || this.cli.globals.quiet) return;
    this.#progress = await startProgress(this.harness, [...this.#running.values()].join(", "), true);
    this.cli.progress = this.#progress;
  }
}

/** A result's first non-empty line, cut to fit one line. */
function firstLine(text: string): string {
  const line = text.split("\n").map((each) => each.trim()).find((each) => each !== "") ?? "";
  return line.length > 100 ? `${line.slice(0, 99)}…` : line;
}

/** Arguments in one short line. */
function short(args: unknown): string {
  const text = preview(args, 99);
  return text.length > 100 ? `${text.slice(0, 99)}…` : text;
}
