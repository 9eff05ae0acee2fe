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

/**
 * A call sent (or being sent) and not answered yet, registered under its id before anything is
 * awaited, so that a second call with the same id on this host finds it. Every caller that joined
 * it gets its one answer; one that aborts leaves alone, and the call is cancelled when none is left.
 */
export class Pending {
  readonly id: string;
  readonly name: string;
  readonly digest: string;
  delivery: Delivery = "at-most-once";
  queue: QueueLink | undefined;
  /** The jobs sent for this call: their nonces (an answer must name one), with each one's `jobHash`. */
  readonly jobs = new Map<string, string>();
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
  #settled = false;
  readonly #waiters = new Set<Waiter>();
  readonly #onSettle: (pending: Pending) => void;
  readonly #onAbandon: (pending: Pending) => void;

  constructor(call: { id: string; name: string; digest: string }, hooks: { settled(pending: Pending): void; abandoned(pending: Pending): void }) {
    this.id = call.id;
    this.name = call.name;
    this.digest = call.digest;
    this.#onSettle = hooks.settled;
    this.#onAbandon = hooks.abandoned;
  }

  get settled(): boolean {
    return this.#settled;
  }

  /** A caller joins: it resolves with the call's answer, or on its own abort with `aborted`. */
  join(signal: AbortSignal, onUpdate: (update: AgentToolUpdate) => void, aborted: () => AgentToolResult): Promise<AgentToolResult> {
    return new Promise<AgentToolResult>((resolve) => {
      const waiter: Waiter = {
        resolve,
        onUpdate,
        signal,
        onAbort: () => {
          if (!this.#waiters.delete(waiter)) return;
          resolve(aborted());
          if (this.#waiters.size === 0 && !this.#settled) this.#onAbandon(this);
        },
      };
      this.#waiters.add(waiter);
      signal.addEventListener("abort", waiter.onAbort, { once: true });
    });
  }

  update(update: AgentToolUpdate): void {
    for (const waiter of this.#waiters) waiter.onUpdate(update);
  }

  /** The call's one answer, to every caller still waiting; later answers are ignored. */
  settle(result: AgentToolResult): void {
    if (this.#settled) return;
    this.#settled = true;
    clearTimeout(this.waiting);
    clearTimeout(this.retry);
    clearTimeout(this.polling);
    this.#onSettle(this);
    for (const waiter of this.#waiters) {
      waiter.signal.removeEventListener("abort", waiter.onAbort);
      waiter.resolve(result);
    }
    this.#waiters.clear();
  }
}
