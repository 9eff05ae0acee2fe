/**
 * The calls under way, by call id. Ids come from the model or a client and may repeat (two batches
 * on one harness, a model that reuses "1"): entries of one id are kept in the order they started,
 * and the first to start is the first to end, so no span is lost or left open.
 */
export class CallTable<T> {
  readonly #byId = new Map<string, T | T[]>();

  add(id: string, entry: T): void {
    const found = this.#byId.get(id);
    if (found === undefined) this.#byId.set(id, entry);
    else if (Array.isArray(found)) found.push(entry);
    else this.#byId.set(id, [found, entry]);
  }

  /** The latest call of that id still under way (the one a running tool belongs to, as far as ids tell). */
  get(id: string): T | undefined {
    const found = this.#byId.get(id);
    return Array.isArray(found) ? found[found.length - 1] : found;
  }

  /** Removes and returns the earliest call of that id. */
  take(id: string): T | undefined {
    const found = this.#byId.get(id);
    if (!Array.isArray(found)) {
      this.#byId.delete(id);
      return found;
    }
    const first = found.shift();
    if (found.length === 1) this.#byId.set(id, found[0] as T);
    return first;
  }

  get size(): number {
    return this.#byId.size;
  }
}
