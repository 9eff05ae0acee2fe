/**
 * A fake OpenAI-compatible Chat Completions endpoint for tests: a real HTTP server on 127.0.0.1
 * that answers each request with the next turn of a script, in the real wire format (SSE lines
 * `data: {...}` and a final `data: [DONE]`), and records every request it gets.
 *
 * Only Node built-ins here, so other packages' tests can import it by relative path.
 *
 * ```ts
 * const fake = await startFakeOpenAI([toolCallsTurn([{ id: "c1", name: "read", arguments: { path: "a" } }]), textTurn("done")]);
 * // … point the provider at fake.url, run, then:
 * expect(fake.requests[1]?.body.messages.at(-1).role).toBe("tool");
 * await fake.close();
 * ```
 */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** One streamed chunk: an object is sent as JSON; a string is sent as the raw `data:` payload (to test malformed chunks). */
export type FakeChunk = Record<string, unknown> | string;

/** A 200 answer that streams chunks. */
export interface StreamTurn {
  chunks: FakeChunk[];
  /** End with `data: [DONE]`. Default true. */
  done?: boolean;
  /** After the chunks, keep the response open until the client goes away (abort tests). */
  hang?: boolean;
  /** After the chunks, destroy the connection without ending the answer, as a crashing server would. */
  drop?: boolean;
  /** Wait this long between chunks, in ms. Default 0 (each chunk is still its own write). */
  delayMs?: number;
  headers?: Record<string, string>;
}

/** An HTTP error answer. */
export interface ErrorTurn {
  status: number;
  /** An object is sent as JSON; a string as text. Default `{ error: { message, type } }`. */
  body?: unknown;
  /**
   * Default `retry-after-ms: 0`, so that the SDK retries at once instead of backing off for
   * seconds; give `{}` or other values to change it.
   */
  headers?: Record<string, string>;
}

/** No answer at all, not even headers, until the client gives up (timeout tests). */
export interface NoAnswerTurn {
  noAnswer: true;
}

/** A turn of the script, or a function that makes it from the request (to answer what was asked). */
export type FakeTurn = StreamTurn | ErrorTurn | NoAnswerTurn | ((request: FakeRequest) => StreamTurn | ErrorTurn | NoAnswerTurn);

/** A request the fake received. */
export interface FakeRequest {
  method: string;
  /** The path, e.g. `/v1/chat/completions`. */
  path: string;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body (or the raw text if it was not JSON). */
  // biome-ignore lint: tests read any field of the body.
  body: any;
  /** Resolves when the answer's connection has closed, either end. */
  closed: Promise<void>;
  /** Whether the client closed the connection before the answer was complete (an abort). */
  closedEarly: boolean;
}

export interface FakeOpenAI {
  /** The base URL to give the provider: `http://127.0.0.1:<port>/v1`. */
  url: string;
  /** Every request received, in order; retries included. */
  requests: FakeRequest[];
  /** Ends open answers and stops the server. */
  close(): Promise<void>;
}

/**
 * Starts the fake. Request N (retries count) gets `script[N]`; a request past the end of the
 * script gets a 500 that says so (and tells the SDK not to retry).
 */
export async function startFakeOpenAI(script: FakeTurn[]): Promise<FakeOpenAI> {
  const requests: FakeRequest[] = [];
  const server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on("data", (part: Buffer) => parts.push(part));
    req.on("end", () => {
      const text = Buffer.concat(parts).toString("utf8");
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // kept as text
      }
      let markClosed!: () => void;
      const record: FakeRequest = {
        method: req.method ?? "",
        path: req.url ?? "",
        headers: req.headers,
        body,
        closed: new Promise<void>((resolve) => {
          markClosed = resolve;
        }),
        closedEarly: false,
      };
      res.on("close", () => {
        record.closedEarly = !res.writableFinished;
        markClosed();
      });
      const number = requests.push(record);
      const scripted = script[number - 1];
      if (req.method !== "POST" || !/\/chat\/completions$/.test(record.path)) {
        sendError(res, { status: 404, body: { error: { message: `fake OpenAI: no route ${req.method} ${record.path}` } }, headers: { "x-should-retry": "false" } });
        return;
      }
      if (scripted === undefined) {
        sendError(res, {
          status: 500,
          body: { error: { message: `fake OpenAI: no scripted turn for request #${number} (the script has ${script.length})` } },
          headers: { "x-should-retry": "false" },
        });
        return;
      }
      const turn = typeof scripted === "function" ? scripted(record) : scripted;
      if ("status" in turn) sendError(res, turn);
      else if ("chunks" in turn) void sendStream(res, turn);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        if (!server.listening) return resolve();
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}

function sendError(res: ServerResponse, turn: ErrorTurn): void {
  const body =
    turn.body === undefined
      ? { error: { message: `fake OpenAI: scripted HTTP ${turn.status}`, type: "server_error" } }
      : turn.body;
  const text = typeof body === "string" ? body : JSON.stringify(body);
  res.writeHead(turn.status, {
    "content-type": typeof body === "string" ? "text/plain" : "application/json",
    ...(turn.headers ?? { "retry-after-ms": "0" }),
  });
  res.end(text);
}

async function sendStream(res: ServerResponse, turn: StreamTurn): Promise<void> {
  res.writeHead(200, {
    "content-type": "text/event-stream",
    "cache-control": "no-cache",
    connection: "keep-alive",
    ...turn.headers,
  });
  for (const each of turn.chunks) {
    if (res.destroyed) return;
    res.write(`data: ${typeof each === "string" ? each : JSON.stringify(each)}\n\n`);
    await pause(turn.delayMs ?? 0);
  }
  if (turn.hang || res.destroyed) return;
  if (turn.drop) {
    res.socket?.destroy();
    return;
  }
  if (turn.done !== false) res.write("data: [DONE]\n\n");
  res.end();
}

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => (ms > 0 ? setTimeout(resolve, ms) : setImmediate(resolve)));
}

// ---- chunk builders, in the shapes OpenAI sends ----

const CREATED = 1_700_000_000;

/** One `chat.completion.chunk` with a delta for choice 0. */
export function chunk(
  delta: Record<string, unknown>,
  options: { finishReason?: string | null; model?: string } = {},
): Record<string, unknown> {
  return {
    id: "chatcmpl-fake",
    object: "chat.completion.chunk",
    created: CREATED,
    model: options.model ?? "fake-model",
    choices: [{ index: 0, delta, logprobs: null, finish_reason: options.finishReason ?? null }],
  };
}

/** The last chunk OpenAI sends with `stream_options.include_usage`: no choices, the usage. */
export function usageChunk(usage: { prompt: number; completion: number; cached?: number }): Record<string, unknown> {
  return {
    id: "chatcmpl-fake",
    object: "chat.completion.chunk",
    created: CREATED,
    model: "fake-model",
    choices: [],
    usage: {
      prompt_tokens: usage.prompt,
      completion_tokens: usage.completion,
      total_tokens: usage.prompt + usage.completion,
      prompt_tokens_details: { cached_tokens: usage.cached ?? 0 },
      completion_tokens_details: { reasoning_tokens: 0 },
    },
  };
}

/** Splits text into pieces of `size` characters (at least one piece). */
export function pieces(text: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out.length > 0 ? out : [""];
}

export interface TurnOptions {
  /** Characters per content or arguments chunk. Default 4. */
  pieceSize?: number;
  /** Default: `{ prompt: 10, completion: 5 }`; `null` sends no usage chunk. */
  usage?: { prompt: number; completion: number; cached?: number } | null;
  finishReason?: string;
  model?: string;
}

/** A turn where the model answers with text, streamed in small pieces, then stops. */
export function textTurn(text: string, options: TurnOptions = {}): StreamTurn {
  const model = options.model === undefined ? {} : { model: options.model };
  const chunks: FakeChunk[] = [chunk({ role: "assistant", content: "" }, model)];
  for (const piece of pieces(text, options.pieceSize ?? 4)) chunks.push(chunk({ content: piece }, model));
  chunks.push(chunk({}, { ...model, finishReason: options.finishReason ?? "stop" }));
  if (options.usage !== null) chunks.push(usageChunk(options.usage ?? { prompt: 10, completion: 5 }));
  return { chunks };
}

/** A tool call the fake model makes; `arguments` as an object is sent as its JSON, a string as it is. */
export interface FakeToolCall {
  id: string;
  name: string;
  arguments: unknown;
}

/**
 * A turn where the model (after optional text) calls tools, their arguments streamed in small
 * pieces, then stops with `tool_calls`. `interleave: true` sends the calls' pieces turn about,
 * which some servers do for parallel calls; by default each call is sent whole, then the next.
 */
export function toolCallsTurn(calls: FakeToolCall[], options: TurnOptions & { text?: string; interleave?: boolean } = {}): StreamTurn {
  const chunks: FakeChunk[] = [chunk({ role: "assistant", content: options.text ?? null })];
  const split = calls.map((call) =>
    pieces(typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments), options.pieceSize ?? 4),
  );
  const head = (index: number) => {
    const call = calls[index]!;
    return chunk({ tool_calls: [{ index, id: call.id, type: "function", function: { name: call.name, arguments: "" } }] });
  };
  const piece = (index: number, text: string) => chunk({ tool_calls: [{ index, function: { arguments: text } }] });
  if (options.interleave) {
    calls.forEach((_, index) => chunks.push(head(index)));
    const longest = Math.max(...split.map((each) => each.length));
    for (let step = 0; step < longest; step++) {
      split.forEach((each, index) => {
        const text = each[step];
        if (text !== undefined) chunks.push(piece(index, text));
      });
    }
  } else {
    split.forEach((each, index) => {
      chunks.push(head(index));
      for (const text of each) chunks.push(piece(index, text));
    });
  }
  chunks.push(chunk({}, { finishReason: options.finishReason ?? "tool_calls" }));
  if (options.usage !== null) chunks.push(usageChunk(options.usage ?? { prompt: 10, completion: 5 }));
  return { chunks };
}
