import type { Socket } from "node:net";
import type { ToolExecution } from "@toolhost/core";
import type { BashConnection } from "../details.js";

/** A destination a sandboxed program asks the proxy for. */
export interface Destination {
  host: string;
  port: number;
  /** `CONNECT` for a tunnel, else the HTTP method. */
  method: string;
  /** What the policy judges: the request's URL, or for a tunnel `https://host[:port]/` (`http://host/` on port 80). */
  url: string;
}

export type Verdict = { allowed: true } | { allowed: false; code: string; reason: string };

/** The connections one call may keep in its record (the details): beyond, they are counted only. */
const MAX_RECORDS = 100;

/**
 * Judges one call's connections: a destination the tool's `destinations` name goes through,
 * every other is asked of the authorize stage (the policy, and an approver for an ask) once per
 * call and URL, the answer kept for the call. Every connection of the call ends with it.
 */
export class ConnectionJudge {
  readonly #execution: ToolExecution;
  readonly #signal: AbortSignal;
  readonly #allowed: readonly RegExp[];
  readonly #answers = new Map<string, Promise<Verdict>>();
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

  judge(destination: Destination): Promise<Verdict> {
    if (this.#closed) return Promise.resolve({ allowed: false, code: "TOOLHOST_ABORTED", reason: "the call has ended" });
    const key = `${destination.method} ${destination.url}`;
    let answer = this.#answers.get(key);
    if (!answer) {
      answer = this.#ask(destination);
      this.#answers.set(key, answer);
    }
    return answer;
  }

  async #ask(destination: Destination): Promise<Verdict> {
    const target = `${destination.host.includes(":") ? `[${destination.host}]` : destination.host}:${destination.port}`;
    const named = this.#allowed.some((pattern) => pattern.test(target));
    let verdict: Verdict;
    if (named) verdict = { allowed: true };
    else {
      const outcome = await this.#execution.authorize({ network: [{ url: destination.url, method: destination.method }] }, this.#signal);
      verdict = outcome.allowed ? { allowed: true } : { allowed: false, code: outcome.code, reason: outcome.reason };
    }
    const record: BashConnection = { destination: target, method: destination.method, url: destination.url, allowed: verdict.allowed };
    if (named) record.reason = "named in the bash tool's destinations";
    else if (!verdict.allowed) record.reason = verdict.reason;
    if (this.records.length < MAX_RECORDS) this.records.push(record);
    else this.unrecorded += 1;
    return verdict;
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

/** `host:port` with `*` for any run of characters in the host (`*.example.com`) and for any port. */
export function destinationPattern(pattern: string): RegExp {
  const at = pattern.lastIndexOf(":");
  const host = pattern.slice(0, at).toLowerCase();
  const port = pattern.slice(at + 1);
  const hostSource = host.split("*").map((part) => part.replace(/[.\\[\]()+?^$|{}]/g, "\\$&")).join("[^:]*");
  return new RegExp(`^${hostSource}:${port === "*" ? "\\d+" : port}$`, "i");
}
