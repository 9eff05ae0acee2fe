import type { RequestOptions } from "node:http";
import type { AnswerShape, HookHost } from "./hosts.js";
import { readCapped } from "../_read-stream.js";

// The forwarding client of `toolhost hook <host> --server <url>`: one POST to a running
// `toolhost hook serve`. Node built-ins only, and node:http / node:https loaded when a payload is
// forwarded (the in-process path, bundled with this file, never loads them), so that a hook process
// pays no more start-up than a bare `node`.

/** How long the server has to answer, connecting included, before the hook decides in-process. */
export const SERVER_TIMEOUT_MS = 5_000;
const MAX_ANSWER = 1024 * 1024;

/** The server's answer, checked against the host's protocol; or why it cannot be used. */
export type ServerReply = { answer: Record<string, unknown> } | { notUsed: string };

/**
 * Sends one payload to `<server>/<host>?on-allow=<onAllow>` (and `&confine=off` for a hook given
 * `--no-confine`) with the bearer token when there is one. Never rejects: an unreachable server, a
 * timeout, a status other than 200, or a body that is not an answer of that host's shape for what
 * was asked (`HookHost.isAnswer`) come back as `notUsed`, saying which.
 */
export async function askServer(server: URL, hookHost: HookHost, payload: string, asked: AnswerShape, token: string | undefined): Promise<ServerReply> {
  const target = new URL(server.href);
  target.pathname = `${target.pathname.replace(/\/+$/, "")}/${hookHost.id}`;
  target.searchParams.set("on-allow", asked.onAllow);
  if (!asked.confine) target.searchParams.set("confine", "off");
  try {
    const { status, body } = await post(target, payload, token);
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
    return { notUsed: (error as Error).message };
  }
}

async function post(url: URL, payload: string, token: string | undefined): Promise<{ status: number; body: string }> {
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
      reject(new Error(`no answer within ${SERVER_TIMEOUT_MS / 1000} s`));
      sent.destroy();
    }, SERVER_TIMEOUT_MS);
    sent.on("error", reject);
    sent.end(payload);
  });
  return answered.finally(() => clearTimeout(timer));
}
