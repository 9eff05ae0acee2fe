import { isIP } from "node:net";
import { domainToASCII } from "node:url";

/*
 * How a network destination is named, read alike by whoever opens a connection (tool-bash's proxy)
 * and whoever judges it (a policy, `toolhost policy explain`): one canonical spelling of a host, so
 * that the text judged is the text connected to. Node's own parsers decide what an address is
 * (`isIP`, the WHATWG URL host parser); what they let through that a resolver would read otherwise
 * (a NUL, a zone id, `127.1`) is refused first.
 */

/** A host and port as a connection names them: the host canonical (a lower-case ASCII name, or an address). */
export interface Destination {
  /** `registry.npmjs.org`, `127.0.0.1`, `::1` (an IPv6 address without brackets). */
  host: string;
  port: number;
  /** True when `host` is an address (then canonical: see `canonicalAddress`), false for a name. */
  isAddress: boolean;
}

/** Why a spelling of a destination was refused, in words a person reads (`the host has a NUL byte`). */
export interface DestinationProblem {
  problem: string;
}

/** The longest name DNS carries (253 characters), and its longest label. */
const MAX_NAME = 253;
const MAX_LABEL = 63;

/**
 * The canonical spelling of an IP address, or undefined when `text` is none: IPv4 as four decimal
 * numbers (`127.1`, `2130706433`, `0x7f.0.0.1` are read as a URL's host is, to `127.0.0.1`), IPv6
 * compressed in lower case (RFC 5952, brackets optional), and an IPv4-mapped IPv6 address
 * (`::ffff:127.0.0.1`, `::ffff:7f00:1`) as the IPv4 address a connection to it reaches. A zone id
 * (`fe80::1%eth0`) is no canonical address. For comparing addresses that a person wrote (a rule):
 * a connection's host is checked with `parseHost`, which refuses the loose spellings instead.
 */
export function canonicalAddress(text: string): string | undefined {
  const bare = text.startsWith("[") && text.endsWith("]") ? text.slice(1, -1) : text;
  if (bare.includes(":")) {
    if (bare.includes("%") || isIP(bare) !== 6) return undefined;
    return unmapped(new URL(`http://[${bare}]/`).hostname.slice(1, -1));
  }
  if (!/^[0-9a-fA-FxX.]+$/.test(bare)) return undefined;
  try {
    const host = new URL(`http://${bare}/`).hostname;
    return isIP(host) === 4 ? host : undefined;
  } catch {
    return undefined;
  }
}

/** `::ffff:a.b.c.d` (as the URL parser writes it, `::ffff:7f00:1`) is the IPv4 address it maps. */
function unmapped(ipv6: string): string {
  const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(ipv6);
  if (!mapped) return ipv6;
  const high = Number.parseInt(mapped[1] as string, 16);
  const low = Number.parseInt(mapped[2] as string, 16);
  return [high >> 8, high & 255, low >> 8, low & 255].join(".");
}

/** The first character a host may not hold, said in words; undefined when every one is allowed. */
function badCharacter(text: string): string | undefined {
  const at = text.search(/[^A-Za-z0-9._-]/);
  if (at < 0) return undefined;
  const char = text[at] as string;
  const code = char.charCodeAt(0);
  if (code === 0) return "a NUL byte";
  if (code < 0x20 || code === 0x7f) return `a control character (0x${code.toString(16).padStart(2, "0")})`;
  if (char === " ") return "a space";
  if (char === "@") return "userinfo (user@host): credentials for the destination do not go in the host";
  if (char === "%") return "percent-encoding (or an IPv6 zone id): write the host as it is";
  if (code > 0x7e) {
    const ascii = domainToASCII(text);
    return `a character outside ASCII: write the name as ASCII${ascii ? ` (${ascii})` : " (xn--…)"}`;
  }
  return `the character ${JSON.stringify(char)}`;
}

/**
 * A host as a connection names it (a CONNECT authority's, a URL's, a `Host` header's, a SOCKS
 * request's): an IPv6 address in brackets (or bare, `bracketless`), an IPv4 address in four decimal
 * numbers, or a DNS name of letters, digits, `-`, `_` and dots, which is lower-cased. Refused, with
 * the problem: control characters and NUL, spaces, userinfo, percent-encoding, zone ids, non-ASCII
 * (IDN goes as `xn--…`), empty labels, a trailing dot, labels over 63 and names over 253
 * characters, and numbers a resolver would read as an IPv4 address (`127.1`, `2130706433`, `0x7f.1`).
 */
export function parseHost(text: string, bracketless = false): { host: string; isAddress: boolean } | DestinationProblem {
  if (text === "") return { problem: "the host is empty" };
  if (text.length > MAX_NAME + 2) return { problem: `the host is over ${MAX_NAME} characters` };
  if (text.startsWith("[") || (bracketless && text.includes(":"))) return ipv6Host(text, bracketless);
  const bad = badCharacter(text);
  if (bad) return { problem: `the host has ${bad}` };
  if (isIP(text) === 4) return { host: text, isAddress: true };
  const name = text.toLowerCase();
  const labels = name.split(".");
  if (labels.at(-1) === "") return { problem: "the host ends with a dot: write the name without it" };
  if (labels.some((label) => label === "")) return { problem: "the host has an empty label (two dots, or a leading dot)" };
  if (name.length > MAX_NAME) return { problem: `the host is over ${MAX_NAME} characters` };
  if (labels.some((label) => label.length > MAX_LABEL)) return { problem: `a label of the host is over ${MAX_LABEL} characters` };
  if (labels.some((label) => label.startsWith("-") || label.endsWith("-"))) return { problem: "a label of the host starts or ends with -" };
  if (/^(\d+|0x[0-9a-f]*)$/.test(labels.at(-1) as string)) {
    const address = canonicalAddress(name);
    return { problem: `the host is a number a resolver reads as an IPv4 address: write it as four decimal numbers${address ? ` (${address})` : ""}` };
  }
  if (domainToASCII(name) !== name) return { problem: "the host is not a valid name (a label starting xn-- that is not punycode)" };
  return { host: name, isAddress: false };
}

function ipv6Host(text: string, bracketless: boolean): { host: string; isAddress: boolean } | DestinationProblem {
  const bare = text.startsWith("[") && text.endsWith("]") ? text.slice(1, -1) : bracketless && !text.startsWith("[") ? text : undefined;
  if (bare === undefined) return { problem: "the host starts with [ and is no IPv6 address in brackets" };
  if (bare.includes("%")) return { problem: "the host has an IPv6 zone id (%): a zone names an interface of this machine, not a destination" };
  const bad = /[^0-9A-Fa-f:.]/.exec(bare);
  if (bad) return { problem: `the host has ${badCharacter(bad[0]) ?? `the character ${JSON.stringify(bad[0])}`}` };
  const address = isIP(bare) === 6 ? canonicalAddress(bare) : undefined;
  if (!address) return { problem: `the host ${JSON.stringify(bare.slice(0, 60))} is not an IPv6 address` };
  return { host: address, isAddress: true };
}

/** A port as a connection names it: 1 to 65535, in decimal digits without a leading zero. */
export function parsePort(text: string): number | DestinationProblem {
  const port = /^[1-9][0-9]{0,4}$/.test(text) ? Number(text) : Number.NaN;
  if (!(port <= 65535)) return { problem: `the port ${JSON.stringify(text.slice(0, 20))} is not a number from 1 to 65535` };
  return port;
}

/**
 * `host:port` (`[::1]:8080`), as a CONNECT request or a `Host` header names a destination; with
 * `defaultPort`, the port may be left out (a URL's authority, `Host: example.com`). Refuses what
 * `parseHost` and `parsePort` refuse, and a bare IPv6 address (`::1:80`: which colon is the port's?).
 */
export function parseAuthority(text: string, defaultPort?: number): Destination | DestinationProblem {
  // What no part of an authority holds is named first: a NUL or a line break is the problem, whatever else follows it.
  const odd = /[\x00-\x20\x7f]/.exec(text);
  if (odd) return { problem: `the destination has ${badCharacter(odd[0]) as string}` };
  if (text.includes("@")) return { problem: "the destination has userinfo (user@host): credentials for the destination do not go in it" };
  const close = text.startsWith("[") ? text.indexOf("]") : -1;
  const colon = text.indexOf(":", close + 1);
  if (close < 0 && colon >= 0 && text.indexOf(":", colon + 1) >= 0) return { problem: "an IPv6 address goes in brackets ([::1]:443)" };
  if (colon < 0 && defaultPort === undefined) return { problem: `the destination ${JSON.stringify(text.slice(0, 80))} names no port (host:port)` };
  if (close >= 0 && colon !== close + 1 && close + 1 !== text.length) return { problem: "after an IPv6 address in brackets comes :port" };
  const hostText = colon < 0 ? text : text.slice(0, colon);
  const port = colon < 0 ? (defaultPort as number) : parsePort(text.slice(colon + 1));
  if (typeof port !== "number") return port;
  const host = parseHost(hostText);
  return "problem" in host ? host : { ...host, port };
}

/** A host as it goes in a URL or an authority: an IPv6 address in brackets. */
export function hostInUrl(host: string): string {
  return host.includes(":") ? `[${host}]` : host;
}

/**
 * What a policy judges for a tunnel to `host:port` (HTTP CONNECT, SOCKS), whose bytes are not
 * opened: `https://host:port/`, `https://host/` for 443, `http://host/` for 80.
 */
export function tunnelUrl(host: string, port: number): string {
  const name = hostInUrl(host);
  if (port === 80) return `http://${name}/`;
  return port === 443 ? `https://${name}/` : `https://${name}:${port}/`;
}
