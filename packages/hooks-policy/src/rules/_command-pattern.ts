import { matchesEverything, wordGlob } from "./_glob.js";
import { type ParsedArguments, parseArguments } from "../shell/_options.js";
import type { ShellWord } from "../shell/_words.js";

/** `yes`: matches whatever the run-time words turn out to be; `maybe`: matches for some of them. */
export type Match = "yes" | "maybe" | "no";

export type Element = { kind: "word"; exact: RegExp } | { kind: "one" } | { kind: "many" };

interface Compiled {
  /** Options that must be present, by name, with a glob on the value when the pattern gives one. */
  options: Array<{ name: string; value: RegExp | undefined }>;
  names: Set<string>;
  elements: Element[];
  /** The elements are `**` alone: any operands match, whatever they are at run time. */
  anyOperands: boolean;
}

/**
 * A command pattern: the first word is the program (a glob on its name, directory dropped); the
 * words starting with `-` are options that must be present, in any spelling the program's option
 * table knows (`rm -rf *` matches `rm -r -f x`, `rm --force x --recursive`); the other words are
 * matched against the command's operands in order. `rm` alone matches the program with any
 * arguments; `git status` exactly those operands; a last `*` any further operands (none included);
 * a `*` in the middle exactly one operand; `**` any number of operands (none included); a pattern
 * that ends with an option (`git push --force`) any further operands. Within a word, `*` and `?`
 * are globs over any characters and `\` escapes. A pattern that ends with an operand, when it
 * allows, allows no option it does not name (`git status` does not allow `git status --output=x`).
 */
export class CommandPattern {
  readonly program: string | undefined;
  readonly #programGlob: RegExp | undefined;
  readonly #words: ShellWord[];
  readonly #open: boolean;
  readonly #byProgram = new Map<string, Compiled>();
  /** True when an operand of the pattern is a literal word (the pattern names a file, a subcommand). */
  readonly namesOperand: boolean;

  constructor(readonly source: string) {
    const words = source.trim().split(/\s+/);
    const first = words[0] as string;
    const name = first.slice(first.lastIndexOf("/") + 1);
    this.#programGlob = matchesEverything(name) ? undefined : wordGlob(name);
    this.program = /[*?\\]/.test(name) ? undefined : name;
    const rest = words.slice(1);
    this.#words = rest.map((word) => ({ text: word, value: word, splits: false, tilde: false }));
    const last = rest[rest.length - 1];
    this.#open = last === undefined || last === "*" || last === "**" || last.startsWith("-");
    this.namesOperand = rest.some((word) => !word.startsWith("-") && !/^\*+$/.test(word));
  }

  #compiled(program: string): Compiled {
    let found = this.#byProgram.get(program);
    if (found) return found;
    const parsed = parseArguments(program, this.#words);
    const words = withSeparator(parsed);
    const count = words.length;
    found = {
      anyOperands: false,
      options: parsed.options.map((option) => ({
        name: option.name,
        value: option.value?.value === undefined || matchesEverything(option.value.value) ? undefined : wordGlob(option.value.value),
      })),
      names: new Set(parsed.options.map((option) => option.name)),
      elements:
        count === 0 && this.#words.length === 0
          ? [{ kind: "many" }]
          : words.map((word, index): Element => {
              const text = word.value as string;
              if (text === "**" || (text === "*" && index === count - 1)) return { kind: "many" };
              return text === "*" ? { kind: "one" } : { kind: "word", exact: wordGlob(text) };
            }),
    };
    if (this.#open && found.elements[found.elements.length - 1]?.kind !== "many") found.elements.push({ kind: "many" });
    found.anyOperands = found.elements.length === 1 && found.elements[0]?.kind === "many";
    this.#byProgram.set(program, found);
    return found;
  }

  /**
   * Matches a simple command. `tail`: more arguments come at run time (xargs). `strict`: extra
   * options not named by the pattern make it not match (for allow rules without a trailing `*`).
   * `parsed`: the command's arguments already read with its program's table.
   */
  match(words: readonly ShellWord[], tail: boolean, strict = false, parsed?: ParsedArguments): Match {
    const name = words[0];
    if (!name) return "no";
    let result: Match = "yes";
    let program = "";
    if (name.value === undefined) {
      if (this.#programGlob) result = "maybe";
    } else {
      program = name.value.slice(name.value.lastIndexOf("/") + 1);
      if (this.#programGlob && !this.#programGlob.test(program)) return "no";
    }
    const args = parsed ?? parseArguments(program, words.slice(1));
    const compiled = this.#compiled(this.program ?? program);
    const dynamic = args.dynamic || tail;
    for (const wanted of compiled.options) {
      let best: Match = dynamic ? "maybe" : "no";
      for (const option of args.options) {
        if (option.name !== wanted.name) continue;
        if (!wanted.value) best = "yes";
        else if (option.value?.value === undefined) best = "maybe";
        else if (wanted.value.test(option.value.value)) best = "yes";
        if (best === "yes") break;
      }
      if (best === "no") return "no";
      if (best === "maybe") result = "maybe";
    }
    if (strict && !this.#open && args.options.some((option) => !compiled.names.has(option.name))) return "no";
    if (compiled.anyOperands) return result;
    const operands = withSeparator(args);
    if (tail) operands.push({ text: "…", value: undefined, splits: true, tilde: false });
    if (run(compiled.elements, operands, true)) return result;
    return run(compiled.elements, operands, false) ? "maybe" : "no";
  }
}

const SEPARATOR: ShellWord = { text: "--", value: "--", splits: false, tilde: false };

/** The operands with `--` where it ended the options, so a pattern can say `git checkout -- **`. */
function withSeparator(args: ParsedArguments): ShellWord[] {
  const operands = [...args.operands];
  if (args.separator !== undefined) operands.splice(args.separator, 0, SEPARATOR);
  return operands;
}

/** Runs the elements over the operands as a set of states; `sure`: only what holds for any run-time value. */
function run(elements: Element[], args: readonly ShellWord[], sure: boolean): boolean {
  return elements.length < 30 ? runBits(elements, args, sure) : runSets(elements, args, sure);
}

/**
 * `runSets` with the states as the bits of a number (a pattern has a few words, never 30): every
 * rule of a program is run over every command's operands, and a set per operand was most of it.
 */
export function runBits(elements: Element[], args: readonly ShellWord[], sure: boolean): boolean {
  const size = elements.length;
  let states = closeBits(elements, 1);
  for (const arg of args) {
    let next = 0;
    for (let state = 0; state <= size; state++) {
      if ((states & (1 << state)) === 0) continue;
      if (state === size) {
        if (!sure && arg.value === undefined && arg.splits) next |= 1 << state;
        continue;
      }
      const element = elements[state] as Element;
      if (element.kind === "many") {
        next |= 1 << state;
        continue;
      }
      if (arg.value === undefined) {
        if (sure) {
          if (element.kind === "one" && !arg.splits) next |= 1 << (state + 1);
        } else if (arg.splits) {
          for (let s = state; s <= size; s++) next |= 1 << s;
        } else {
          next |= 1 << (state + 1);
        }
        continue;
      }
      if (element.kind === "one" || element.exact.test(arg.value)) next |= 1 << (state + 1);
    }
    states = closeBits(elements, next);
    if (states === 0) return false;
  }
  return (states & (1 << size)) !== 0;
}

function closeBits(elements: Element[], states: number): number {
  let closed = states;
  for (let state = 0; state < elements.length; state++) {
    if ((closed & (1 << state)) !== 0 && (elements[state] as Element).kind === "many") closed |= 1 << (state + 1);
  }
  return closed;
}

/** The states of a run as a set, for a pattern of any length. */
export function runSets(elements: Element[], args: readonly ShellWord[], sure: boolean): boolean {
  const size = elements.length;
  let states = close(elements, new Set([0]));
  for (const arg of args) {
    const next = new Set<number>();
    for (const state of states) {
      if (state === size) {
        if (!sure && arg.value === undefined && arg.splits) next.add(state);
        continue;
      }
      const element = elements[state] as Element;
      if (element.kind === "many") {
        next.add(state);
        continue;
      }
      if (arg.value === undefined) {
        if (sure) {
          if (element.kind === "one" && !arg.splits) next.add(state + 1);
        } else if (arg.splits) {
          for (let s = state; s <= size; s++) next.add(s);
        } else {
          next.add(state + 1);
        }
        continue;
      }
      if (element.kind === "one" || element.exact.test(arg.value)) next.add(state + 1);
    }
    states = close(elements, next);
    if (states.size === 0) return false;
  }
  return states.has(size);
}

function close(elements: Element[], states: Set<number>): Set<number> {
  for (const state of states) {
    if (elements[state]?.kind === "many") states.add(state + 1);
  }
  return states;
}
