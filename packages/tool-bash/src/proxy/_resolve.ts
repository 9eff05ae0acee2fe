import { lookup } from "node:dns/promises";
import { canonicalAddress, messageOf } from "@toolhost/core";

/** The addresses of a name that are judged and tried, in the resolver's order: a name that gives more is cut to these. */
export const MAX_ADDRESSES = 4;
/**
 * Lookups in flight at once: `dns.lookup` (getaddrinfo, the hosts file and nsswitch as every
 * program here reads them) holds a thread of libuv's pool of four while it waits, and a sandbox
 * that asks for names whose servers never answer must not take every thread the process's file
 * reads need.
 */
const IN_FLIGHT = 2;
/** Lookups waiting for a thread: beyond, a connection is refused at once. */
const WAITING = 256;

let running = 0;
const waiting: Array<() => void> = [];

/**
 * The addresses `name` resolves to (canonical, each once, at most `MAX_ADDRESSES`), looked up once
 * for the connection that asked: the proxy judges them and connects to them, and to nothing else.
 * A failure is the problem in words.
 */
export async function resolveName(name: string): Promise<string[] | { problem: string }> {
  if (running >= IN_FLIGHT) {
    if (waiting.length >= WAITING) return { problem: `too many names are being looked up at once (${WAITING} waiting)` };
    await new Promise<void>((resolve) => waiting.push(resolve));
  }
  running += 1;
  try {
    const found = await lookup(name, { all: true, verbatim: true });
    const addresses = [...new Set(found.map((each) => canonicalAddress(each.address)).filter((each): each is string => each !== undefined))];
    if (addresses.length === 0) return { problem: `${name} has no address` };
    return addresses.slice(0, MAX_ADDRESSES);
  } catch (error) {
    return { problem: `${name} could not be looked up (${messageOf(error)})` };
  } finally {
    running -= 1;
    waiting.shift()?.();
  }
}
