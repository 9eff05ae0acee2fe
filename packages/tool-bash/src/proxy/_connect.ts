import { type LookupFunction, type Socket, connect } from "node:net";
import { hostInUrl, messageOf } from "@toolhost/core";
import type { ConnectionJudge } from "./_judge.js";

/** Finds the call a connection belongs to by the credentials it carries. */
export type CallOf = (token: string) => ConnectionJudge | undefined;

/** What the destination sends is read into buffers this big, a few of them reused (a download makes no garbage). */
const CHUNK = 512 * 1024;
/** Buffers of one connection on their way to the client: beyond them, reading from the destination waits. */
const IN_FLIGHT = 4;

/** An open connection to a destination, whose answer goes to `deliver` once `join` names the client. */
export interface Upstream {
  socket: Socket;
  /** Where what the destination sends goes. */
  deliver(client: Socket): void;
}

/**
 * Connects from this machine to the first of `addresses` (those judged, in the resolver's order)
 * that answers: the connection, or why each failed. The socket is given an address, so Node looks
 * nothing up; its lookup refuses, should a name ever reach it.
 */
export async function open(addresses: readonly string[], port: number, judge: ConnectionJudge): Promise<Upstream | string> {
  const failures: string[] = [];
  for (const address of addresses) {
    const upstream = await openOne(address, port, judge);
    if (typeof upstream !== "string") return upstream;
    failures.push(addresses.length > 1 ? `${hostInUrl(address)}: ${upstream}` : upstream);
  }
  return failures.join("; ");
}

const noLookup: LookupFunction = (hostname, _options, callback) => callback(Object.assign(new Error(`the proxy looks up no name when it connects (${hostname})`), { code: "ENOTFOUND" }), "", 4);

function openOne(address: string, port: number, judge: ConnectionJudge): Promise<Upstream | string> {
  return new Promise((resolve) => {
    const pump = new Downstream();
    const socket = connect({ host: address, port, lookup: noLookup, onread: { buffer: () => pump.take(), callback: (bytes, buffer) => pump.read(bytes, buffer as Buffer) } });
    pump.from = socket;
    judge.track(socket);
    socket.once("connect", () => resolve({ socket, deliver: (client) => pump.to(client) }));
    socket.once("error", (error) => resolve(messageOf(error)));
  });
}

/** Copies both ways (with backpressure) until either side ends; `early` is what the client sent after its handshake. */
export function join(client: Socket, early: Buffer, upstream: Upstream): void {
  const { socket } = upstream;
  client.setTimeout(0);
  socket.on("error", () => {});
  if (early.length > 0) socket.write(early);
  client.pipe(socket);
  upstream.deliver(client);
  client.once("close", () => socket.destroy());
  socket.once("close", () => client.destroy());
  client.resume();
}

/**
 * The destination's bytes on their way to the client, in a few reused buffers (the socket's
 * `onread`): a buffer is read into again only once the client has taken it; while all are out,
 * or the client is behind, reading waits.
 */
class Downstream {
  from: Socket | undefined;
  #client: Socket | undefined;
  readonly #free: Buffer[] = [];
  #allocated = 0;
  /** What came before the client was named (a server that speaks first), copied. */
  readonly #early: Buffer[] = [];
  #paused = false;

  take(): Buffer {
    const buffer = this.#free.pop();
    if (buffer) return buffer;
    this.#allocated += 1;
    return Buffer.allocUnsafe(CHUNK);
  }

  to(client: Socket): void {
    this.#client = client;
    this.from?.once("end", () => client.end());
    client.on("drain", () => this.#resume());
    for (const chunk of this.#early.splice(0)) client.write(chunk);
  }

  /** One read into `buffer`: handed on; false pauses the reading. */
  read(bytes: number, buffer: Buffer): boolean {
    const client = this.#client;
    if (!client) {
      this.#early.push(Buffer.from(buffer.subarray(0, bytes)));
      this.#free.push(buffer);
      return true;
    }
    client.write(buffer.subarray(0, bytes), () => {
      this.#free.push(buffer);
      this.#resume();
    });
    this.#paused = client.writableNeedDrain || (this.#free.length === 0 && this.#allocated >= IN_FLIGHT);
    return !this.#paused;
  }

  #resume(): void {
    if (!this.#paused || this.#client?.writableNeedDrain || (this.#free.length === 0 && this.#allocated >= IN_FLIGHT)) return;
    this.#paused = false;
    this.from?.resume();
  }
}
