/** Similarity of two strings in [0, 1]: the Dice coefficient of their character pairs. */
export function similarity(a: string, b: string): number {
  if (a === b) return 1;
  if (a.length < 2 || b.length < 2) return a.length > 0 && b.length > 0 && a[0] === b[0] ? 0.5 : 0;
  const pairs = new Map<string, number>();
  for (let i = 0; i < a.length - 1; i++) {
    const pair = a.slice(i, i + 2);
    pairs.set(pair, (pairs.get(pair) ?? 0) + 1);
  }
  let shared = 0;
  for (let i = 0; i < b.length - 1; i++) {
    const pair = b.slice(i, i + 2);
    const left = pairs.get(pair) ?? 0;
    if (left > 0) {
      shared += 1;
      pairs.set(pair, left - 1);
    }
  }
  return (2 * shared) / (a.length + b.length - 2);
}

/** Up to `count` names that look like `name` (same name in another case or extension, or close spelling). */
export function closestNames(name: string, names: readonly string[], count = 3): string[] {
  const lower = name.toLowerCase();
  const stem = lower.replace(/\.[^.]*$/, "");
  return names
    .map((candidate) => {
      const other = candidate.toLowerCase();
      const score =
        other === lower ? 1 : other.replace(/\.[^.]*$/, "") === stem && stem.length > 0 ? 0.9 : similarity(lower, other);
      return { candidate, score };
    })
    .filter((entry) => entry.score >= 0.5)
    .sort((a, b) => b.score - a.score || a.candidate.localeCompare(b.candidate))
    .slice(0, count)
    .map((entry) => entry.candidate);
}

/**
 * Where in `lines` the block `wanted` fits best: the first line (0-based) of the window of
 * `wanted.length` lines with the highest mean similarity (of trimmed lines), and that score.
 * Windows are scored only where their first line is among the closest to `wanted`'s first line,
 * and at most `limit` lines are looked at, so a miss in a huge file stays cheap.
 */
export function closestBlock(
  lines: readonly string[],
  wanted: readonly string[],
  limit = 100_000,
): { start: number; score: number } | undefined {
  const want = wanted.slice(0, 20).map((line) => line.trim());
  if (want.length === 0 || lines.length === 0) return undefined;
  const span = Math.min(want.length, lines.length);
  const last = Math.min(lines.length - span, limit);
  const head = want[0] as string;
  const starts: { start: number; score: number }[] = [];
  for (let start = 0; start <= last; start++) starts.push({ start, score: similarity((lines[start] as string).trim(), head) });
  starts.sort((a, b) => b.score - a.score || a.start - b.start);
  let best: { start: number; score: number } | undefined;
  for (const { start } of starts.slice(0, 50)) {
    let total = 0;
    for (let k = 0; k < span; k++) total += similarity((lines[start + k] as string).trim(), want[k] as string);
    const score = total / want.length;
    if (best === undefined || score > best.score || (score === best.score && start < best.start)) best = { start, score };
  }
  return best;
}
