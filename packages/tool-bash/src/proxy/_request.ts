import { type DestinationProblem, hostInUrl, parseAuthority, tunnelUrl } from "@toolhost/core";
import type { Destination } from "./_judge.js";

/** A request head as the client sent it: its request line's three words, and its header lines. */
export interface RequestHead {
  method: string;
  target: string;
  headers: string[];
}

/** A header's name (RFC 9110's token), then its colon. */
const HEADER = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+:/;

/** A head's lines (latin1, up to its blank line): the request line, and the header lines as they came. */
export function splitHead(text: string): { requestLine: string; headers: string[] } {
  const [requestLine = "", ...headers] = text.replace(/\r\n\r\n$/, "").split("\r\n");
  return { requestLine, headers };
}

/**
 * Reads a head's request line, which must be `METHOD target HTTP/1.x` with single spaces (the
 * target is checked by `destinationOf`).
 */
export function parseHead({ requestLine, headers }: { requestLine: string; headers: string[] }): RequestHead | DestinationProblem {
  // The target is read by the destination's parser, which names what is wrong in it.
  const line = /^([A-Z]+) ([^ \r\n]+) (HTTP\/1\.[01])$/.exec(requestLine);
  if (!line) {
    const odd = /[\x00-\x1f\x7f]/.exec(requestLine);
    const what = odd ? ` (it holds ${odd[0] === "\0" ? "a NUL byte" : `a control character (0x${odd[0].charCodeAt(0).toString(16).padStart(2, "0")})`})` : /[^\x20-\x7e]/.test(requestLine) ? " (it holds a byte outside ASCII)" : "";
    return { problem: `the request line is not METHOD target HTTP/1.1${what}` };
  }
  return { method: line[1] as string, target: line[2] as string, headers };
}

function headersProblem(headers: readonly string[]): DestinationProblem | undefined {
  for (const header of headers) {
    if (/[\x00-\x08\x0a-\x1f\x7f]/.test(header)) return { problem: "a header holds a control character (a bare CR or LF, a NUL)" };
    if (!HEADER.test(header)) return { problem: /^[ \t]/.test(header) ? "a header is folded onto a second line" : "a header line is not name: value" };
  }
  return undefined;
}

/**
 * The destination a request names, through core's one parser: a CONNECT's `host:port` (judged as
 * `https://host:port/`), or an absolute `http://` URL, judged by its URL as the URL parser writes
 * it once its authority was checked. A `Host` header, when there is one, must name the same host
 * and port (it is the destination a server reads). Each header line must be `name: value`: a
 * control character other than a value's tab, a bare CR or LF, or a folded line is refused, since
 * what a server reads as a line break the proxy would forward as part of a header.
 */
export function destinationOf(head: RequestHead): Destination | DestinationProblem {
  const destination = head.method === "CONNECT" ? tunnelTarget(head.target) : requestTarget(head.method, head.target);
  if ("problem" in destination) return destination;
  const problem = headersProblem(head.headers);
  if (problem) return problem;
  const hosts = head.headers.filter((header) => /^host:/i.test(header));
  if (hosts.length > 1) return { problem: "the request has more than one Host header" };
  const value = hosts[0]?.slice("host:".length).trim();
  if (value === undefined) return destination;
  // A tunnel's Host may leave out the port; a request's names it unless it is 80.
  const named = parseAuthority(value, head.method === "CONNECT" ? destination.port : 80);
  if ("problem" in named) return { problem: `the Host header: ${named.problem}` };
  if (named.host !== destination.host || named.port !== destination.port) {
    return { problem: `the Host header names ${hostInUrl(named.host)}:${named.port}, the request ${hostInUrl(destination.host)}:${destination.port}` };
  }
  return destination;
}

function tunnelTarget(target: string): Destination | DestinationProblem {
  const place = parseAuthority(target);
  if ("problem" in place) return { problem: `CONNECT host:port: ${place.problem}` };
  return { ...place, method: "CONNECT", url: tunnelUrl(place.host, place.port) };
}

function requestTarget(method: string, target: string): Destination | DestinationProblem {
  const parts = /^http:\/\/([^/?#\\]*)(.*)$/i.exec(target);
  if (!parts) {
    if (/^https:/i.test(target)) return { problem: "an https:// URL goes through CONNECT (the proxy does not open TLS)" };
    return { problem: "a request through the proxy names an absolute http:// URL (http://host[:port]/path)" };
  }
  const place = parseAuthority(parts[1] as string, 80);
  if ("problem" in place) return { problem: `the URL: ${place.problem}` };
  const rest = parts[2] as string;
  if (/[^\x21-\x7e]/.test(rest)) return { problem: "the URL's path holds a control character or a byte outside ASCII (write it percent-encoded)" };
  const authority = `${hostInUrl(place.host)}${place.port === 80 ? "" : `:${place.port}`}`;
  const url = new URL(`http://${authority}${rest.startsWith("/") ? rest : `/${rest}`}`);
  url.hash = "";
  // The URL parser read the same authority the parser checked (nothing in the path could move it).
  if (url.host !== authority) return { problem: "the URL's host reads otherwise to a URL parser" };
  return { ...place, method, url: url.href };
}
