/**
 * How the kernel writes about a value it did not make (a call's arguments, a tool's details):
 * bounded in depth, size and length, and never throwing, whatever the value is (nested thousands
 * of levels deep, cyclic, a BigInt, an object without a prototype, a Proxy whose traps throw, a
 * `toString` that is not a function).
 */

/** How far `snapshot` goes. */
export interface SnapshotLimits {
  /** Levels of arrays and objects kept; deeper ones become a note. */
  depth: number;
  /** Values kept in all; after that, the rest becomes a note. */
  nodes: number;
  /** Characters kept of each string (default: all). */
  string?: number;
}

/** Limits for writing about a value in a message. */
const PREVIEW_LIMITS: SnapshotLimits = { depth: 12, nodes: 2_000, string: 2_000 };

const UNREADABLE = "[unreadable]";

/**
 * A copy of `value` as JSON would see it, within `limits`, with every string passed through `text`
 * (when given): arrays and objects (their own enumerable properties) are copied; a BigInt becomes
 * `"12n"`, a symbol its description, a function is left out, a `Date` its ISO string, binary data a
 * note; a cycle, a level past `depth` or a value past `nodes` becomes a note, and a property whose
 * getter or trap throws becomes `"[unreadable]"`. Only `text` may throw (a redactor that fails).
 */
export function snapshot(value: unknown, limits: SnapshotLimits, text?: (value: string) => string): unknown {
  const state = { nodes: 0, limits, text, ancestors: new Set<object>() };
  return copy(value, 0, state);
}

interface WalkState {
  nodes: number;
  readonly limits: SnapshotLimits;
  readonly text: ((value: string) => string) | undefined;
  readonly ancestors: Set<object>;
}

function copy(value: unknown, depth: number, state: WalkState): unknown {
  state.nodes += 1;
  switch (typeof value) {
    case "string": {
      const max = state.limits.string;
      const kept = max !== undefined && value.length > max ? `${value.slice(0, max)}… (${value.length - max} more characters)` : value;
      return state.text ? state.text(kept) : kept;
    }
    case "number":
    case "boolean":
    case "undefined":
      return value;
    case "bigint":
      return `${value}n`;
    case "symbol":
      return `Symbol(${describeSymbol(value)})`;
    case "function":
      return undefined;
  }
  if (value === null) return null;
  return copyObject(value as object, depth, state);
}

function copyObject(value: object, depth: number, state: WalkState): unknown {
  if (state.ancestors.has(value)) return "[circular]";
  if (depth >= state.limits.depth) return `[nested deeper than ${state.limits.depth} levels]`;
  if (state.nodes > state.limits.nodes) return "[…]";
  let kind: "array" | "binary" | "date" | "object";
  try {
    kind = Array.isArray(value) ? "array" : ArrayBuffer.isView(value) ? "binary" : value instanceof Date ? "date" : "object";
  } catch {
    return UNREADABLE;
  }
  if (kind === "binary") return `[${(value as ArrayBufferView).byteLength} bytes of binary data]`;
  if (kind === "date") return copy(dateText(value as Date), depth, state);
  state.ancestors.add(value);
  try {
    return kind === "array" ? copyArray(value as unknown[], depth, state) : copyProperties(value, depth, state);
  } finally {
    state.ancestors.delete(value);
  }
}

function copyArray(value: unknown[], depth: number, state: WalkState): unknown[] {
  const length = read(() => value.length);
  if (typeof length !== "number") return [UNREADABLE];
  const out: unknown[] = [];
  for (let i = 0; i < length; i++) {
    if (state.nodes > state.limits.nodes) {
      out.push(`[… ${length - i} more items]`);
      break;
    }
    const item = copy(read(() => value[i]), depth + 1, state);
    out.push(item === undefined ? null : item);
  }
  return out;
}

function copyProperties(value: object, depth: number, state: WalkState): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const keys = read(() => Object.keys(value));
  if (!Array.isArray(keys)) return { "[unreadable]": UNREADABLE };
  for (let i = 0; i < keys.length; i++) {
    if (state.nodes > state.limits.nodes) {
      out["[…]"] = `${keys.length - i} more properties`;
      break;
    }
    const key = keys[i] as string;
    const item = copy(read(() => (value as Record<string, unknown>)[key]), depth + 1, state);
    if (item === undefined) continue;
    // A key named "__proto__" (JSON.parse makes such keys) must stay a key, not set the prototype.
    if (key === "__proto__") Object.defineProperty(out, key, { value: item, enumerable: true, writable: true, configurable: true });
    else out[key] = item;
  }
  return out;
}

/** The value a getter or trap gives, or a note when it throws. */
function read(get: () => unknown): unknown {
  try {
    return get();
  } catch {
    return UNREADABLE;
  }
}

function describeSymbol(value: symbol): string {
  try {
    return value.description ?? "";
  } catch {
    return "";
  }
}

function dateText(value: Date): string {
  try {
    return Number.isNaN(value.getTime()) ? "Invalid Date" : value.toISOString();
  } catch {
    return UNREADABLE;
  }
}

/**
 * A value as JSON for a message, cut to `max` characters (default 2,000): bounded in depth and size
 * whatever the value is, and never throwing.
 */
export function preview(value: unknown, max = 2_000): string {
  let text: string;
  try {
    text = JSON.stringify(snapshot(value, max === PREVIEW_LIMITS.string ? PREVIEW_LIMITS : { ...PREVIEW_LIMITS, string: max })) ?? "undefined";
  } catch {
    text = UNREADABLE;
  }
  return text.length > max ? `${text.slice(0, max)}… (${text.length - max} more characters)` : text;
}
