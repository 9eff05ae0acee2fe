import type { Socket } from "node:net";
import { type CallOf, hostPort, join, open, tunnelUrl } from "./_connect.js";
import type { Destination } from "./_judge.js";
import { HandshakeReader } from "./_reader.js";
import { serveSocks } from "./_socks.js";

/** A request head longer than this is refused (431). */
const HEAD_LIMIT = 16 * 1024;
/** A client that has not finished its handshake by then is dropped. */
const HANDSHAKE_MS = 30_000;

/** Serves one connection from the sandbox: SOCKS5 when it starts with 5, else HTTP (CONNECT, or a request for an `http://` URL). */
export function serveConnection(socket: Socket, callOf: CallOf): void {
  socket.on("error", () => {});
  socket.setTimeout(HANDSHAKE_MS, () => socket.destroy());
  const reader = new HandshakeReader(socket);
  void (async () => {
    const first = await reader.take(1);
    if (!first) return socket.destroy();
    const serve = first[0] === 5 ? serveSocks : serveHttp;
    await serve(reader, socket, callOf, first);
  })().catch(() => socket.destroy());
}

async function serveHttp(reader: HandshakeReader, socket: Socket, callOf: CallOf, first: Buffer): Promise<void> {
  const rest = await reader.until("\r\n\r\n", HEAD_LIMIT);
  if (!rest) return reply(socket, 431, "Request Header Fields Too Large", "toolhost's proxy: the request head was too long or never ended.\n");
  const [requestLine = "", ...lines] = Buffer.concat([first, rest]).toString("latin1").split("\r\n");
  const [method = "", target = "", version = ""] = requestLine.split(" ");
  if (!/^HTTP\/1\.[01]$/.test(version)) return reply(socket, 400, "Bad Request", "toolhost's proxy speaks HTTP/1.1 (CONNECT, or a request for an http:// URL).\n");
  const headers = lines.filter((line) => line.length > 0);
  const judge = callOf(tokenOf(headers) ?? "");
  if (!judge) {
    return reply(socket, 407, "Proxy Authentication Required", "toolhost's proxy: this connection carries no credentials of a running call; use the proxy URL in HTTP_PROXY as it is.\n", ['Proxy-Authenticate: Basic realm="toolhost"']);
  }
  judge.track(socket);
  const destination = method === "CONNECT" ? tunnelTarget(target) : requestTarget(method, target);
  if (typeof destination === "string") return reply(socket, 400, "Bad Request", `toolhost's proxy: ${destination}\n`);
  const verdict = await judge.judge(destination);
  if (!verdict.allowed) {
    return reply(socket, 403, "Forbidden", `toolhost's proxy refused the connection to ${hostPort(destination)}: ${verdict.reason}\n`, [`X-Toolhost-Code: ${verdict.code}`]);
  }
  const upstream = await open(destination, judge);
  if (typeof upstream === "string") return reply(socket, 502, "Bad Gateway", `toolhost's proxy could not connect to ${hostPort(destination)}: ${upstream}\n`);
  if (method === "CONNECT") socket.write("HTTP/1.1 200 Connection established\r\n\r\n");
  else upstream.socket.write(forwardedHead(method, new URL(target), headers));
  join(socket, reader.detach(), upstream);
}

/** `host:port` of a CONNECT, judged as `https://host:port/`. */
function tunnelTarget(target: string): Destination | string {
  const match = /^(\[[0-9A-Fa-f:.]+\]|[^:\s/[\]]+):(\d{1,5})$/.exec(target);
  const port = Number(match?.[2]);
  if (!match || !(port >= 1 && port <= 65535)) return `CONNECT needs host:port, not ${JSON.stringify(target.slice(0, 200))}.`;
  const host = (match[1] as string).replace(/^\[|\]$/g, "");
  return { host, port, method: "CONNECT", url: tunnelUrl(host, port) };
}

/** An absolute `http://` URL: judged as it is. An `https://` one needs CONNECT (TLS is not terminated here). */
function requestTarget(method: string, target: string): Destination | string {
  if (!/^[A-Z]+$/.test(method)) return `the method ${JSON.stringify(method.slice(0, 40))} is not one.`;
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return `a request through the proxy names an absolute http:// URL, not ${JSON.stringify(target.slice(0, 200))}.`;
  }
  if (url.protocol === "https:") return "an https:// URL goes through CONNECT (the proxy does not open TLS).";
  if (url.protocol !== "http:") return `only http:// URLs are forwarded, not ${url.protocol}.`;
  const host = url.hostname.replace(/^\[|\]$/g, "");
  return { host, port: Number(url.port || 80), method, url: url.href };
}

/** The call's token from `Proxy-Authorization: Basic base64(toolhost:<token>)`. */
function tokenOf(headers: readonly string[]): string | undefined {
  const line = headers.find((header) => /^proxy-authorization:/i.test(header));
  const basic = /^proxy-authorization:\s*basic\s+(\S+)\s*$/i.exec(line ?? "")?.[1];
  if (!basic) return undefined;
  const decoded = Buffer.from(basic, "base64").toString("utf8");
  return decoded.startsWith("toolhost:") ? decoded.slice("toolhost:".length) : undefined;
}

/** The request as the destination gets it: origin-form, no proxy headers, one request per connection. */
function forwardedHead(method: string, url: URL, headers: readonly string[]): string {
  const kept = headers.filter((header) => !/^(proxy-authorization|proxy-connection|connection|keep-alive):/i.test(header));
  if (!kept.some((header) => /^host:/i.test(header))) kept.unshift(`Host: ${url.host}`);
  return `${method} ${url.pathname}${url.search} HTTP/1.1\r\n${[...kept, "Connection: close"].join("\r\n")}\r\n\r\n`;
}

/** An answer from the proxy itself, and the end of the connection. */
function reply(socket: Socket, status: number, title: string, body: string, extra: readonly string[] = []): void {
  const head = [`HTTP/1.1 ${status} ${title}`, "Content-Type: text/plain; charset=utf-8", `Content-Length: ${Buffer.byteLength(body)}`, "Connection: close", ...extra];
  socket.end(`${head.join("\r\n")}\r\n\r\n${body}`);
}
