/** A running call, as the tool's `dispose` sees it. */
export interface RunningCommand {
  /** Ends the command's tree; the call then throws as aborted. */
  stop(): void;
  readonly settled: Promise<unknown>;
}

/** The calls of one tool still running, and whether the tool was disposed (a call starting after it is stopped at once). */
export class RunningCommands {
  readonly #calls = new Set<RunningCommand>();
  #disposed = false;

  get disposed(): boolean {
    return this.#disposed;
  }

  /** Registers a call that `stop` ends; returns what to call once it has settled. */
  track(stop: () => void): () => void {
    let settle!: () => void;
    const call: RunningCommand = { stop, settled: new Promise<void>((resolve) => (settle = resolve)) };
    this.#calls.add(call);
    if (this.#disposed) call.stop();
    return () => {
      this.#calls.delete(call);
      settle();
    };
  }

  /** Stops every call and waits until each has settled. */
  async dispose(): Promise<void> {
    this.#disposed = true;
    const calls = [...this.#calls];
    for (const call of calls) call.stop();
    await Promise.all(calls.map((call) => call.settled));
  }
}
