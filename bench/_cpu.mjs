// What several benchmarks measure alike: the CPU time (user + system) a call costs, which other
// processes on a busy machine disturb far less than wall time.

/**
 * The median CPU µs per call over `rounds` runs of `fn`, each making `calls` calls. `collect`: a
 * full collection before each round (node --expose-gc), so that no round pays for another's
 * garbage; without it, rounds run back to back and pay for collection as a long-running host does.
 */
export async function cpuPerCall(fn, { calls, rounds, collect = false }) {
  const samples = [];
  for (let round = 0; round < rounds; round++) {
    if (collect) globalThis.gc?.();
    const start = process.cpuUsage();
    await fn();
    const used = process.cpuUsage(start);
    samples.push((used.user + used.system) / calls);
  }
  samples.sort((a, b) => a - b);
  return samples[Math.floor(rounds / 2)];
}
