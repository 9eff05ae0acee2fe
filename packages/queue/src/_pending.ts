import type { AgentToolResult, AgentToolUpdate } from "@toolhost/core";
import type { Delivery } from "./_job.js";
import type { QueueKeys } from "./_keys.js";
import type { ReplyReader } from "./_reply-reader.js";
import type { Signed } from "./_scripts.js";

/** One of the host's queues: its keys, and the reader of this host's answers on it. */
export interface QueueLink {
  keys: QueueKeys;
  reader: ReplyReader;
  lost: boolean;
}

/** One caller waiting for a call's answer: its own kernel call (its update path and signal). */
interface Waiter {
  resolve(result: AgentToolResult): void;
  onUpdate(update: AgentToolUpdate): void;
  signal: AbortSignal;
  onAbort(): void;
}

/** What the producer does when a call is settled, and when its last caller left. */
export interface PendingHooks {
  settled(pending: Pending): void;
  abandoned(pending: Pending): void;
}

/**
 * A call sent (or being sent) and not answered yet, registered under its id before anything is
 * awaited, so that a second call with the same id on this host finds it. Every caller that joined
 * it gets its one answer; one that aborts leaves alone, and the call is cancelled when none is left.
 * (Most calls have one caller and one job: those live in fields, the rest in arrays made on need;
 * a host holds thousands of these at once in a flood.)
 */
export class Pending {
  readonly id: string;
  readonly name: string;
  readonly digest: string;
  delivery: Delivery = "at-most-once";
  queue: QueueLink | undefined;
  /** Makes the call's next job (a fresh nonce, time and signature); set once the call is prepared. */
  nextJob: (() => { nonce: string; job: Signed }) | undefined;
  /** Its entry in the jobs stream, once added; when it was added; whether a worker is known to hold it. */
  entry: string | undefined;
  sentAt = 0;
  taken = false;
  /** A `#send` in flight: a second one waits for it (one job at a time). */
  sending = false;
  /** Set while a retryable call waits for a lost connection to come back: when it fires, the call is lost. */
  waiting: NodeJS.Timeout | undefined;
  /** Set while a retryable call is to be sent again soon (the connection is back, the last try failed). */
  retry: NodeJS.Timeout | undefined;
  /** Set while the call id is in flight from elsewhere (another host, or before a restart). */
  polling: NodeJS.Timeout | undefined;
  /** Stale answers refused for this call (said once). */
  refusedStale = false;
  /** Every caller aborted: the call is cancelled (not answered). */
  cancelled = false;
  #settled = false;
  /** The jobs sent for this call, as nonce and signature pairs: an answer must name one. */
  #jobs: string[] = [];
  #first: Waiter | undefined;
  #more: Waiter[] | undefined;
  readonly #hooks: PendingHooks;

  constructor(call: { id: string; name: string; digest: string }, hooks: PendingHooks) {
    this.id = call.id;
    this.name = call.name;
    this.digest = call.digest;
    this.#hooks = hooks;
  }

  get settled(): boolean {
    return this.#settled;
  }

  /** Remembers a job sent for this call: its nonce, and its signature (a worker's refusal of it names it). */
  sent(nonce: string, sig: string): void {
    this.#jobs.push(nonce, sig);
  }

  /** The signature of the job this host sent with `nonce` ("" unsigned), if it sent one. */
  sigOf(nonce: string): string | undefined {
    for (let i = 0; i < this.#jobs.length; i += 2) if (this.#jobs[i] === nonce) return this.#jobs[i + 1];
    return undefined;
  }

  /** The nonces of the jobs sent. */
  nonces(): string[] {
    return this.#jobs.filter((_, i) => i % 2 === 0);
  }

  /** A caller joins: it resolves with the call's answer, or on its own abort with `aborted`. */
  join(signal: AbortSignal, onUpdate: (update: AgentToolUpdate) => void, aborted: () => AgentToolResult): Promise<AgentToolResult> {
    return new Promise<AgentToolResult>((resolve) => {
      const waiter: Waiter = { resolve, onUpdate, signal, onAbort: () => this.#leave(waiter, aborted) };
      if (!this.#first) this.#first = waiter;
      else (this.#more ??= []).push(waiter);
      signal.addEventListener("abort", waiter.onAbort, { once: true });
    });
  }

  #leave(waiter: Waiter, aborted: () => AgentToolResult): void {
    if (this.#first === waiter) this.#first = this.#more?.shift();
    else if (this.#more?.includes(waiter)) this.#more.splice(this.#more.indexOf(waiter), 1);
    else return;
    waiter.resolve(aborted());
    if (this.#first || this.#settled) return;
    this.cancelled = true;
    this.#hooks.abandoned(this);
  }

  update(update: AgentToolUpdate): void {
    this.#first?.onUpdate(update);
    for (const waiter of this.#more ?? []) waiter.onUpdate(update);
  }

  /** The call's one answer, to every caller still waiting; later answers are ignored. */
  settle(result: AgentToolResult): void {
    if (this.#settled) return;
    this.#settled = true;
    clearTimeout(this.waiting);
    clearTimeout(this.retry);
    clearTimeout(this.polling);
    this.#hooks.settled(this);
    const waiters = this.#first ? [this.#first, ...(this.#more ?? [])] : [];
    this.#first = undefined;
    this.#more = undefined;
    for (const waiter of waiters) {
      waiter.signal.removeEventListener("abort", waiter.onAbort);
      waiter.resolve(result);
    }
  }
}
