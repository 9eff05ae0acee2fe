import { type JSONRPCMessage, parseJSONRPCMessage } from "@modelcontextprotocol/client";
import { McpErrorCode } from "./errors.js";
import { type Fault, sizeText, tooLarge } from "./_faults.js";
import { type MessageId, readCut } from "@toolhost/mcp-wire";
import type { LineEvent } from "@toolhost/mcp-wire";

/** What the transport does with what its server wrote. */
export interface OutputSink {
  /** A message for the SDK. */
  deliver(message: JSONRPCMessage): void;
  /** Whether a request of ours with this id waits for its answer. */
  isPending(id: MessageId): boolean;
  hasPending(): boolean;
  /** Ends one waiting call with a fault, in the server's stead. */
  fail(id: MessageId, fault: Fault): void;
  /** Ends every waiting call with a fault and stops the server (it is started again on the next call). */
  end(fault: Fault): void;
}

/**
 * Reads a server's output line by line, never trusting it: a line that is not JSON, or JSON that is
 * not JSON-RPC, is skipped (and ends the call it claims to answer, if one waits); a line over the
 * limit ends the call whose id its start or end shows; one whose call cannot be told, while calls
 * wait, or one with no end, stops the server, since an answer may be lost in it.
 */
export class ServerOutput {
  #longAnswered = false;

  constructor(
    private readonly sink: OutputSink,
    private readonly limit: number,
    private readonly discard: number,
  ) {}

  read(event: LineEvent): void {
    if (event.kind === "too-long") {
      this.#tooLong(event);
      return;
    }
    const text = event.text.trim();
    if (text === "") return;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return; // Not JSON (a server's stray log line): skipped, as the SDK does.
    }
    for (const each of Array.isArray(value) ? value : [value]) this.#one(each);
  }

  #one(value: unknown): void {
    let message: JSONRPCMessage;
    try {
      message = parseJSONRPCMessage(value);
    } catch (error) {
      const id = claimedAnswerId(value);
      if (id !== undefined && this.sink.isPending(id)) this.sink.fail(id, badAnswer(error));
      return;
    }
    this.sink.deliver(message);
  }

  /**
   * A line over the limit ends the waiting call it answers, as soon as its start shows the id (else
   * at its end). A request of the server's own (it names a method) ends nothing: its ids are the
   * server's, not ours.
   */
  #tooLong(event: Extract<LineEvent, { kind: "too-long" }>): void {
    if (event.state === "started") {
      const cut = readCut(event.head, "");
      this.#longAnswered = cut.id !== undefined && !cut.hasMethod && this.sink.isPending(cut.id);
      if (this.#longAnswered) this.sink.fail(cut.id as MessageId, tooLarge(this.limit, "an answer"));
      return;
    }
    const answered = this.#longAnswered;
    this.#longAnswered = false;
    if (event.state === "endless") {
      this.sink.end({
        code: McpErrorCode.MESSAGE_TOO_LARGE,
        text: `sent a line that went on for more than ${sizeText(this.limit + this.discard)} without an end (tool-mcp's maxMessageBytes is ${sizeText(this.limit)}), so it was stopped; it is started again on the next call`,
      });
      return;
    }
    const cut = readCut(event.head, event.tail);
    if (answered || cut.hasMethod) return;
    if (cut.id !== undefined) {
      if (this.sink.isPending(cut.id)) this.sink.fail(cut.id, tooLarge(this.limit, "an answer"));
    } else if (this.sink.hasPending()) {
      this.sink.end({
        code: McpErrorCode.MESSAGE_TOO_LARGE,
        text: `sent a message longer than ${sizeText(this.limit)} (tool-mcp's maxMessageBytes) that names no call, while calls waited for answers; the server was stopped, since an answer may have been in it, and is started again on the next call. If its answers are meant to be this large, raise maxMessageBytes`,
      });
    }
  }
}

/** The id of a value that looks like an answer (it has a `result` or an `error`) but may be malformed. */
function claimedAnswerId(value: unknown): MessageId | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const record = value as Record<string, unknown>;
  if (!("result" in record) && !("error" in record)) return undefined;
  const id = record.id;
  return typeof id === "string" || typeof id === "number" ? id : undefined;
}

function badAnswer(error: unknown): Fault {
  const issue = (error as { issues?: Array<{ path?: unknown[]; message?: string }> }).issues?.[0];
  const where = issue?.path && issue.path.length > 0 ? ` at ${issue.path.join(".")}` : "";
  return {
    code: McpErrorCode.BAD_ANSWER,
    text: `answered with a message that is not valid JSON-RPC (${issue?.message ?? "it does not match the schema"}${where}); the call ended`,
  };
}
