import { type JSONRPCErrorResponse, type JSONRPCMessage, type JSONRPCRequest, parseJSONRPCMessage } from "@modelcontextprotocol/server";
import { type MessageId, readCut } from "@toolhost/mcp-wire";
import type { ResolvedLimits } from "./limits.js";
import type { LineEvent } from "@toolhost/mcp-wire";
import {
  batchTooLargeAnswer,
  batchUnsupportedAnswer,
  batchesAllowed,
  claimedId,
  duplicateIdAnswer,
  invalidAnswer,
  tooLargeAnswer,
} from "./_wire-errors.js";

/** What the reading side of a connection does with the messages it has read. */
export interface InboundSink {
  limits: ResolvedLimits;
  /** The protocol version negotiated so far. */
  version(): string | undefined;
  /** Whether a request with this id is being served or waits to be. */
  isTaken(id: MessageId): boolean;
  request(message: JSONRPCRequest, bytes: number, batch: Batch | undefined): void;
  /** A notification, or the client's answer to a request of ours. */
  notify(message: JSONRPCMessage): void;
  /** Writes a line; `ids` are the requests it answers (their slots are freed once it is written). */
  reply(text: string, ids: MessageId[], after?: () => void): void;
  /** Ends the connection. */
  end(): void;
}

/**
 * The requests of one JSON-RPC batch (protocol 2025-03-26): their answers are gathered and written
 * as one array once every request has been answered or cancelled, as JSON-RPC asks.
 */
export class Batch {
  readonly #waiting = new Set<MessageId>();
  readonly #members: MessageId[] = [];
  readonly #answers: JSONRPCMessage[] = [];
  #sealed = false;
  #done = false;

  constructor(private readonly sink: InboundSink) {}

  has(id: MessageId): boolean {
    return this.#members.includes(id);
  }

  add(id: MessageId): void {
    this.#waiting.add(id);
    this.#members.push(id);
  }

  /** An answer made while reading the batch (an invalid member), sent with the others. */
  push(answer: JSONRPCErrorResponse): void {
    this.#answers.push(answer);
  }

  answer(id: MessageId, message: JSONRPCMessage): void {
    this.#answers.push(message);
    this.#waiting.delete(id);
    this.#flush();
  }

  /** A member that will get no answer (cancelled). */
  forget(id: MessageId): void {
    this.#waiting.delete(id);
    this.#flush();
  }

  /** Every member has been read. */
  seal(): void {
    this.#sealed = true;
    this.#flush();
  }

  #flush(): void {
    if (!this.#sealed || this.#done || this.#waiting.size > 0) return;
    this.#done = true;
    // An all-notification batch gets no answer at all (JSON-RPC: never an empty array).
    this.sink.reply(this.#answers.length > 0 ? `${JSON.stringify(this.#answers)}\n` : "", this.#members);
  }
}

/**
 * Turns the lines a client sent into messages for the SDK, or into error answers: a line over the
 * limit is answered for its id when its start or end shows one; a line that is not JSON, or not
 * JSON-RPC, is answered as JSON-RPC says; a batch is served or refused by the protocol version.
 */
export class InboundMessages {
  #longAnswered = false;

  constructor(private readonly sink: InboundSink) {}

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
      this.#reply(invalidAnswer(null, "not JSON"));
      return;
    }
    if (Array.isArray(value)) this.#batch(value, text.length);
    else this.#one(value, text.length, undefined);
  }

  /**
   * A line over the limit is answered once, for its id, as soon as its start shows one (else at its
   * end), unless it is an answer of the client's own (to an elicitation): those get none.
   */
  #tooLong(event: Extract<LineEvent, { kind: "too-long" }>): void {
    const limit = this.sink.limits.maxMessageBytes;
    if (event.state === "started") {
      const cut = readCut(event.head, "");
      this.#longAnswered = cut.id !== undefined && !cut.isAnswer;
      if (this.#longAnswered) this.#reply(tooLargeAnswer(cut.id as MessageId, limit));
      return;
    }
    const answered = this.#longAnswered;
    this.#longAnswered = false;
    const after = event.state === "endless" ? () => this.sink.end() : undefined;
    const cut = readCut(event.head, event.tail);
    if (answered || cut.isAnswer) after?.();
    else this.sink.reply(`${JSON.stringify(tooLargeAnswer(cut.id ?? null, limit))}\n`, [], after);
  }

  #one(value: unknown, bytes: number, batch: Batch | undefined): void {
    let message: JSONRPCMessage;
    try {
      message = parseJSONRPCMessage(value);
    } catch (error) {
      this.#answer(batch, invalidAnswer(claimedId(value), firstIssue(error)));
      return;
    }
    if (!("method" in message) || !("id" in message) || message.id === undefined) {
      this.sink.notify(message);
      return;
    }
    const request = message as JSONRPCRequest;
    if (this.sink.isTaken(request.id) || batch?.has(request.id)) {
      this.#answer(batch, duplicateIdAnswer(request.id));
      return;
    }
    batch?.add(request.id);
    this.sink.request(request, bytes, batch);
  }

  #batch(values: unknown[], bytes: number): void {
    if (values.length === 0) {
      this.#reply(invalidAnswer(null, "an empty batch"));
      return;
    }
    const ids = values.filter((value) => typeof (value as { method?: unknown } | null)?.method === "string").map(claimedId).filter((id) => id !== null);
    const version = this.sink.version();
    if (!batchesAllowed(version)) {
      for (const id of ids) this.#reply(batchUnsupportedAnswer(id, version));
      return;
    }
    if (ids.length > this.sink.limits.maxInFlight) {
      this.sink.reply(`${JSON.stringify(ids.map((id) => batchTooLargeAnswer(id, ids.length, this.sink.limits.maxInFlight)))}\n`, []);
      return;
    }
    const batch = new Batch(this.sink);
    for (const value of values) this.#one(value, Math.ceil(bytes / values.length), batch);
    batch.seal();
  }

  #answer(batch: Batch | undefined, answer: JSONRPCErrorResponse): void {
    if (batch) batch.push(answer);
    else this.#reply(answer);
  }

  #reply(answer: JSONRPCErrorResponse): void {
    this.sink.reply(`${JSON.stringify(answer)}\n`, []);
  }
}

/** The first thing the SDK's schema found wrong, in a few words. */
function firstIssue(error: unknown): string {
  const issues = (error as { issues?: Array<{ path?: unknown[]; message?: string }> }).issues;
  const issue = issues?.[0];
  if (!issue) return "it does not match the JSON-RPC schema";
  const path = issue.path && issue.path.length > 0 ? `${issue.path.join(".")}: ` : "";
  return `${path}${issue.message ?? "invalid"}`;
}
