import type { AgentToolUpdate } from "@toolhost/core";

/**
 * One call's streamed updates on their way to the AI SDK as preliminary results: the kernel's
 * `toolUpdate` hook pushes (already redacted); the tool's `execute` takes them until the call has
 * its result. A call that streams nothing costs one promise.
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

  /** The next update, or undefined when there is none yet (or none will come: see `done`). */
  take(): AgentToolUpdate | undefined {
    return this.#pending.shift();
  }

  get done(): boolean {
    return this.#done && this.#pending.length === 0;
  }

  /** Resolves when an update comes or the call ends. */
  wait(): Promise<void> {
    return new Promise<void>((resolve) => {
      this.#wake = () => {
        this.#wake = undefined;
        resolve();
      };
    });
  }
}
