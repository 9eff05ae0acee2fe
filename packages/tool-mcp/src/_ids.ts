/** A JSON-RPC id. */
export type MessageId = string | number;

const TAIL_ID = /(^|[{,])\s*"id"\s*:\s*(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|"(?:[^"\\]|\\.)*")\s*\}\s*$/;

/**
 * The top-level `id` of a JSON-RPC message of which only the first and last bytes were kept (it was
 * too long to read whole): looked for among the first keys of the object, then as its last key
 * (where the TypeScript SDK writes it). Undefined when neither shows one.
 */
export function idOfCut(head: string, tail: string): MessageId | undefined {
  return topLevelKey(head, "id") ?? idAtEnd(tail);
}

/** Whether the start of a cut message names a top-level `method` (a request or a notification). */
export function hasMethod(head: string): boolean {
  return topLevelKey(head, "method") !== undefined;
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
 * The value of a top-level key among the keys that `text` (the start of a JSON object) shows whole,
 * when it is a string or a number; a walk over strings and nesting, not a parse.
 */
function topLevelKey(text: string, key: string): MessageId | undefined {
  let depth = 0;
  let expectKey = false;
  let lastKey: string | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      const end = stringEnd(text, i);
      if (end === -1) return undefined;
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
      if (lastKey === key) return valueAt(text, i + 1);
      lastKey = undefined;
    }
  }
  return undefined;
}

function stringEnd(text: string, start: number): number {
  for (let i = start + 1; i < text.length; i++) {
    if (text[i] === "\\") i += 1;
    else if (text[i] === '"') return i;
  }
  return -1;
}

function valueAt(text: string, from: number): MessageId | undefined {
  const rest = text.slice(from).trimStart();
  if (rest.startsWith('"')) {
    const end = stringEnd(rest, 0);
    return end === -1 ? undefined : scalar(rest.slice(0, end + 1));
  }
  const number = /^-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?(?=\s*[,}])/.exec(rest);
  return number ? scalar(number[0]) : undefined;
}
