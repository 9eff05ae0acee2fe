/*
 * What a sed script does besides editing its input, read before it runs: the `e` command and the
 * `e` flag of `s` run commands; `w` / `W` and the `w` flag write files; `r` / `R` read files.
 * (GNU sed's `--sandbox` refuses all of them.) A script that cannot be read is said so.
 */

/** What a sed script runs, writes and reads. */
export interface SedScript {
  /** Commands it runs (`e COMMAND`). */
  runs: string[];
  /** True when it runs its pattern space as a command (`e` alone, `s///e`): known only at run time. */
  executes: boolean;
  writes: string[];
  reads: string[];
  /** Why the script could not be read, when it could not. */
  unreadable?: string;
}

/** Commands followed by text to the end of the line. */
const TEXT_COMMANDS = new Set(["a", "i", "c"]);
/** Commands followed by a label (to `;` or the end of the line). */
const LABEL_COMMANDS = new Set(["b", "t", "T", ":"]);
/** Commands followed by a file name to the end of the line. */
const FILE_COMMANDS: Record<string, "writes" | "reads"> = { w: "writes", W: "writes", r: "reads", R: "reads" };
/** Commands with no argument, or an optional number. */
const PLAIN_COMMANDS = new Set(["=", "d", "D", "F", "g", "G", "h", "H", "l", "L", "n", "N", "p", "P", "q", "Q", "x", "z"]);

/** Reads a sed script. */
export function readSed(script: string): SedScript {
  const out: SedScript = { runs: [], executes: false, writes: [], reads: [] };
  try {
    let at = 0;
    while (at < script.length) at = command(script, at, out);
  } catch (error) {
    out.unreadable = (error as Error).message;
  }
  return out;
}

/** Reads one command from `at`; returns where the next one starts. */
function command(script: string, start: number, out: SedScript): number {
  let at = skipSpace(script, start, true);
  if (at >= script.length) return at;
  if (script[at] === "#") return lineEnd(script, at) + 1;
  at = address(script, at);
  at = skipSpace(script, at, false);
  if (script[at] === ",") at = skipSpace(script, address(script, skipSpace(script, at + 1, false)), false);
  while (script[at] === "!" || script[at] === " ") at += 1;
  const letter = script[at] as string | undefined;
  if (letter === undefined) return at;
  at += 1;
  // A block: its commands follow at once (`/x/{p;d}`).
  if (letter === "{" || letter === "}") return at;
  if (letter === "s") return endOfCommand(script, substitute(script, at, out));
  if (letter === "y") return endOfCommand(script, delimited(script, at, 3));
  if (letter === "e") {
    const end = lineEnd(script, at);
    const text = script.slice(at, end).trim();
    if (text === "") out.executes = true;
    else out.runs.push(text);
    return end + 1;
  }
  const file = FILE_COMMANDS[letter];
  if (file) {
    const end = lineEnd(script, at);
    out[file].push(script.slice(at, end).trim());
    return end + 1;
  }
  if (TEXT_COMMANDS.has(letter)) return lineEnd(script, at) + 1;
  if (LABEL_COMMANDS.has(letter)) return labelEnd(script, at);
  if (PLAIN_COMMANDS.has(letter) || letter === "v") {
    while (at < script.length && /[0-9 ]/.test(script[at] as string)) at += 1;
    return endOfCommand(script, at);
  }
  throw new Error(`"${letter}" is not a sed command the policy knows`);
}

/** `s/re/replacement/flags`: the `e` flag runs the result, `w FILE` writes it. */
function substitute(script: string, at: number, out: SedScript): number {
  let end = delimited(script, at, 3);
  while (end < script.length && !/[;\n}]/.test(script[end] as string)) {
    const flag = script[end] as string;
    if (flag === "e") out.executes = true;
    if (flag === "w") {
      const line = lineEnd(script, end + 1);
      out.writes.push(script.slice(end + 1, line).trim());
      return line;
    }
    if (!/[gpiImMe0-9 ]/.test(flag)) throw new Error(`"${flag}" is not a flag of s the policy knows`);
    end += 1;
  }
  return end;
}

/** Past `count` parts separated by the delimiter at `at` (escapes honoured). */
function delimited(script: string, at: number, count: number): number {
  const delimiter = script[at];
  if (delimiter === undefined || delimiter === "\n" || delimiter === "\\") throw new Error("a delimiter is missing");
  let i = at + 1;
  let seen = 0;
  while (i < script.length) {
    const char = script[i] as string;
    if (char === "\\") i += 2;
    else {
      if (char === delimiter) seen += 1;
      i += 1;
      if (seen === count - 1) return i;
    }
  }
  throw new Error("a part of the command is not closed");
}

/** An address: a line number, `$`, `/regex/`, `\cregexc`, `first~step`, followed by flags `I` / `M`. */
function address(script: string, at: number): number {
  const char = script[at];
  if (char === "/") at = delimited(script, at, 2);
  else if (char === "\\") at = delimited(script, at + 1, 2);
  else if (char === "$") at += 1;
  else while (at < script.length && /[0-9~+]/.test(script[at] as string)) at += 1;
  while (script[at] === "I" || script[at] === "M") at += 1;
  return at;
}

function endOfCommand(script: string, at: number): number {
  const i = skipSpace(script, at, false);
  if (i >= script.length) return i;
  if (script[i] === ";" || script[i] === "\n") return i + 1;
  if (script[i] === "}" || script[i] === "#") return i;
  // `xp`: GNU sed refuses a command right after another (and runs nothing); a sed that accepts it runs both, so the rest is read as commands.
  if (/[A-Za-z=:{]/.test(script[i] as string)) return i;
  throw new Error(`unexpected "${script[i]}"`);
}

function labelEnd(script: string, at: number): number {
  let i = at;
  while (i < script.length && script[i] !== ";" && script[i] !== "\n") i += 1;
  return i + 1;
}

function lineEnd(script: string, at: number): number {
  const end = script.indexOf("\n", at);
  return end === -1 ? script.length : end;
}

function skipSpace(script: string, at: number, newlines: boolean): number {
  let i = at;
  while (i < script.length && (script[i] === " " || script[i] === "\t" || (newlines && (script[i] === "\n" || script[i] === ";")))) i += 1;
  return i;
}
