import { setTimeout as delay } from "node:timers/promises";

/** After the tree is ended, reading stops once the pipes are quiet this long (an escaped holder may never close them). */
const QUIET_MS = 250;
const DRAIN_LIMIT_MS = 5000;
/** Sandboxed, the pipes end once bwrap has exited; this only bounds a kernel that would not say so. */
const SANDBOX_DRAIN_LIMIT_MS = 60_000;

/**
 * Reads what is left in the pipes after the tree has ended. It waits for their end when nothing
 * can hold them (`untilEnd`), else until they are quiet for `QUIET_MS` after the tree ended.
 * Each check first lets the event loop poll the pipes: a timer that comes due in the same turn as
 * their data (a loaded machine) must not end the reading before that data is read.
 */
export async function drain(closed: Promise<unknown>, untilEnd: boolean, reading: () => { paused: boolean; lastData: number }): Promise<void> {
  const start = performance.now();
  let done = false;
  void closed.then(() => {
    done = true;
  });
  while (!done) {
    const tick = new AbortController();
    await Promise.race([closed, delay(50, undefined, { signal: tick.signal }).catch(() => {})]);
    tick.abort();
    await new Promise<void>((resolve) => setImmediate(resolve));
    if (done) return;
    const now = performance.now();
    if (untilEnd) {
      if (now - start > SANDBOX_DRAIN_LIMIT_MS) return;
      continue;
    }
    const { paused, lastData } = reading();
    if ((!paused && now - Math.max(lastData, start) > QUIET_MS) || now - start > DRAIN_LIMIT_MS) return;
  }
}
