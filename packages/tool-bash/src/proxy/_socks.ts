import type { Socket } from "node:net";
import { type DestinationProblem, parseHost, tunnelUrl } from "@toolhost/core";
import { type CallOf, join, open } from "./_connect.js";
import type { Destination } from "./_judge.js";
import type { HandshakeReader } from "./_reader.js";

/** SOCKS5 reply codes (RFC 1928). */
const REFUSED_BY_RULES = 2;
const HOST_UNREACHABLE = 4;
const COMMAND_NOT_SUPPORTED = 7;
const ADDRESS_NOT_SUPPORTED = 8;

/**
 * SOCKS5 (RFC 1928) with username and password (RFC 1929: `toolhost` and the call's token), the
 * CONNECT command only: the destination is judged as a tunnel (`https://host:port/`). `first` is
 * the version byte already read.
 */
export async function serveSocks(reader: HandshakeReader, socket: Socket, callOf: CallOf, _first: Buffer): Promise<void> {
  const count = (await reader.take(1))?.[0];
  const methods = count === undefined ? undefined : await reader.take(count);
  if (!methods) return void socket.destroy();
  // Only username and password: a connection without the call's credentials is no call's.
  if (!methods.includes(2)) return void socket.end(Buffer.from([5, 0xff]));
  socket.write(Buffer.from([5, 2]));
  const token = await credentials(reader);
  const judge = token === undefined ? undefined : callOf(token);
  if (!judge) return void socket.end(Buffer.from([1, 1]));
  socket.write(Buffer.from([1, 0]));
  judge.track(socket);
  const request = await reader.take(4);
  if (!request || request[0] !== 5) return void socket.destroy();
  if (request[1] !== 1) return void socket.end(answer(COMMAND_NOT_SUPPORTED));
  const type = request[3] as number;
  if (type !== 1 && type !== 3 && type !== 4) return void socket.end(answer(ADDRESS_NOT_SUPPORTED));
  const host = await address(reader, type);
  const port = (await reader.take(2))?.readUInt16BE(0);
  if (host === undefined || port === undefined) return void socket.destroy();
  if ("problem" in host || port === 0) {
    judge.refused("problem" in host ? host.text : `${host.host}:0`, "CONNECT", "problem" in host ? host.problem : "the port is 0");
    return void socket.end(answer(ADDRESS_NOT_SUPPORTED));
  }
  const destination: Destination = { ...host, port, method: "CONNECT", url: tunnelUrl(host.host, port) };
  // The client has said what it wants: it now waits for the answer, which may be a person's.
  socket.setTimeout(0);
  const verdict = await judge.judge(destination);
  if (!verdict.allowed) return void socket.end(answer(verdict.unreachable ? HOST_UNREACHABLE : REFUSED_BY_RULES));
  const upstream = await open(verdict.addresses, port, judge);
  if (typeof upstream === "string") return void socket.end(answer(HOST_UNREACHABLE));
  socket.write(answer(0));
  join(socket, reader.detach(), upstream);
}

/** RFC 1929: version 1, the user name (must be `toolhost`), the password (the call's token). */
async function credentials(reader: HandshakeReader): Promise<string | undefined> {
  const head = await reader.take(2);
  if (!head || head[0] !== 1) return undefined;
  const user = await reader.take(head[1] as number);
  const length = (await reader.take(1))?.[0];
  const password = length === undefined ? undefined : await reader.take(length);
  if (user?.toString("utf8") !== "toolhost" || !password) return undefined;
  return password.toString("utf8");
}

type Host = { host: string; isAddress: boolean };

/**
 * The destination's host, through core's one parser: IPv4 (1), a name (3: its bytes must be a
 * name as `parseHost` takes it, so a NUL or a dot too many is refused) or IPv6 (4; an IPv4-mapped
 * one is its IPv4 address). Undefined when the client ended first.
 */
async function address(reader: HandshakeReader, type: 1 | 3 | 4): Promise<Host | (DestinationProblem & { text: string }) | undefined> {
  let text: string;
  if (type === 1) {
    const bytes = await reader.take(4);
    if (!bytes) return undefined;
    text = bytes.join(".");
  } else if (type === 3) {
    const length = (await reader.take(1))?.[0];
    const name = length ? await reader.take(length) : undefined;
    if (!name) return length === 0 ? { problem: "the host is empty", text: "" } : undefined;
    text = name.toString("utf8");
  } else {
    const bytes = await reader.take(16);
    if (!bytes) return undefined;
    text = Array.from({ length: 8 }, (_, at) => bytes.readUInt16BE(at * 2).toString(16)).join(":");
  }
  const parsed = parseHost(text, type === 4);
  return "problem" in parsed ? { ...parsed, text } : parsed;
}

/** A reply: the code, and a zero IPv4 address and port (the client needs no bound address). */
function answer(code: number): Buffer {
  return Buffer.from([5, code, 0, 1, 0, 0, 0, 0, 0, 0]);
}
