import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { timingSafeEqual } from "node:crypto";
import { messageOf } from "@toolhost/core";
import { UsageError } from "../usage-error.js";
import { parsePayload } from "./decide.js";
import { HostCache } from "./host-cache.js";
import { DEFAULT_HOOK_TIMEOUT } from "./args.js";
import { HOOK_HOSTS, type HookDecision, type HookHost } from "./hosts.js";
import type { PageAsk } from "./page.js";
import { type BoundedBody, readBounded } from "../_read-stream.js";

/** `toolhost hook serve`'s settings. */
export interface HookServeOptions {
  host: string;
  port: number;
  /**
   * The bearer token every request must carry (`Authorization: Bearer <token>`), on every address;
   * `false` (loopback only) serves without one.
   */
  token: string | false;
  config?: string | undefined;
  onAllow: HookDecision["onAllow"];
  /** Whether allowed shell calls are rewritten to run in toolhost's sandbox (a request's `confine=off` turns it off for that call). */
  confine: boolean;
  /** Where an ask goes (a request's `on-ask` overrides it): back to the host (default), or to the approvals page. */
  onAsk?: "host" | "page";
  /** The host's timeout for a hook, in seconds, when a request asking on the page does not say (`timeout-ms`); default 30. */
  timeoutSeconds?: number;
}

const LOOPBACK = new Set(["127.0.0.1", "::1", "localhost"]);
/** The most of a payload that is kept: a bigger one is refused (denied, with the reason). */
const MAX_BODY = 8 * 1024 * 1024;
/**
 * How much of a body over the cap is read, and dropped, before the deny is written: the sender
 * gets its answer before the connection closes. Past it the answer is written at once and the
 * body goes on being dropped for `LINGER_MS`, so that closing does not reset the connection over
 * an answer the sender has not read yet.
 */
const HARD_BOUND = 64 * 1024 * 1024;
const LINGER_MS = 10_000;

/** Parses `[host:]port` (`8787`, `127.0.0.1:8787`, `[::1]:8787`). */
export function parseListen(text: string): { host: string; port: number } {
  const match = /^(?:(\[[^\]]+\]|[^:]+):)?(\d{1,5})$/.exec(text.trim());
  const port = Number(match?.[2]);
  if (!match || !(port >= 0 && port <= 65535)) {
    throw new UsageError(`--http takes [host:]port, e.g. 8787 or 127.0.0.1:8787, not "${text}".`);
  }
  return { host: (match[1] ?? "127.0.0.1").replace(/^\[|\]$/g, ""), port };
}

/**
 * Claude Code's HTTP hook form: one process answers every call, so no start-up per call. Each POST
 * to /claude-code (or /gemini) carries one payload; the answer is always 200 with the host's JSON,
 * a deny when anything fails, because the hosts treat other statuses as "go ahead".
 */
export async function serveHooks(options: HookServeOptions): Promise<Server> {
  if (options.token === false && !LOOPBACK.has(options.host)) {
    throw new UsageError(
      `toolhost hook serve listens on ${options.host}, beyond this machine, without a token. Drop --no-token (a token is then required), or listen on 127.0.0.1.`,
    );
  }
  const hosts = new HostCache(options.config);
  const server = createServer((request, response) => {
    handle(request, response, options, hosts)
      .catch((error: unknown) => {
        const { status, body } = failedAnswer(request.url, error);
        answer(request, response, status, body);
      })
      // Not even an answer could be written: end the connection rather than the server.
      .catch(() => response.destroy());
  });
  server.on("close", () => void hosts.close());
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => resolve());
  });
  return server;
}

async function handle(request: IncomingMessage, response: ServerResponse, options: HookServeOptions, hosts: HostCache): Promise<void> {
  // The host's timeout for the hook runs from about now (a forwarding hook says how much of it is left).
  const arrived = Date.now();
  const refuse = async (status: number, body: Record<string, unknown>): Promise<void> => {
    await readBounded(request, 0, HARD_BOUND).catch(() => undefined);
    answer(request, response, status, body);
  };
  const port = (request.socket.localPort ?? options.port).toString();
  // DNS rebinding: a page in a browser may reach loopback under another name; only our names pass.
  const hostHeader = (request.headers.host ?? "").toLowerCase();
  const allowedHosts = [options.host, "127.0.0.1", "localhost", "[::1]"].map((name) => `${name.includes(":") && !name.startsWith("[") ? `[${name}]` : name}:${port}`);
  if (!allowedHosts.includes(hostHeader) || request.headers.origin !== undefined) return refuse(403, { error: "forbidden: unexpected Host or Origin header" });
  const hookHost = hookHostOf(request.url);
  if (request.method === "GET" && pathOf(request.url) === "/health") return refuse(200, { ok: true });
  if (!hookHost || request.method !== "POST") return refuse(404, { error: "POST a hook payload to /claude-code or /gemini" });
  // Every answer is written once the body is read (or past the bound): see `answer`.
  const deny = async (reason: string, bodyRead = false): Promise<void> => {
    if (!bodyRead) await readBounded(request, 0, HARD_BOUND).catch(() => undefined);
    answer(request, response, 200, hookHost.answer({ decision: "deny", reason, onAllow: options.onAllow }));
  };
  if (options.token !== false && !sameToken(request.headers.authorization, options.token)) {
    return deny("toolhost hook serve: missing or wrong bearer token, so the call is refused. Send Authorization: Bearer <token> (the forwarding hook sends $TOOLHOST_HOOK_TOKEN, or the token file's).");
  }
  const onAllow = onAllowOf(request.url, options.onAllow);
  if (onAllow === undefined) return deny('toolhost hook serve: the on-allow query parameter takes "defer" or "allow" (once), so the call is refused.');
  const confine = confineOf(request.url, options.confine);
  if (confine === undefined) return deny('toolhost hook serve: the confine query parameter takes "off" (once), so the call is refused.');
  const asking = askingOf(request.url, options);
  if (typeof asking === "string") return deny(`toolhost hook serve: ${asking}, so the call is refused.`);
  let body: BoundedBody;
  try {
    body = await readBounded(request, MAX_BODY, HARD_BOUND);
  } catch (error) {
    return deny(`toolhost could not read the payload: ${(error as Error).message}`, true);
  }
  if ("over" in body) {
    const size = body.ended ? `${body.over} bytes` : `over ${HARD_BOUND / 1024 / 1024} MiB`;
    return deny(`toolhost refused this call: its ${hookHost.title} hook payload is ${size}, over the 8 MiB toolhost reads (TOOLHOST_HOOK_BAD_PAYLOAD).`, true);
  }
  try {
    const call = await parsePayload(hookHost, body.text);
    const page: PageAsk | undefined = asking.onAsk === "page"
      ? { hostDeadline: arrived + asking.timeoutMs, timeout: asking.timeout, asker: `toolhost hook serve (${hookHost.id})`, session: call.session }
      : undefined;
    const judge = await hosts.judgeFor(call.cwd);
    const verdict = await judge.decide(hookHost, call, confine, page);
    answer(request, response, 200, hookHost.answer({ ...verdict, onAllow: verdict.approvedOnPage ? "allow" : onAllow }));
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    return deny(`toolhost refused this call: ${messageOf(error)}${typeof code === "string" ? ` (${code})` : ""}`, true);
  }
}

function pathOf(url: string | undefined): string {
  return (url ?? "").replace(/\?.*$/, "");
}

/** What allow becomes for one request: its `on-allow` query parameter, else the server's; undefined when the parameter is bad. */
function onAllowOf(url: string | undefined, serverDefault: HookDecision["onAllow"]): HookDecision["onAllow"] | undefined {
  const given = new URLSearchParams(/\?(.*)$/.exec(url ?? "")?.[1] ?? "").getAll("on-allow");
  if (given.length === 0) return serverDefault;
  return given.length === 1 && (given[0] === "defer" || given[0] === "allow") ? given[0] : undefined;
}

/** Whether a request's shell call may be confined: not with `confine=off`, else the server's setting; undefined when the parameter is bad. */
function confineOf(url: string | undefined, serverDefault: boolean): boolean | undefined {
  const given = new URLSearchParams(/\?(.*)$/.exec(url ?? "")?.[1] ?? "").getAll("confine");
  if (given.length === 0) return serverDefault;
  return given.length === 1 && given[0] === "off" ? false : undefined;
}

/**
 * Where a request's ask goes: its `on-ask` query parameter (`host` or `page`, once), else the
 * server's; asking on the page, how long the host gives the hook from the request's arrival: its
 * `timeout-ms` (a forwarding hook sends what is left of its `--timeout`), else the server's
 * `--timeout`. A string: why the parameters are refused.
 */
function askingOf(url: string | undefined, options: HookServeOptions): { onAsk: "host" } | { onAsk: "page"; timeoutMs: number; timeout: string } | string {
  const query = new URLSearchParams(/\?(.*)$/.exec(url ?? "")?.[1] ?? "");
  const given = query.getAll("on-ask");
  if (given.length > 1 || (given.length === 1 && given[0] !== "host" && given[0] !== "page")) return 'the on-ask query parameter takes "host" or "page" (once)';
  const onAsk = (given[0] as "host" | "page" | undefined) ?? options.onAsk ?? "host";
  const times = query.getAll("timeout-ms");
  if (times.length > 1 || (times.length === 1 && !/^\d{1,9}$/.test(times[0] as string))) return "the timeout-ms query parameter takes the host's time left for this hook in whole milliseconds (once)";
  if (onAsk === "host") return { onAsk: "host" };
  if (times.length === 1) return { onAsk: "page", timeoutMs: Number(times[0]), timeout: `the hook's ${Math.round(Number(times[0]) / 100) / 10} s left (timeout-ms)` };
  const seconds = options.timeoutSeconds ?? DEFAULT_HOOK_TIMEOUT;
  return { onAsk: "page", timeoutMs: seconds * 1000, timeout: `the hook's ${seconds} s (the server's --timeout)` };
}

/** The host a request's path is for: `/claude-code` or `/gemini` (a query is ignored); undefined for any other path. */
export function hookHostOf(url: string | undefined): HookHost | undefined {
  const id = pathOf(url).replace(/^\//, "");
  return id === "claude-code" || id === "gemini" ? HOOK_HOSTS[id] : undefined;
}

/**
 * The answer when handling a request failed where nothing expected it (a bug of ours): a deny in
 * the shape of the host the path is for, with status 200, since both hosts let a call through on
 * other statuses or on an answer they cannot read. No host calls any other path: a plain 500 there.
 */
export function failedAnswer(url: string | undefined, error: unknown): { status: number; body: Record<string, unknown> } {
  const reason = `toolhost failed, so the call is refused: ${messageOf(error)} (TOOLHOST_HOOK_FAILED)`;
  const hookHost = hookHostOf(url);
  if (!hookHost) return { status: 500, body: { error: reason } };
  return { status: 200, body: hookHost.answer({ decision: "deny", reason, onAllow: "defer" }) };
}

function sameToken(header: string | undefined, token: string): boolean {
  const given = Buffer.from(/^Bearer (.+)$/i.exec(header ?? "")?.[1] ?? "");
  const expected = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/**
 * Writes an answer. When the request's body is still coming (past the hard bound), the connection
 * is kept open, the rest dropped, until the sender ends it or `LINGER_MS` passes: closing a socket
 * with unread data resets it, and the sender may lose the answer it has not read yet.
 */
function answer(request: IncomingMessage, response: ServerResponse, status: number, body: unknown): void {
  if (response.headersSent) return;
  const lingering = !request.complete;
  if (lingering) {
    response.shouldKeepAlive = true;
    const timer = setTimeout(() => request.socket.destroy(), LINGER_MS);
    timer.unref();
    request.socket.once("close", () => clearTimeout(timer));
    request.once("end", () => {
      clearTimeout(timer);
      request.socket.end();
    });
  }
  response.writeHead(status, { "content-type": "application/json" }).end(`${JSON.stringify(body)}\n`);
}
