/** A worker's concurrency: how many jobs it holds at once, across its queues. */
export class Slots {
  readonly #size: number;
  #used = 0;
  #waiters: Array<() => void> = [];

  constructor(size: number) {
    this.#size = size;
  }

  get used(): number {
    return this.#used;
  }

  /** Takes up to `most` free slots (none when all are taken); give back what is not used. */
  take(most: number): number {
    const taken = Math.max(0, Math.min(most, this.#size - this.#used));
    this.#used += taken;
    return taken;
  }

  release(count: number): void {
    this.#used = Math.max(0, this.#used - count);
    if (this.#used < this.#size) for (const wake of this.#waiters.splice(0)) wake();
  }

  /** Resolves when a slot is free, or when `signal` aborts. */
  whenFree(signal: AbortSignal): Promise<void> {
    if (this.#used < this.#size || signal.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => {
        signal.removeEventListener("abort", done);
        resolve();
      };
      this.#waiters.push(done);
      signal.addEventListener("abort", done, { once: true });
    });
  }

  /** Resolves when every slot is free again, or after `ms`; true when they are. */
  async drained(ms: number): Promise<boolean> {
    const end = Date.now() + ms;
    while (this.#used > 0 && Date.now() < end) await new Promise((resolve) => setTimeout(resolve, 50));
    return this.#used === 0;
  }
}
