const tails = new Map<string, Promise<void>>();

/**
 * Runs `fn` once every earlier holder of `key` (a real path) has finished, process-wide, so two
 * writers of one file never interleave even when tools run in parallel or come from two harnesses.
 */
export async function withPathLock<T>(key: string, fn: () => Promise<T>): Promise<T> {
  const previous = tails.get(key) ?? Promise.resolve();
  let release!: () => void;
  const mine = new Promise<void>((resolve) => {
    release = resolve;
  });
  const tail = previous.then(() => mine);
  tails.set(key, tail);
  await previous;
  try {
    return await fn();
  } finally {
    release();
    if (tails.get(key) === tail) tails.delete(key);
  }
}
