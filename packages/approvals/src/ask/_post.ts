import { request } from "node:http";

/** The most of an answer read: an answer is a few hundred bytes. */
const MAX_ANSWER = 1024 * 1024;

/** What became of a request: the page's JSON answer with its status, or why there is none. */
export type PostOutcome = { status: number; body: unknown } | { failed: string } | { stopped: "timed out" | "aborted" };

/**
 * POSTs JSON to the page and waits for its answer, with `node:http` (fetch's own header and body
 * time-outs would end an ask a person is still reading): until `waitMs` passes or `signal` aborts,
 * which close the request, so the page withdraws the ask. Never rejects.
 */
export function postJson(url: URL, token: string, body: unknown, waitMs: number, signal: AbortSignal): Promise<PostOutcome> {
  return new Promise((resolve) => {
    let settled = false;
    const finish = (outcome: PostOutcome): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
      req.destroy();
      resolve(outcome);
    };
    const payload = Buffer.from(JSON.stringify(body));
    const req = request(url, {
      method: "POST",
      headers: { "content-type": "application/json", "content-length": payload.length, authorization: `Bearer ${token}` },
    });
    const timer = setTimeout(() => finish({ stopped: "timed out" }), waitMs);
    const onAbort = (): void => finish({ stopped: "aborted" });
    signal.addEventListener("abort", onAbort, { once: true });
    if (signal.aborted) return onAbort();
    req.on("error", (error: NodeJS.ErrnoException) => finish({ failed: error.code ?? error.message }));
    req.on("response", (response) => {
      const chunks: Buffer[] = [];
      let size = 0;
      response.on("data", (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_ANSWER) return finish({ failed: "the answer is over 1 MiB" });
        chunks.push(chunk);
      });
      response.on("error", (error: NodeJS.ErrnoException) => finish({ failed: error.code ?? error.message }));
      response.on("end", () => {
        try {
          finish({ status: response.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString("utf8")) });
        } catch {
          finish({ failed: `the answer (status ${response.statusCode}) is not JSON` });
        }
      });
    });
    req.end(payload);
  });
}
