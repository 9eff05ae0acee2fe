import type { Socket } from "node:net";
import { hostInUrl, type NetworkAccess, type ToolExecution } from "@toolhost/core";
import type { BashConnection } from "../details.js";
import { resolveName } from "./_resolve.js";

/** A destination a sandboxed program asks the proxy for, as the one parser read it. */
export interface Destination {
  /** Canonical: a lower-case name, or an address (`127.0.0.1`, `::1`). */
  host: string;
  port: number;
  /** True when the client named an address, not a name. */
  isAddress: boolean;
  /** `CONNECT` for a tunnel, else the HTTP method. */
  method: string;
  /** What the policy judges: the request's URL, or for a tunnel `https://host[:port]/` (`http://host/` on port 80). */
  url: string;
}

/** Allowed: the addresses to connect to, in order, and to no other. Refused: why; `unreachable` when no one refused it (the name has no address). */
export type Verdict = { allowed: true; addresses: string[] } | { allowed: false; code: string; reason: string; unreachable?: boolean };

type Answer = { allowed: true } | { allowed: false; code: string; reason: string };

/** The connections one call may keep in its record (the details): beyond, they are counted only. */
const MAX_RECORDS = 100;
/** The answers one call keeps: beyond (a client asking for ever new names), each question is asked anew. */
const MAX_ANSWERS = 10_000;
const NAMED = "named in the bash tool's destinations";

/**
 * Judges one call's connections. The name first (unless the tool's `destinations` name it): the
 * authorize stage (the policy, an approver for an ask) is asked about the URL before anything is
 * looked up, so a name it refuses never reaches a DNS server. Then the name is resolved, once, and
 * the authorize stage is asked about each address (`NetworkAccess.address`): a deny of an address
 * holds whatever allowed the name. The verdict names the addresses judged, the only ones the
 * connection may go to. Each question is asked once per call; every connection of the call ends
 * with it.
 */
export class ConnectionJudge {
  readonly #execution: ToolExecution;
  readonly #signal: AbortSignal;
  readonly #allowed: readonly RegExp[];
  readonly #answers = new Map<string, Promise<Answer>>();
  readonly #recorded = new Set<string>();
  readonly #sockets = new Set<Socket>();
  readonly records: BashConnection[] = [];
  /** Connections beyond the record's limit. */
  unrecorded = 0;
  #closed = false;

  constructor(execution: ToolExecution, signal: AbortSignal, destinations: readonly string[]) {
    this.#execution = execution;
    this.#signal = signal;
    this.#allowed = destinations.map(destinationPattern);
  }

  async judge(destination: Destination): Promise<Verdict> {
    const verdict = await this.#decide(destination);
    if (!this.#closed || !verdict.allowed) return verdict;
    return { allowed: false, code: "TOOLHOST_ABORTED", reason: "the call has ended" };
  }

  async #decide(destination: Destination): Promise<Verdict> {
    if (this.#closed) return { allowed: false, code: "TOOLHOST_ABORTED", reason: "the call has ended" };
    const { host, isAddress, method, url } = destination;
    if (isAddress && unspecified(host)) return this.#record(destination, [], { allowed: false, code: "TOOLHOST_BASH_NO_DESTINATION", reason: UNSPECIFIED }, undefined);
    const named = this.#allowed.some((pattern) => pattern.test(`${hostInUrl(host)}:${destination.port}`));
    const entry: NetworkAccess = { url, method };
    // An address named as such is judged as the URL's host, by the rules on its text and those that name it: one question.
    if (!named) {
      const answer = await this.#ask([entry]);
      if (!answer.allowed || isAddress) return this.#record(destination, [], answer, undefined);
    }
    const found = isAddress ? [host] : await resolveName(host);
    if (!Array.isArray(found)) return this.#record(destination, [], { allowed: false, code: "TOOLHOST_BASH_LOOKUP_FAILED", reason: found.problem }, undefined, true);
    // A name a resolver points at 0.0.0.0 (a blocking DNS server's answer) is not connected to.
    const addresses = found.filter((address) => !unspecified(address));
    if (addresses.length === 0) return this.#record(destination, found, { allowed: false, code: "TOOLHOST_BASH_NO_DESTINATION", reason: UNSPECIFIED }, undefined);
    const answer = await this.#ask(addresses.map((address) => ({ ...entry, address })));
    return this.#record(destination, addresses, answer, named ? NAMED : undefined);
  }

  /** The authorize stage's answer to one question, asked once per call. */
  #ask(network: NetworkAccess[]): Promise<Answer> {
    const key = JSON.stringify(network.map((each) => [each.method, each.url, each.address ?? ""]).sort());
    let answer = this.#answers.get(key);
    if (!answer) {
      answer = this.#execution.authorize({ network }, this.#signal).then((outcome) => (outcome.allowed ? { allowed: true } : { allowed: false, code: outcome.code, reason: outcome.reason }));
      if (this.#answers.size < MAX_ANSWERS) this.#answers.set(key, answer);
    }
    return answer;
  }

  #record(destination: Destination, addresses: string[], answer: Answer, why: string | undefined, unreachable = false): Verdict {
    const target = `${hostInUrl(destination.host)}:${destination.port}`;
    const record: BashConnection = { destination: target, method: destination.method, url: destination.url, allowed: answer.allowed };
    if (addresses.length > 0 && !(destination.isAddress && addresses[0] === destination.host)) record.addresses = addresses;
    if (!answer.allowed) record.reason = answer.reason;
    else if (why) record.reason = why;
    this.#keep(record);
    if (!answer.allowed) return { ...answer, ...(unreachable && { unreachable }) };
    return { allowed: true, addresses: addresses.length > 0 ? addresses : [destination.host] };
  }

  /** A request whose spelling of its destination was refused before anything was asked: recorded with its text, escaped. */
  refused(text: string, method: string, problem: string): void {
    const shown = escaped(text);
    this.#keep({ destination: shown, method: /^[A-Z]{1,20}$/.test(method) ? method : escaped(method), url: shown, allowed: false, reason: problem });
  }

  #keep(record: BashConnection): void {
    if (this.records.length >= MAX_RECORDS) {
      this.unrecorded += 1;
      return;
    }
    const key = JSON.stringify([record.destination, record.method, record.url, record.addresses, record.allowed]);
    if (this.#recorded.has(key)) return;
    this.#recorded.add(key);
    this.records.push(record);
  }

  /** A socket of this call (the program's, or the destination's): destroyed when the call ends. */
  track(socket: Socket): void {
    if (this.#closed) socket.destroy();
    this.#sockets.add(socket);
    socket.once("close", () => this.#sockets.delete(socket));
  }

  close(): void {
    this.#closed = true;
    for (const socket of this.#sockets) socket.destroy();
    this.#sockets.clear();
  }
}

const UNSPECIFIED = "0.0.0.0 and :: name no destination (a connection to them reaches this machine itself)";

/** 0.0.0.0/8 and `::`: connected to, they reach this machine's own services. */
function unspecified(address: string): boolean {
  return address === "::" || /^0\./.test(address);
}

/** A client's text, bounded and quoted with every byte outside printable ASCII escaped: it reaches the model and terminals. */
export function escaped(text: string): string {
  const cut = text.length > 120 ? `${text.slice(0, 120)}…` : text;
  return JSON.stringify(cut).replace(/[^\x20-\x7e]/g, (char) => (char === "…" ? char : `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`));
}

/** `host:port` with `*` for any run of characters in the host (`*.example.com`) and for any port. */
export function destinationPattern(pattern: string): RegExp {
  const at = pattern.lastIndexOf(":");
  const host = pattern.slice(0, at).toLowerCase();
  const port = pattern.slice(at + 1);
  const hostSource = host.split("*").map((part) => part.replace(/[.\\[\]()+?^$|{}]/g, "\\$&")).join("[^:]*");
  return new RegExp(`^${hostSource}:${port === "*" ? "\\d+" : port}$`, "i");
}
