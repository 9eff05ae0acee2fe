/**
 * Redaction as edits: every pattern is matched against the text as it came, and the text is
 * rebuilt once. Rebuilding a 1 MB text after each pattern, as chained `replace` calls do, cost
 * more than all the matching (`bench/redact`).
 */

/** Replace `text.slice(start, end)` with `replacement`. */
export interface Edit {
  start: number;
  end: number;
  replacement: string;
}

/** Finds what a pattern masks in a text and adds the edits. */
export type Redaction = (text: string, edits: Edit[]) => void;

/**
 * One edit per match of a global regex. `edit` returns the part to replace (by default the whole
 * match): `skip` characters from the match's start, and the replacement.
 */
export function eachMatch(regex: RegExp, edit: (match: RegExpExecArray) => { skip?: number; replacement: string } | undefined): Redaction {
  return (text, edits) => {
    regex.lastIndex = 0;
    for (let match = regex.exec(text); match !== null; match = regex.exec(text)) {
      if (match[0] === "") {
        regex.lastIndex += 1;
        continue;
      }
      const made = edit(match);
      if (made) edits.push({ start: match.index + (made.skip ?? 0), end: match.index + match[0].length, replacement: made.replacement });
    }
  };
}

/**
 * The text with the edits made. Where edits overlap, the first (then the longest) wins and the
 * part of a later one that reaches past it is masked too, so an overlap never lets text through.
 */
export function applyEdits(text: string, edits: Edit[]): string {
  if (edits.length === 0) return text;
  edits.sort((a, b) => a.start - b.start || b.end - a.end);
  const parts: string[] = [];
  let done = 0;
  for (const { start, end, replacement } of edits) {
    if (start >= done) {
      parts.push(text.slice(done, start), replacement);
      done = end;
    } else if (end > done) {
      parts.push("[redacted]");
      done = end;
    }
  }
  parts.push(text.slice(done));
  return parts.join("");
}

/** A `String.prototype.replace` replacement for one match: `$$`, `$&`, `$1`…`$99`, `$<name>`. */
export function expand(replacement: string, match: RegExpExecArray): string {
  if (!replacement.includes("$")) return replacement;
  return replacement.replace(/\$(\$|&|\d{1,2}|<([^>]*)>)/g, (token: string, what: string, name: string | undefined) => {
    if (what === "$") return "$";
    if (what === "&") return match[0];
    if (name !== undefined) return match.groups ? (match.groups[name] ?? "") : token;
    let index = Number(what);
    if (index >= match.length && what.length === 2) {
      index = Number(what[0]);
      return index > 0 && index < match.length ? (match[index] ?? "") + what[1] : token;
    }
    return index > 0 && index < match.length ? (match[index] ?? "") : token;
  });
}
