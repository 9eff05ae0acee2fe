import type { Stats } from "node:fs";
import type { LinePosition } from "./_lines.js";

/** Files smaller than this are scanned from the start every time: it is cheap. */
export const CHECKPOINT_MIN_SIZE = 8 * 1024 * 1024;
const MAX_FILES = 32;

interface Entry {
  /** Size, mtime and ctime when the checkpoints were taken: any change drops them. */
  version: string;
  positions: LinePosition[];
}

const entries = new Map<string, Entry>();

const keyOf = (info: Stats): string => `${info.dev}:${info.ino}`;
const versionOf = (info: Stats): string => `${info.size}:${info.mtimeMs}:${info.ctimeMs}`;

/**
 * Line starts seen in big files, so paging through a large file (lines 5,000,000-5,000,099, then the
 * next 100) does not scan it from the top each time. Process-wide, for the 32 files used last.
 */
export function checkpointsFor(info: Stats): {
  nearest(line: number): LinePosition | undefined;
  add(position: LinePosition): void;
} {
  const key = keyOf(info);
  const version = versionOf(info);
  let entry = entries.get(key);
  if (entry?.version !== version) entry = { version, positions: [] };
  entries.delete(key);
  entries.set(key, entry);
  if (entries.size > MAX_FILES) entries.delete(entries.keys().next().value as string);
  const positions = entry.positions;
  return {
    nearest(line) {
      let best: LinePosition | undefined;
      for (const position of positions) {
        if (position.line > line) break;
        best = position;
      }
      return best;
    },
    add(position) {
      const last = positions[positions.length - 1];
      if (last === undefined || position.line > last.line) positions.push(position);
    },
  };
}
