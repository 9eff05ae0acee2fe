import type { Word, WordPart } from "unbash";

/**
 * A shell word as the policy sees it: its text after quote and escape removal when that is known
 * before the command runs, or `undefined` when an expansion, substitution or glob decides it.
 */
export interface ShellWord {
  /** The word as written. */
  readonly text: string;
  /** The word after quote removal, or undefined when only the running shell can know it. */
  readonly value: string | undefined;
  /** True when the word may become several words or none (an unquoted expansion, a glob, braces). */
  readonly splits: boolean;
  /** True when an unquoted `~` starts the word (tilde expansion applies). */
  readonly tilde: boolean;
  /** When only globs make the value unknown: the word with quotes removed and its globs as written (`/*`, `"$HOME"/*` as `/home/u/*`). */
  readonly pattern?: string;
}

export interface WordEnv {
  /** The home folder to put in for `$HOME` / `${HOME}`, or undefined when the script may change it. */
  home: string | undefined;
  /** Variables the script sets once, to a literal, before the word: `X=/; rm -rf "$X"` is `rm -rf /`. */
  vars?: Map<string, string>;
}

/** Evaluates a word without running anything. */
export function evalWord(word: Word, env: WordEnv): ShellWord {
  const parts = word.parts;
  if (parts === undefined || parts.length === 0) {
    return { text: word.text, value: word.value, splits: false, tilde: word.text.startsWith("~") };
  }
  let value = "";
  let dynamic = false;
  let splits = false;
  // Known but for its globs: the value with them as written.
  let onlyGlobs = true;
  for (const part of parts) {
    const piece = partValue(part, env);
    if (piece === undefined) {
      dynamic = true;
      onlyGlobs = false;
      if (part.type !== "DoubleQuoted" && part.type !== "LocaleString" && part.type !== "ProcessSubstitution") splits = true;
    } else {
      value += piece;
    }
    if (part.type === "Glob" || part.type === "ExtendedGlob" || part.type === "BraceExpansion") {
      dynamic = true;
      splits = true;
      if (part.type === "BraceExpansion") onlyGlobs = false;
    }
  }
  const first = parts[0] as WordPart;
  const tilde = first.type === "Literal" && first.text.startsWith("~");
  if (!dynamic) return { text: word.text, value, splits, tilde };
  return { text: word.text, value: undefined, splits, tilde, ...(onlyGlobs && { pattern: value }) };
}

function partValue(part: WordPart, env: WordEnv): string | undefined {
  switch (part.type) {
    case "Literal":
    case "SingleQuoted":
    case "AnsiCQuoted":
      return part.value;
    case "Glob":
    case "ExtendedGlob":
    case "BraceExpansion":
      return part.text;
    case "DoubleQuoted":
    case "LocaleString": {
      let value = "";
      for (const child of part.parts) {
        const piece = partValue(child, env);
        if (piece === undefined) return undefined;
        value += piece;
      }
      return value;
    }
    case "SimpleExpansion":
      return part.text === "$HOME" ? env.home : env.vars?.get(part.text.slice(1));
    case "ParameterExpansion":
      if (part.operation !== undefined || part.prefix !== undefined || part.index !== undefined) return undefined;
      return part.parameter === "HOME" ? env.home : env.vars?.get(part.parameter);
    default:
      return undefined;
  }
}

/** How a word shows in explanations: its value when known, else its text. */
export function showWord(word: ShellWord): string {
  if (word.value === undefined) return word.text;
  return /[\s'"\\$`]/.test(word.value) || word.value === "" ? JSON.stringify(word.value) : word.value;
}

/** A word made by the policy (xargs' input, find's `{}`): known only at run time. */
export function runtimeWord(text: string, splits: boolean): ShellWord {
  return { text, value: undefined, splits, tilde: false };
}
