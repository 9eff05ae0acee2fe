/**
 * A counted bound taken first come, first served: `take(n)` waits until `n` are free and no earlier
 * taker is still waiting (so a large take is not starved by small ones).
 */
export class Slots {
  #free: number;
  readonly #waiting: Array<{ count: number; resolve: () => void }> = [];

  constructor(readonly size: number) {
    this.#free = size;
  }

  /** Whether `take(count)` would have to wait. */
  wouldWait(count: number): boolean {
    return this.#waiting.length > 0 || this.#free < count;
  }

  get waiting(): number {
    return this.#waiting.length;
  }

  take(count: number): Promise<void> {
    if (!this.wouldWait(count)) {
      this.#free -= count;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.#waiting.push({ count, resolve }));
  }

  give(count: number): void {
    this.#free += count;
    while (this.#waiting.length > 0 && (this.#waiting[0] as { count: number }).count <= this.#free) {
      const next = this.#waiting.shift() as { count: number; resolve: () => void };
      this.#free -= next.count;
      next.resolve();
    }
  }
}
