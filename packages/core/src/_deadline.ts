import type { AgentToolResult } from "./types/index.js";
import { type BatchAbort, StopReason, timeoutReason } from "./_stop.js";

/*
 * Per-call time-outs at a batch's cost: the calls of a batch that start within the same
 * millisecond share one deadline, so one timer and one signal serve them all. An AbortSignal cost
 * about 5 µs to make and a timer about 1 µs, more than the rest of the pipeline together.
 */

/** The deadlines of one batch's calls with a time-out. */
export class Deadlines {
  #current: Deadline | undefined;

  constructor(
    readonly abort: BatchAbort,
    readonly timeoutMs: number,
  ) {}

  /** The deadline of a call starting now: the one of the calls that started in the same millisecond, or a new one. */
  join(): Deadline {
    const bucket = Math.ceil(performance.now());
    const current = this.#current;
    if (current !== undefined && current.bucket === bucket && current.fired === undefined) {
      current.members += 1;
      return current;
    }
    this.#current = new Deadline(this.abort, this.timeoutMs, bucket);
    return this.#current;
  }
}

/**
 * One deadline: due `timeoutMs` after the last of its calls could have started (so a call may run
 * up to a millisecond over its time-out, never under), or when the batch is aborted.
 */
export class Deadline {
  members = 1;
  /** Why it stopped its calls, once it did. */
  fired: StopReason | undefined;
  readonly #abort: BatchAbort;
  readonly #controller: AbortController;
  readonly #timer: NodeJS.Timeout;
  readonly #waiters = new Set<(reason: StopReason) => void>();

  constructor(
    abort: BatchAbort,
    timeoutMs: number,
    readonly bucket: number,
  ) {
    this.#abort = abort;
    this.#controller = abort.own();
    this.#timer = setTimeout(() => this.#fire(timeoutReason(timeoutMs)), Math.max(0, bucket + timeoutMs - performance.now()));
    abort.stopped?.then((reason) => this.#fire(reason));
  }

  /** The signal its calls run with: aborted at the deadline and with the batch. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** What `running` resolves to, or the reason the deadline stopped it, whichever comes first. */
  race(running: Promise<AgentToolResult>): Promise<AgentToolResult | StopReason> {
    if (this.fired !== undefined) return Promise.resolve(this.fired);
    return new Promise((resolve) => {
      this.#waiters.add(resolve);
      running.then((result) => {
        this.#waiters.delete(resolve);
        resolve(result);
      });
    });
  }

  /** A call of it is done: the last one clears the timer and lets the batch forget the signal. */
  leave(): void {
    this.members -= 1;
    if (this.members > 0) return;
    clearTimeout(this.#timer);
    this.#abort.release(this.#controller);
  }

  #fire(reason: StopReason): void {
    if (this.fired !== undefined) return;
    this.fired = reason;
    clearTimeout(this.#timer);
    // The batch's abort aborts the signal itself (BatchAbort.own); a time-out is this deadline's own.
    if (!this.#controller.signal.aborted) this.#controller.abort(reason);
    for (const waiter of this.#waiters) waiter(reason);
    this.#waiters.clear();
  }
}

export { StopReason };
