import type { StopReason } from "./_result.js";

/** Beyond setTimeout's range (about 24.8 days) Node would fire at once: such a limit is no limit. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * What ends a call before its shell exits: its signal, its timeout, the tool's dispose, a limit
 * reached. The first reason wins; `stopped` settles then.
 */
export class StopControl {
  #reason: StopReason | undefined;
  #ended = false;
  #onStop: () => void = () => {};
  readonly stopped = new Promise<void>((resolve) => {
    this.#onStop = resolve;
  });
  readonly #signal: AbortSignal | undefined;
  readonly #onAbort = (): void => this.stop("aborted");
  readonly #timer: NodeJS.Timeout | undefined;

  constructor(signal: AbortSignal | undefined, timeoutSeconds: number | undefined) {
    this.#signal = signal;
    signal?.addEventListener("abort", this.#onAbort, { once: true });
    // Aborted while the call was being set up: the listener above will never fire.
    if (signal?.aborted) this.stop("aborted");
    const timeoutMs = timeoutSeconds === undefined ? undefined : timeoutSeconds * 1000;
    if (timeoutMs !== undefined && timeoutMs <= MAX_TIMER_MS) this.#timer = setTimeout(() => this.stop("timeout"), timeoutMs);
  }

  get reason(): StopReason | undefined {
    return this.#reason;
  }

  stop(reason: StopReason): void {
    if (this.#reason !== undefined || this.#ended) return;
    this.#reason = reason;
    this.#onStop();
  }

  /** The call has settled: nothing stops it any more. */
  end(): void {
    this.#ended = true;
    clearTimeout(this.#timer);
    this.#signal?.removeEventListener("abort", this.#onAbort);
  }
}
