import type { IncomingMessage, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { claimedId, batchTooLargeAnswer, batchUnsupportedAnswer, batchesAllowed, errorAnswer, invalidAnswer, tooLargeAnswer, BATCH_REVISION } from "./_wire-errors.js";
import { DISCARD_BYTES, type ResolvedLimits } from "./limits.js";
import { Slots } from "./_slots.js";
import { McpServeErrorCode } from "./errors.js";

/** Serves one request whose body has been read (the SDK's Node handler). */
export type BodyHandler = (req: IncomingMessage, res: ServerResponse, parsedBody?: unknown) => Promise<void>;

type Body = { kind: "json"; value: unknown } | { kind: "none" } | { kind: "refused"; status: number; answer: unknown };

/**
 * The requests served at once over HTTP: `maxInFlight` per connection (a client that pipelines on
 * one connection waits, and its connection is not read meanwhile) and `maxInFlightTotal` in all.
 * A request holds its slot until its answer has been written; a 2025-03-26 batch holds one per
 * request in it. The body is read only once a slot is held, up to `maxMessageBytes`.
 */
export class HttpGate {
  readonly #total: Slots;
  readonly #perConnection = new WeakMap<Socket, Slots>();

  constructor(private readonly limits: ResolvedLimits) {
    this.#total = new Slots(limits.maxInFlightTotal);
  }

  async serve(req: IncomingMessage, res: ServerResponse, handle: BodyHandler): Promise<void> {
    const own = this.#slotsOf(req.socket);
    let held = 1;
    await this.#take(req.socket, own, held);
    try {
      const body = req.method === "POST" ? await readJson(req, this.limits.maxMessageBytes) : ({ kind: "none" } as const);
      if (body.kind === "refused") return answer(res, body.status, body.answer);
      if (body.kind === "json" && Array.isArray(body.value)) {
        const verdict = batchVerdict(body.value, header(req, "mcp-protocol-version"), this.limits.maxInFlight);
        if ("refused" in verdict) return answer(res, 400, verdict.refused);
        // Give the one slot back and take the batch's whole count at once: holding one while
        // waiting for more could deadlock two batches.
        this.#give(own, held);
        held = 0;
        await this.#take(req.socket, own, verdict.requests);
        held = verdict.requests;
      }
      await handle(req, res, body.kind === "json" ? body.value : undefined);
    } finally {
      this.#give(own, held);
    }
  }

  #slotsOf(socket: Socket): Slots {
    let slots = this.#perConnection.get(socket);
    if (!slots) {
      slots = new Slots(this.limits.maxInFlight);
      this.#perConnection.set(socket, slots);
    }
    return slots;
  }

  /** Takes `count` of the connection's slots and of the total, not reading the connection while it waits. */
  async #take(socket: Socket, own: Slots, count: number): Promise<void> {
    if (count === 0) return;
    const waits = own.wouldWait(count) || this.#total.wouldWait(count);
    if (waits) socket.pause();
    await own.take(count);
    await this.#total.take(count);
    if (waits && own.waiting === 0) socket.resume();
  }

  #give(own: Slots, count: number): void {
    if (count === 0) return;
    own.give(count);
    this.#total.give(count);
  }
}

/**
 * Whether a batch may be served: only in protocol 2025-03-26 (the version a request without an
 * `MCP-Protocol-Version` header is taken to use, as the spec says) and with at most `maxInFlight`
 * requests; otherwise each request id gets an error answer.
 */
function batchVerdict(values: unknown[], version: string | undefined, maxInFlight: number): { requests: number } | { refused: unknown } {
  const ids = values.filter((value) => typeof (value as { method?: unknown } | null)?.method === "string").map(claimedId).filter((id) => id !== null);
  const effective = version ?? BATCH_REVISION;
  if (values.length === 0) return { refused: invalidAnswer(null, "an empty batch") };
  if (!batchesAllowed(effective)) {
    return { refused: ids.length > 0 ? ids.map((id) => batchUnsupportedAnswer(id, effective)) : batchUnsupportedAnswer(null, effective) };
  }
  if (ids.length > maxInFlight) return { refused: ids.map((id) => batchTooLargeAnswer(id, ids.length, maxInFlight)) };
  return { requests: Math.max(1, ids.length) };
}

/**
 * The request's JSON body, read to at most `maxBytes`. A longer body is read on (and dropped) up to
 * 64 MiB more so that the client, still sending, can read the answer; past that, or when it says in
 * Content-Length that it is longer, it is answered without being read and the connection closed.
 */
async function readJson(req: IncomingMessage, maxBytes: number): Promise<Body> {
  const tooLarge: Body = { kind: "refused", status: 413, answer: tooLargeAnswer(null, maxBytes) };
  if (Number(header(req, "content-length")) > maxBytes + DISCARD_BYTES) return tooLarge;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes + DISCARD_BYTES) return tooLarge;
    if (size <= maxBytes) chunks.push(chunk);
  }
  if (size > maxBytes) return tooLarge;
  const text = Buffer.concat(chunks).toString("utf8");
  if (text.trim() === "") return { kind: "refused", status: 400, answer: invalidAnswer(null, "an empty body") };
  try {
    return { kind: "json", value: JSON.parse(text) };
  } catch {
    return { kind: "refused", status: 400, answer: errorAnswer(null, McpServeErrorCode.PARSE_ERROR, "The request body is not JSON. Send one JSON-RPC message.") };
  }
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function answer(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  // A body left unread (too large) cannot be followed by another request on this connection.
  res.writeHead(status, { "content-type": "application/json", ...(status === 413 ? { connection: "close" } : {}) });
  res.end(JSON.stringify(body));
}
