import { timingSafeEqual } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";

/*
 * Who may reach the page: a request with the page's token (the `token` query parameter, which the
 * printed address carries, or `Authorization: Bearer`), addressed to one of the page's own names
 * (a page elsewhere in the browser may reach loopback under another name: DNS rebinding), and from
 * no other origin (a page the browser shows from elsewhere may send requests here with the user's
 * browser, never read them). Anything else gets a bare 403 and nothing of the page.
 */

/** Every answer's headers: no inline script or style, nothing from elsewhere, no framing, nothing kept. */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  "content-security-policy":
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "referrer-policy": "no-referrer",
  "cache-control": "no-store",
  "cross-origin-opener-policy": "same-origin",
  "cross-origin-resource-policy": "same-origin",
});

/** The names the page answers to, as `Host` headers (`127.0.0.1:8780`, `localhost:8780`, `[::1]:8780`, the listen address). */
export function allowedHosts(listenHost: string, port: number): Set<string> {
  const names = new Set([listenHost, "127.0.0.1", "localhost", "::1"]);
  return new Set([...names].map((name) => `${name.includes(":") ? `[${name}]` : name}:${port}`.toLowerCase()));
}

/**
 * Why a request is refused, or undefined when it may go on. `token` is the one this request needs:
 * the page's (printed once, for the browser) for the page and its answers, the askers' (in the page
 * file) for `POST /asks` alone, so a process that can read the page file can ask, never answer.
 */
export function refusedBecause(request: IncomingMessage, hosts: Set<string>, token: string): string | undefined {
  const host = (request.headers.host ?? "").toLowerCase();
  if (!hosts.has(host)) return "an unexpected Host header";
  const origin = request.headers.origin;
  if (origin !== undefined && !hosts.has(originHost(origin))) return "a foreign Origin";
  const site = request.headers["sec-fetch-site"];
  if (site !== undefined && site !== "same-origin" && site !== "none") return "a request from another site";
  if (!sameToken(tokenOf(request), token)) return "no token, or a wrong one";
  return undefined;
}

function originHost(origin: string): string {
  try {
    const url = new URL(origin);
    return url.protocol === "http:" ? url.host.toLowerCase() : "";
  } catch {
    return "";
  }
}

function tokenOf(request: IncomingMessage): string {
  const bearer = /^Bearer (.+)$/i.exec(request.headers.authorization ?? "")?.[1];
  if (bearer !== undefined) return bearer;
  const query = (request.url ?? "").split("?")[1] ?? "";
  return new URLSearchParams(query).get("token") ?? "";
}

function sameToken(given: string, token: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** A bare refusal: no page, no data, no reason beyond the status. */
export function forbid(response: ServerResponse): void {
  response.writeHead(403, { ...SECURITY_HEADERS, "content-type": "text/plain; charset=utf-8" }).end("forbidden\n");
}

/** A JSON answer with the page's headers. */
export function sendJson(response: ServerResponse, status: number, body: unknown): void {
  if (response.headersSent || response.destroyed) return;
  response.writeHead(status, { ...SECURITY_HEADERS, "content-type": "application/json; charset=utf-8" }).end(`${JSON.stringify(body)}\n`);
}
