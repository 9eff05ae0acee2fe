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
}

export interface WordEnv {
  /** The home folder to put in for `$HOME` / `${HOME}`, or undefined when the script may change it. */
  home: string | undefined;
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
  for (const part of parts) {
    const piece = partValue(part, env);
    if (piece === undefined) {
      dynamic = true;
      if (part.type !== "DoubleQuoted" && part.type !== "LocaleString" && part.type !== "ProcessSubstitution") splits = true;
    } else {
      value += piece;
    }
    if (part.type === "Glob" || part.type === "ExtendedGlob" || part.type === "BraceExpansion") {
      dynamic = true;
      splits = true;
    }
  }
  const first = parts[0] as WordPart;
  const tilde = first.type === "Literal" && first.text.startsWith("~");
  return { text: word.text, value: dynamic ? undefined : value, splits, tilde };
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
      return part.text === "$HOME" ? env.home : undefined;
    case "ParameterExpansion":
      return part.parameter === "HOME" && part.operation === undefined && part.prefix === undefined && part.index === undefined
        ? env.home
        : undefined;
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
