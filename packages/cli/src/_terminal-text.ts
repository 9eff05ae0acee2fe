/*
 * The one place text from anything untrusted passes before it reaches a terminal: tool names and
 * descriptions, tool output in progress lines and previews, a model's text, file contents in a
 * diff, error messages that quote input. A terminal acts on control characters: ESC starts
 * sequences that move the cursor, clear the screen, set the window title or a hyperlink (OSC, ended
 * by BEL); CR and backspace overwrite what was shown; C1 controls (U+0080–U+009F) are 8-bit ESC
 * sequences on terminals that take them; Unicode bidi overrides and isolates reorder what follows
 * so that a line reads other than it is. Each is shown escaped (`\x1B`, `\u202E`), so a person sees
 * that it was there; newline and tab stay. `--json` output is JSON, which escapes them already.
 */

/** C0 controls but tab and newline, DEL, C1 controls, bidi marks, embeddings, overrides and isolates, line/paragraph separators. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters it escapes.
const UNSAFE = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u061C\u200E\u200F\u2028\u2029\u202A-\u202E\u2066-\u2069]/g;

/** `text` with every character a terminal would act on (but newline and tab) written as an escape. */
export function terminalText(text: string): string {
  return text.replace(UNSAFE, escape);
}

/** `terminalText` on one line: newlines and tabs shown escaped too (a progress line, a one-line preview). */
export function terminalLine(text: string): string {
  return terminalText(text).replace(/\n/g, "\\n").replace(/\t/g, "\\t");
}

function escape(char: string): string {
  const code = char.charCodeAt(0);
  return code <= 0xff ? `\\x${code.toString(16).toUpperCase().padStart(2, "0")}` : `\\u${code.toString(16).toUpperCase().padStart(4, "0")}`;
}
