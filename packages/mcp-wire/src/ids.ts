/** A JSON-RPC id. */
export type MessageId = string | number;

/** What the kept ends of a message too long to read whole show of it. */
export interface CutMessage {
  /** Its top-level `id`, when its start or end shows one. */
  id: MessageId | undefined;
  /** Whether it names a `method` (a request or a notification). */
  hasMethod: boolean;
  /** Whether it has a top-level `result` or `error` (an answer). */
  isAnswer: boolean;
}

const TAIL_ID = /(^|[{,])\s*"id"\s*:\s*(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|"(?:[^"\\]|\\.)*")\s*\}\s*$/;

/**
 * Reads a JSON-RPC message of which only the first and last bytes were kept (it was too long to
 * read whole): its id among the first keys of the object, else as its last key (where the
 * TypeScript SDK writes it), and which kind of message its first keys show.
 */
export function readCut(head: string, tail: string): CutMessage {
  const keys = topLevelKeys(head);
  const id = keys.get("id") ?? idAtEnd(tail);
  return { id, hasMethod: keys.has("method"), isAnswer: keys.has("result") || keys.has("error") };
}

function idAtEnd(tail: string): MessageId | undefined {
  const match = TAIL_ID.exec(tail);
  return match?.[2] === undefined ? undefined : scalar(match[2]);
}

function scalar(text: string): MessageId | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "string" || (typeof value === "number" && Number.isFinite(value)) ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The top-level keys that `text` (the start of a JSON object) shows, each with its value when that
 * is a string or a number shown whole; a walk over strings and nesting, not a parse.
 */
function topLevelKeys(text: string): Map<string, MessageId | undefined> {
  const keys = new Map<string, MessageId | undefined>();
  let depth = 0;
  let expectKey = false;
  let lastKey: string | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      const end = stringEnd(text, i);
      if (end === -1) break;
      if (depth === 1 && expectKey) lastKey = text.slice(i + 1, end);
      expectKey = false;
      i = end;
    } else if (c === "{" || c === "[") {
      depth += 1;
      expectKey = depth === 1 && c === "{";
    } else if (c === "}" || c === "]") {
      depth -= 1;
    } else if (c === "," && depth === 1) {
      expectKey = true;
    } else if (c === ":" && depth === 1 && lastKey !== undefined) {
      keys.set(lastKey, valueAt(text, i + 1));
      lastKey = undefined;
    }
  }
  return keys;
}

function stringEnd(text: string, start: number): number {
  for (let i = start + 1; i < text.length; i++) {
    if (text[i] === "\\") i += 1;
    else if (text[i] === '"') return i;
  }
  return -1;
}

function valueAt(text: string, from: number): MessageId | undefined {
  const rest = text.slice(from, from + 256).trimStart();
  if (rest.startsWith('"')) {
    const end = stringEnd(rest, 0);
    return end === -1 ? undefined : scalar(rest.slice(0, end + 1));
  }
  const number = /^-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?(?=\s*[,}])/.exec(rest);
  return number ? scalar(number[0]) : undefined;
}
