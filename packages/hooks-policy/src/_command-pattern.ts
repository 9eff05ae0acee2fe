import { matchesEverything, wordGlob } from "./_glob.js";
import type { ShellWord } from "./_words.js";

/** `yes`: matches whatever the run-time words turn out to be; `maybe`: matches for some of them. */
export type Match = "yes" | "maybe" | "no";

type Element = { kind: "word"; exact: RegExp } | { kind: "one" } | { kind: "many" };

/**
 * A command pattern, word by word: the first word is the program (a glob on its name, directory
 * dropped), then one element per argument. `rm` alone matches the program with any arguments;
 * `git status` exactly those words; a last `*` any further arguments (none included); a `*` in the
 * middle exactly one argument; `**` anywhere any number of arguments (none included). Within a
 * word, `*` and `?` are globs over any characters and `\` escapes.
 */
export class CommandPattern {
  readonly program: string | undefined;
  readonly #programGlob: RegExp | undefined;
  readonly #elements: Element[];

  constructor(readonly source: string) {
    const words = source.trim().split(/\s+/);
    const first = words[0] as string;
    const name = first.slice(first.lastIndexOf("/") + 1);
    this.#programGlob = matchesEverything(name) ? undefined : wordGlob(name);
    this.program = /[*?\\]/.test(name) ? undefined : name;
    const rest = words.slice(1);
    this.#elements =
      rest.length === 0
        ? [{ kind: "many" }]
        : rest.map((word, index) =>
            word === "**" || (word === "*" && index === rest.length - 1)
              ? { kind: "many" }
              : word === "*"
                ? { kind: "one" }
                : { kind: "word", exact: wordGlob(word) },
          );
  }

  /** Matches a simple command. `tail`: more arguments come at run time (xargs). */
  match(words: readonly ShellWord[], tail: boolean): Match {
    const name = words[0];
    if (!name) return "no";
    let program: Match = "yes";
    if (this.#programGlob) {
      if (name.value === undefined) program = "maybe";
      else if (!this.#programGlob.test(name.value.slice(name.value.lastIndexOf("/") + 1))) return "no";
    }
    const args = words.slice(1);
    if (tail) args.push({ text: "…", value: undefined, splits: true, tilde: false });
    if (this.#run(args, true)) return program;
    return this.#run(args, false) ? "maybe" : "no";
  }

  /** Runs the pattern over the arguments as a set of states; `sure`: only what holds for any run-time value. */
  #run(args: readonly ShellWord[], sure: boolean): boolean {
    const elements = this.#elements;
    const size = elements.length;
    let states = this.#close(new Set([0]));
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
      states = this.#close(next);
      if (states.size === 0) return false;
    }
    return states.has(size);
  }

  #close(states: Set<number>): Set<number> {
    const elements = this.#elements;
    for (const state of states) {
      if (elements[state]?.kind === "many") states.add(state + 1);
    }
    return states;
  }
}
