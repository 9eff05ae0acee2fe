import type { Command, Redirection } from "unbash";
import { type ForeignShellSpec, SHELL_VALUE_OPTIONS } from "../inventory/_runners.js";
import { parseArguments } from "./_options.js";
import { type Analysis, basename, clip } from "./_parts.js";
import { evalWord, type ShellWord, showWord, type WordEnv } from "./_words.js";

/** How a shell was started: `-c` (a command string), `-s` (standard input), where its operands start. */
interface ShellStart {
  commandMode: boolean;
  stdinMode: boolean;
  index: number;
  /** An option word known only at run time. */
  unknown?: string;
}

function readShellOptions(words: ShellWord[]): ShellStart {
  const start: ShellStart = { commandMode: false, stdinMode: false, index: 1 };
  while (start.index < words.length) {
    const word = words[start.index] as ShellWord;
    // After `-c`, a word known only at run time is the command string: judged as such.
    if (word.value === undefined && start.commandMode) break;
    if (word.value === undefined) {
      start.unknown = word.text;
      break;
    }
    const value = word.value;
    if (value === "--" || value === "-") {
      start.index += 1;
      break;
    }
    if (!/^[-+]./.test(value)) break;
    if (SHELL_VALUE_OPTIONS.has(value)) {
      start.index += 2;
      continue;
    }
    if (!value.startsWith("--")) {
      if (value.slice(1).includes("c")) start.commandMode = true;
      if (value.slice(1).includes("s")) start.stdinMode = true;
      if (/[oO]$/.test(value)) start.index += 1;
    }
    start.index += 1;
  }
  return start;
}

/**
 * A shell (`sh`, `bash -c`, …): its `-c` string and a literal here-document are parsed again; a
 * script file is judged as the shell command itself (its content is not read); standard input
 * that is known only at run time is unknown.
 */
export function resolveShell(analysis: Analysis, words: ShellWord[], tail: boolean, level: number, node: Command | undefined, uncertain: string | undefined): void {
  const { commandMode, stdinMode, index, unknown } = readShellOptions(words);
  const shown = words.map(showWord).join(" ");
  if (unknown !== undefined) {
    analysis.push({ kind: "command", words, tail, uncertain: uncertain ?? "a shell whose options are known only at run time", cdCount: analysis.cds.length });
    return;
  }
  if (commandMode) {
    const script = words[index];
    if (!script) return analysis.unknown(shown, "a shell's -c without a command string");
    if (uncertain) analysis.unknown(shown, uncertain);
    analysis.reparse([script], level, "a shell's -c string");
    return;
  }
  if (!stdinMode && index < words.length) {
    const program = basename(words[0]?.value ?? "sh");
    analysis.pushCommand(words, tail, uncertain, parseArguments(program, words.slice(1)), { writes: [], reads: [], trees: [] }, level, words[index]);
    return;
  }
  const input = node ? literalInput(node.redirects, analysis.env) : undefined;
  if (input === undefined) {
    analysis.unknown(shown, "a shell reads its script from standard input (a pipe, file or heredoc), which is known only at run time");
    return;
  }
  if (uncertain) analysis.unknown(shown, uncertain);
  analysis.parseScript(input, level + 1, "a shell's input");
}

/** The text a literal heredoc or here-string gives a command's standard input, or undefined. */
export function literalInput(redirects: readonly Redirection[], env: WordEnv): string | undefined {
  let input: string | undefined;
  for (const redirect of redirects) {
    const fd = redirect.descriptor?.type === "FileDescriptor" ? redirect.descriptor.value : 0;
    if (fd !== 0) continue;
    if (redirect.type === "HereString") {
      input = redirect.target ? evalWord(redirect.target, env).value : undefined;
      if (input === undefined) return undefined;
    } else if (redirect.type === "HereDoc") {
      const body = redirect.body;
      const dynamic = !redirect.delimiter?.quoted && (body.parts ?? []).some((part) => part.type !== "Literal");
      if (dynamic) return undefined;
      input = body.text;
    } else if (redirect.operator === "<" || redirect.operator === "<&" || redirect.operator === "<>") {
      return undefined;
    }
  }
  return input;
}

/**
 * The text a command prints when the command line gives it literally: `printf` of a format with
 * only `%s` and `%%` (and its arguments), `echo` (`-n`, `-e`), `cat` of a literal heredoc or
 * here-string; undefined otherwise. What a write of it holds (`printf '…' > Makefile`).
 */
export function literalOutput(words: readonly ShellWord[], node: { redirects: readonly Redirection[] }, env: WordEnv): string | undefined {
  const values = words.map((word) => word.value);
  if (values.some((value) => value === undefined)) return undefined;
  const [program, ...rest] = values as string[];
  if (program === "printf" && rest.length > 0 && rest[0] !== "-v" && rest[0] !== "--") return printfText(rest[0] as string, rest.slice(1));
  if (program === "echo") {
    let escapes = false;
    let newline = true;
    let i = 0;
    for (; i < rest.length && /^-[neE]+$/.test(rest[i] as string); i++) {
      const flags = rest[i] as string;
      if (flags.includes("n")) newline = false;
      if (flags.includes("e")) escapes = true;
      if (flags.includes("E")) escapes = false;
    }
    const text = rest.slice(i).join(" ");
    const shown = escapes ? unescaped(text) : text;
    return shown === undefined ? undefined : `${shown}${newline ? "\n" : ""}`;
  }
  if (program === "cat" && rest.length === 0) return literalInput(node.redirects, env);
  return undefined;
}

/** printf's output for a format whose directives are only `%s` and `%%`, repeated while arguments remain, as bash does. */
function printfText(format: string, args: readonly string[]): string | undefined {
  const pieces = format.split(/(%%|%s)/);
  if (pieces.some((piece, i) => i % 2 === 0 && piece.includes("%"))) return undefined;
  const directives = pieces.filter((piece) => piece === "%s").length;
  let out = "";
  let at = 0;
  do {
    for (const [i, piece] of pieces.entries()) {
      if (i % 2 === 0) {
        const text = unescaped(piece);
        if (text === undefined) return undefined;
        out += text;
      } else out += piece === "%%" ? "%" : (args[at++] ?? "");
    }
  } while (directives > 0 && at < args.length);
  return out;
}

/** The escapes of printf's format and `echo -e`: `\n`, `\t`, `\\` and the quotes; undefined for others (octal, `\c`, …). */
function unescaped(text: string): string | undefined {
  let unknown = false;
  const out = text.replace(/\\(.)/gs, (_, char: string) => {
    const known: Record<string, string> = { n: "\n", t: "\t", "\\": "\\", '"': '"', "'": "'", r: "\r", a: "\u0007", v: "\v", f: "\f", b: "\b", e: "\u001b" };
    const value = known[char];
    if (value === undefined) unknown = true;
    return value ?? "";
  });
  return unknown ? undefined : out;
}

/** What a call of a shell of another language gives it to run. */
interface ForeignStart {
  code?: string;
  encoded?: string;
  script?: ShellWord;
  /** An option or code word known only at run time. */
  runtime?: string;
  /** Only `--version` / `--help`: it runs no code. */
  asks: boolean;
}

const ABOUT = /^--?(version|help|h|\?)$/i;

function readForeignOptions(words: ShellWord[], spec: ForeignShellSpec): ForeignStart {
  const start: ForeignStart = { asks: true };
  for (let i = 1; i < words.length; i++) {
    const word = words[i] as ShellWord;
    if (word.value === undefined) return { ...start, runtime: word.text };
    const raw = word.value;
    const spelled = spec.slash && raw.startsWith("/") ? `-${raw.slice(1)}` : spec.caseless && raw.startsWith("--") ? raw.slice(1) : raw;
    const option = spec.caseless ? spelled.toLowerCase() : spelled;
    const joined = (from: number): string | undefined => {
      const rest = words.slice(from);
      return rest.some((each) => each.value === undefined) ? undefined : rest.map((each) => each.value).join(" ");
    };
    // Joined flags (`tcsh -fc CMD`): the last one may take the code.
    const joinedCode = !spec.caseless && /^-[A-Za-z]{2,}$/.test(option) && spec.code.includes(`-${option.slice(-1)}`);
    if (spec.code.includes(option) || joinedCode) {
      const next = words[i + 1];
      if (next?.value === undefined) return { ...start, runtime: next?.text ?? "(nothing)" };
      return { ...start, code: next.value };
    }
    if (spec.rest?.includes(option)) {
      const code = joined(i + 1);
      return code === undefined ? { ...start, runtime: words.slice(i + 1).map((each) => each.text).join(" ") } : { ...start, code };
    }
    if (spec.encoded?.includes(option)) return { ...start, encoded: words[i + 1]?.text ?? "" };
    if (spec.file?.includes(option)) return words[i + 1] ? { ...start, script: words[i + 1] as ShellWord } : start;
    if (spec.values?.includes(option)) {
      i += 1;
      continue;
    }
    if (option === "--" || option === "-") continue;
    if (option.startsWith("-")) {
      if (!ABOUT.test(option)) start.asks = true;
      else start.asks = false;
      continue;
    }
    if (spec.operandIsCode) {
      const code = joined(i);
      return code === undefined ? { ...start, runtime: words.slice(i).map((each) => each.text).join(" ") } : { ...start, code };
    }
    return { ...start, script: word };
  }
  return start;
}

/**
 * A shell of another language (`tcsh -c`, `pwsh -Command`, `nu -c`, `cmd /c`): the policy does not
 * parse its code, so the shell's part is at least ask; the code is also read as bash, so that a rule
 * denying a program it names still denies. A script it runs is one the policy cannot read; standard
 * input is code known only at run time unless a literal heredoc or here-string gives it.
 */
export function resolveForeignShell(analysis: Analysis, program: string, spec: ForeignShellSpec, words: ShellWord[], tail: boolean, level: number, node: Command | undefined, uncertain: string | undefined): void {
  const found = readForeignOptions(words, spec);
  const shown = words.map(showWord).join(" ");
  const args = parseArguments(program, words.slice(1));
  const none = { writes: [], reads: [], trees: [] };
  const cannot = `${program}'s language is not bash's, so the policy cannot read what it runs`;
  if (found.runtime !== undefined) {
    analysis.pushCommand(words, tail, uncertain ?? `${program} runs ${found.runtime}, known only at run time: ${cannot}`, args, none, level);
    return;
  }
  if (found.encoded !== undefined) {
    analysis.pushCommand(words, tail, uncertain ?? `${program} runs code given encoded (${clip(found.encoded)}), which the policy does not read`, args, none, level);
    return;
  }
  if (found.script !== undefined) {
    analysis.pushCommand(words, tail, uncertain, args, none, level, found.script);
    return;
  }
  const input = found.code ?? (node ? literalInput(node.redirects, analysis.env) : undefined);
  if (input === undefined) {
    if (!found.asks && words.length > 1) return analysis.pushCommand(words, tail, uncertain, args, none, level);
    analysis.pushCommand(words, tail, uncertain ?? `${program} reads its commands from standard input, known only at run time: ${cannot}`, args, none, level);
    return;
  }
  analysis.pushCommand(words, tail, uncertain ?? `${program} runs \`${clip(input)}\`: ${cannot}`, args, none, level);
  analysis.parseScript(input, level + 1, `${program}'s code, read as bash`);
}
