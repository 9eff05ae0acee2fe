import type { RequestOptions } from "node:http";
import type { AnswerShape, HookHost } from "./hosts.js";
import { readCapped } from "../_read-stream.js";

// The forwarding client of `toolhost hook <host> --server <url>`: one POST to a running
// `toolhost hook serve`. Node built-ins only, and node:http / node:https loaded when a payload is
// forwarded (the in-process path, bundled with this file, never loads them), so that a hook process
// pays no more start-up than a bare `node`.

/** How long the server has to answer, connecting included, before the hook decides in-process. */
export const SERVER_TIMEOUT_MS = 5_000;
/**
 * Asking on the approvals page, the server may wait for a person until shortly before the host's
 * timeout; the hook waits for it until this long before that timeout, then refuses the call itself
 * (no time is left to decide in-process), so that the host reads a refusal, never a killed hook.
 */
export const PAGE_CLIENT_MARGIN_MS = 1_000;
const MAX_ANSWER = 1024 * 1024;

/** The server's answer, checked against the host's protocol; or why it cannot be used (`late`: it gave none in the time there was). */
export type ServerReply = { answer: Record<string, unknown> } | { notUsed: string; late?: boolean };

/** An ask on the approvals page, through the server: how long the host still gives this hook, in ms. */
export interface ServerPageAsk {
  hostTimeLeftMs: number;
}

/**
 * Sends one payload to `<server>/<host>?on-allow=<onAllow>` (and `&confine=off` for a hook given
 * `--no-confine`) with the bearer token when there is one. Never rejects: an unreachable server, a
 * timeout, a status other than 200, or a body that is not an answer of that host's shape for what
 * was asked (`HookHost.isAnswer`) come back as `notUsed`, saying which.
 */
export async function askServer(server: URL, hookHost: HookHost, payload: string, asked: AnswerShape, token: string | undefined, page?: ServerPageAsk): Promise<ServerReply> {
  const target = new URL(server.href);
  target.pathname = `${target.pathname.replace(/\/+$/, "")}/${hookHost.id}`;
  target.searchParams.set("on-allow", asked.onAllow);
  if (!asked.confine) target.searchParams.set("confine", "off");
  if (page) {
    target.searchParams.set("on-ask", "page");
    target.searchParams.set("timeout-ms", String(Math.max(0, Math.floor(page.hostTimeLeftMs))));
  }
  const waitMs = page ? Math.max(1, page.hostTimeLeftMs - PAGE_CLIENT_MARGIN_MS) : SERVER_TIMEOUT_MS;
  try {
    const { status, body } = await post(target, payload, token, waitMs);
    if (status !== 200) return { notUsed: `it answered HTTP ${status}` };
    let answer: unknown;
    try {
      answer = JSON.parse(body);
    } catch {
      return { notUsed: "its answer is not JSON" };
    }
    if (!hookHost.isAnswer(answer, asked)) return { notUsed: `its answer is not a ${hookHost.title} ${hookHost.event} answer` };
    return { answer: answer as Record<string, unknown> };
  } catch (error) {
    return { notUsed: (error as Error).message, ...(error instanceof LateError && { late: true }) };
  }
}

class LateError extends Error {}

async function post(url: URL, payload: string, token: string | undefined, waitMs: number): Promise<{ status: number; body: string }> {
  const request = url.protocol === "https:" ? (await import("node:https")).request : (await import("node:http")).request;
  const headers: Record<string, string | number> = { "content-type": "application/json", "content-length": Buffer.byteLength(payload) };
  if (token) headers.authorization = `Bearer ${token}`;
  const options: RequestOptions = { method: "POST", headers, agent: false };
  let timer: NodeJS.Timeout | undefined;
  const answered = new Promise<{ status: number; body: string }>((resolve, reject) => {
    const sent = request(url, options, (response) => {
      readCapped(response, MAX_ANSWER, "its answer is over 1 MiB").then((body) => resolve({ status: response.statusCode ?? 0, body }), reject);
    });
    timer = setTimeout(() => {
      reject(new LateError(`no answer within ${Math.round(waitMs / 100) / 10} s`));
      sent.destroy();
    }, waitMs);
    sent.on("error", reject);
    sent.end(payload);
  });
  return answered.finally(() => clearTimeout(timer));
}
