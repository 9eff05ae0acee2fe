import type { IncomingMessage, ServerResponse } from "node:http";
import type { PageRecord } from "../wire.js";
import type { AskStore } from "./_asks.js";
import { SECURITY_HEADERS, sendJson } from "./_guard.js";

/** Open event streams at most: each is a page open in a browser tab. */
const MAX_STREAMS = 32;
/** A comment this often keeps proxies and the browser from dropping an idle stream. */
const KEEP_ALIVE_MS = 15_000;
let open = 0;

/**
 * The page's live list, as server-sent events: a `snapshot` of every ask when the stream opens,
 * then an `ask` event with each ask that changed (new, being answered, answered).
 */
export function streamEvents(request: IncomingMessage, response: ServerResponse, store: AskStore): void {
  if (open >= MAX_STREAMS) return sendJson(response, 503, { error: `the page has ${MAX_STREAMS} open streams already: close a tab` });
  open += 1;
  response.writeHead(200, { ...SECURITY_HEADERS, "content-type": "text/event-stream; charset=utf-8", connection: "keep-alive" });
  const send = (event: string, data: unknown): void => {
    response.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  };
  send("snapshot", store.list());
  const unsubscribe = store.subscribe((record: PageRecord) => send("ask", record));
  const timer = setInterval(() => response.write(": still here\n\n"), KEEP_ALIVE_MS);
  timer.unref();
  request.on("close", () => {
    open -= 1;
    clearInterval(timer);
    unsubscribe();
  });
}
