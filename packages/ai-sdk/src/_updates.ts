import type { AgentToolUpdate } from "@toolhost/core";

/**
 * One call's streamed updates on their way to the AI SDK as preliminary results: the kernel's
 * `toolUpdate` hook pushes (already redacted), the tool's `execute` generator drains until the
 * call has its result.
 */
export class UpdateChannel {
  readonly #pending: AgentToolUpdate[] = [];
  #wake: (() => void) | undefined;
  #done = false;

  push(update: AgentToolUpdate): void {
    if (this.#done) return;
    this.#pending.push(update);
    this.#wake?.();
  }

  /** No more updates: the call has its result. */
  finish(): void {
    this.#done = true;
    this.#wake?.();
  }

  async *drain(): AsyncGenerator<AgentToolUpdate> {
    for (;;) {
      while (this.#pending.length > 0) yield this.#pending.shift() as AgentToolUpdate;
      if (this.#done) return;
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
      });
      this.#wake = undefined;
    }
  }
}
