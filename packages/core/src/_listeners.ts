import type { SyncHook } from "tapable";
import { messageOf } from "./errors.js";
import type { AgentEvent } from "./types/index.js";

/** The listeners of `harness.subscribe`: one `event` tap for all of them, added with the first. */
export class Listeners {
  readonly #listeners = new Set<(event: AgentEvent) => void>();
  readonly #warned = new WeakSet<(event: AgentEvent) => void>();
  #tapped = false;

  add(hook: SyncHook<[AgentEvent]>, listener: (event: AgentEvent) => void): () => void {
    if (!this.#tapped) {
      this.#tapped = true;
      hook.tap("toolhost:subscribers", (event) => this.#tell(event));
    }
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
    };
  }

  #tell(event: AgentEvent): void {
    for (const listener of this.#listeners) {
      try {
        listener(event);
      } catch (error) {
        // Once per listener: a broken UI must not flood the terminal, nor break a call.
        if (!this.#warned.has(listener)) {
          this.#warned.add(listener);
          process.emitWarning(`A toolhost event listener threw on "${event.type}": ${messageOf(error)}`);
        }
      }
    }
  }
}
