import type { Socket } from "node:net";
import { hostInUrl } from "@toolhost/core";
import { type CallOf, join, open } from "./_connect.js";
import { escaped } from "./_judge.js";
import { HandshakeReader } from "./_reader.js";
import { destinationOf, parseHead, splitHead } from "./_request.js";
import { serveSocks } from "./_socks.js";

/** A request head longer than this is refused (431). */
const HEAD_LIMIT = 16 * 1024;
/** A client that has not finished its handshake by then is dropped. */
const HANDSHAKE_MS = 30_000;

/** Serves one connection from the sandbox: SOCKS5 when it starts with 5 (SOCKS4 is refused), else HTTP (CONNECT, or a request for an `http://` URL). */
export function serveConnection(socket: Socket, callOf: CallOf): void {
  socket.on("error", () => {});
  socket.setTimeout(HANDSHAKE_MS, () => socket.destroy());
  const reader = new HandshakeReader(socket);
  void (async () => {
    const first = await reader.take(1);
    if (!first) return socket.destroy();
    // SOCKS4 and 4a carry no password, so no call's credentials: refused (91, "request rejected").
    if (first[0] === 4) return void socket.end(Buffer.from([0, 91, 0, 0, 0, 0, 0, 0]));
    const serve = first[0] === 5 ? serveSocks : serveHttp;
    await serve(reader, socket, callOf, first);
  })().catch(() => socket.destroy());
}

async function serveHttp(reader: HandshakeReader, socket: Socket, callOf: CallOf, first: Buffer): Promise<void> {
  const rest = await reader.until("\r\n\r\n", HEAD_LIMIT);
  if (!rest) return reply(socket, 431, "Request Header Fields Too Large", "toolhost's proxy: the request head was too long or never ended.\n");
  const lines = splitHead(Buffer.concat([first, rest]).toString("latin1"));
  const judge = callOf(tokenOf(lines.headers) ?? "");
  if (!judge) {
    return reply(socket, 407, "Proxy Authentication Required", "toolhost's proxy: this connection carries no credentials of a running call; use the proxy URL in HTTP_PROXY as it is.\n", ['Proxy-Authenticate: Basic realm="toolhost"']);
  }
  judge.track(socket);
  // The call is known: a head it refuses is recorded as the call's, with its text escaped.
  const head = parseHead(lines);
  if ("problem" in head) {
    const [method = "", ...words] = lines.requestLine.split(" ");
    judge.refused(words.slice(0, -1).join(" ") || lines.requestLine, method, head.problem);
    return reply(socket, 400, "Bad Request", `toolhost's proxy speaks HTTP/1.1 (CONNECT, or a request for an http:// URL): ${head.problem}.\n`);
  }
  // The client has said what it wants: it now waits for the answer, which may be a person's.
  socket.setTimeout(0);
  const destination = destinationOf(head);
  if ("problem" in destination) {
    judge.refused(head.target, head.method, destination.problem);
    return reply(socket, 400, "Bad Request", `toolhost's proxy refused the destination ${escaped(head.target)}: ${destination.problem}.\n`);
  }
  const verdict = await judge.judge(destination);
  const where = `${hostInUrl(destination.host)}:${destination.port}`;
  if (!verdict.allowed) {
    if (verdict.unreachable) return reply(socket, 502, "Bad Gateway", `toolhost's proxy could not connect to ${where}: ${verdict.reason}\n`);
    return reply(socket, 403, "Forbidden", `toolhost's proxy refused the connection to ${where}: ${verdict.reason}\n`, [`X-Toolhost-Code: ${verdict.code}`]);
  }
  const upstream = await open(verdict.addresses, destination.port, judge);
  if (typeof upstream === "string") return reply(socket, 502, "Bad Gateway", `toolhost's proxy could not connect to ${where}: ${upstream}\n`);
  if (head.method === "CONNECT") socket.write("HTTP/1.1 200 Connection established\r\n\r\n");
  else upstream.socket.write(forwardedHead(head.method, new URL(destination.url), head.headers));
  join(socket, reader.detach(), upstream);
}

/** The call's token from `Proxy-Authorization: Basic base64(toolhost:<token>)`. */
function tokenOf(headers: readonly string[]): string | undefined {
  const line = headers.find((header) => /^proxy-authorization:/i.test(header));
  const basic = /^proxy-authorization:\s*basic\s+(\S+)\s*$/i.exec(line ?? "")?.[1];
  if (!basic) return undefined;
  const decoded = Buffer.from(basic, "base64").toString("utf8");
  return decoded.startsWith("toolhost:") ? decoded.slice("toolhost:".length) : undefined;
}

/**
 * The request as the destination gets it: origin-form, no proxy headers, one request per
 * connection, and the Host it was judged by (the client's said the same, in some spelling).
 */
function forwardedHead(method: string, url: URL, headers: readonly string[]): string {
  const kept = headers.filter((header) => !/^(host|proxy-authorization|proxy-connection|connection|keep-alive):/i.test(header));
  return `${method} ${url.pathname}${url.search} HTTP/1.1\r\nHost: ${url.host}\r\n${[...kept, "Connection: close"].join("\r\n")}\r\n\r\n`;
}

/** An answer from the proxy itself, and the end of the connection. */
function reply(socket: Socket, status: number, title: string, body: string, extra: readonly string[] = []): void {
  const head = [`HTTP/1.1 ${status} ${title}`, "Content-Type: text/plain; charset=utf-8", `Content-Length: ${Buffer.byteLength(body)}`, "Connection: close", ...extra];
  socket.end(`${head.join("\r\n")}\r\n\r\n${body}`);
}
