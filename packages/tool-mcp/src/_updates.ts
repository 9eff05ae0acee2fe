/**
 * Passes a call's progress on at most once per turn of the event loop, the latest one: a server
 * that floods progress notifications costs one update per chunk it wrote, not one per notification,
 * whatever listens to the updates. `stop` drops what has not been passed on (the call has ended).
 */
export function latestOnly<T>(send: (value: T) => void): { push(value: T): void; stop(): void } {
  let latest: { value: T } | undefined;
  let timer: NodeJS.Immediate | undefined;
  return {
    push(value) {
      latest = { value };
      timer ??= setImmediate(() => {
        timer = undefined;
        const next = latest;
        latest = undefined;
        try {
          if (next) send(next.value);
        } catch {
          // An update is advisory; whatever failed to take it, the call goes on.
        }
      });
    },
    stop() {
      if (timer) clearImmediate(timer);
      timer = undefined;
      latest = undefined;
    },
  };
}
