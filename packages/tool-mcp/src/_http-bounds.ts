import type { FetchLike } from "@modelcontextprotocol/client";
import { type Fault, faultAnswer, tooLarge } from "./_faults.js";
import type { MessageId } from "@toolhost/mcp-wire";

/** Statuses whose response has no body (a Response cannot be made with one). */
const NO_BODY = new Set([101, 204, 205, 304]);

/**
 * A `fetch` for the SDK's Streamable HTTP transport that bounds every read from the server: a
 * response body (JSON, or an error's text) to `maxBytes`, and each event of an event stream to
 * `maxBytes`. A response over the bound that answers one of our requests is replaced by an error
 * answer for it (so the call ends at once, saying why); an over-long event ends its stream.
 */
export function boundedFetch(maxBytes: number, base: FetchLike = fetch): FetchLike {
  return async (url, init) => {
    const response = await base(url, ownSignal(init));
    if (response.body === null || NO_BODY.has(response.status)) return response;
    const ids = (): MessageId[] => requestIdsOf(init?.body);
    const type = (response.headers.get("content-type") ?? "").split(";")[0]?.trim().toLowerCase();
    if (type === "text/event-stream") {
      return new Response(response.body.pipeThrough(boundedEvents(maxBytes, ids)), { status: response.status, statusText: response.statusText, headers: response.headers });
    }
    const text = await readBounded(response.body, maxBytes);
    if (text !== undefined) return new Response(text, { status: response.status, statusText: response.statusText, headers: response.headers });
    const answers = response.ok ? ids().map((id) => faultAnswer(id, tooLarge(maxBytes, "an answer"))) : [];
    if (answers.length === 0) {
      return new Response(`The server's response was longer than ${maxBytes} bytes (tool-mcp's maxMessageBytes) and was not read.`, { status: response.ok ? 502 : response.status, statusText: response.statusText });
    }
    return Response.json(answers.length === 1 ? answers[0] : answers, { status: 200 });
  };
}

/**
 * The SDK gives every request its transport's one signal, and fetch adds an abort listener to it
 * that is released only at garbage collection (and warns, MaxListenersExceededWarning, past the
 * 1,500 undici allows). A signal of the request's own, which follows the transport's without a
 * listener on it (`AbortSignal.any`), takes the listener instead.
 */
function ownSignal(init: RequestInit | undefined): RequestInit | undefined {
  if (!init?.signal || typeof AbortSignal.any !== "function") return init;
  return { ...init, signal: AbortSignal.any([init.signal]) };
}

/** The body as text, or undefined when it is longer than `maxBytes` (the rest is not read). */
async function readBounded(body: ReadableStream<Uint8Array>, maxBytes: number): Promise<string | undefined> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => {});
      return undefined;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/**
 * Passes an event stream through while each event (the bytes up to a blank line) stays within
 * `maxBytes`. An event over it is cut there: the stream ends with an error answer for the request
 * it answers (a POST's stream), or with an error (the standalone stream, which answers none).
 */
function boundedEvents(maxBytes: number, ids: () => MessageId[]): TransformStream<Uint8Array, Uint8Array> {
  let size = 0;
  let afterNewline = false;
  return new TransformStream({
    transform(chunk, controller) {
      for (let i = 0; i < chunk.length; i++) {
        const byte = chunk[i];
        if (byte === 10) {
          if (afterNewline) size = -1; // a blank line: the event is complete
          afterNewline = true;
        } else if (byte !== 13) afterNewline = false;
        size += 1;
        if (size > maxBytes) {
          controller.enqueue(chunk.subarray(0, i));
          endWith(controller, ids(), tooLarge(maxBytes, "an event"));
          return;
        }
      }
      controller.enqueue(chunk);
    },
  });
}

function endWith(controller: TransformStreamDefaultController<Uint8Array>, ids: MessageId[], fault: Fault): void {
  if (ids.length === 0) {
    controller.error(new Error(`the server ${fault.text}`));
    return;
  }
  // A blank line first ends the cut event (the SDK skips it as unreadable), then each answer.
  const events = ids.map((id) => `event: message\ndata: ${JSON.stringify(faultAnswer(id, fault))}\n\n`).join("");
  controller.enqueue(new TextEncoder().encode(`\n\n${events}`));
  controller.terminate();
}

/** The ids of the requests in a body the SDK sent (its own JSON: one message, or a batch). */
function requestIdsOf(body: unknown): MessageId[] {
  if (typeof body !== "string") return [];
  try {
    const value: unknown = JSON.parse(body);
    return (Array.isArray(value) ? value : [value])
      .filter((message) => typeof message?.method === "string")
      .map((message) => (message as { id?: unknown }).id)
      .filter((id): id is MessageId => typeof id === "string" || typeof id === "number");
  } catch {
    return [];
  }
}
