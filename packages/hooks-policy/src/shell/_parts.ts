import type { Command } from "unbash";
import type { Inventory } from "../inventory/_inventory.js";
import type { Effects, Touch } from "./_effect-types.js";
import type { ParsedArguments } from "./_options.js";
import type { ShellWord, WordEnv } from "./_words.js";

/*
 * What the shell analysis finds in a command line (its parts), and the analysis as the modules
 * that resolve wrappers, shells and builtins see it: they add parts and hand words back to it.
 */

/** A command longer than this is not parsed: the policy asks. */
export const MAX_COMMAND_LENGTH = 64 * 1024;
/** Scripts and command lists nested deeper than this are not looked into: the policy asks. */
export const MAX_NESTING = 32;
/** More simple commands, redirects and nested strings than this in one call: the policy asks. */
export const MAX_PARTS = 10_000;

/** A simple command the shell would run, after looking through wrappers. */
export interface ShellCommandPart {
  kind: "command";
  /** Why it is judged: a program an unknown program may run (`presumed`), a program a setting names. */
  via?: string;
  /** The program (first) and its arguments. The program's value is undefined when only known at run time. */
  words: ShellWord[];
  /** True when more arguments come at run time (xargs' input). */
  tail: boolean;
  /** Why this part is at least `ask` whatever the rules say. */
  uncertain?: string;
  /** How many `cd`s came before it (see `ParsedCommand.cds`). */
  cdCount: number;
  /** Its arguments read with the program's option table. */
  args?: ParsedArguments;
  /** Files it reads through its options (`dd if=`), trees it reads recursively (`grep -r`). */
  reads?: Touch[];
  trees?: Touch[];
  /** The code an interpreter runs from an argument or standard input (`python -c`). */
  inline?: string;
  /** The script file a shell reads (`bash x.sh`, `. x`). */
  script?: ShellWord;
  /** Inline code the policy read that only prints constants: the command reads only. */
  printsOnly?: string;
  /** xargs' input when it is the names a `find` before it prints: the trees those names are in, with find's filters (instead of any word at run time). */
  tailFrom?: Touch[];
  /** The PATH setting that put this program's folder among the folders names are looked up in (`PATH=bin:$PATH tsc` is judged as `bin/tsc` too). */
  searched?: string;
}

/** A file the command writes (`>`, `>>`, `tee`, `cp`'s target) or reads (`<`). */
export interface ShellFilePart {
  kind: "write" | "read";
  path: ShellWord;
  /** What makes it a write or read, for explanations: `>`, `tee`, … */
  via: string;
  cdCount: number;
  /** A write's text when the command line gives it literally (`printf '…' > f`, `cat > f <<'EOF'`); `append` for `>>`. */
  content?: string;
  append?: boolean;
  /** The index (in `parts`) of the command that writes or reads it, when known: its own command rules judge a write no path rule matches. */
  by?: number;
}

/** Something the policy cannot judge without running it: always at least `ask`. */
export interface ShellUnknownPart {
  kind: "unknown";
  subject: string;
  reason: string;
  /**
   * What it would exhaust: asked in a sandbox too, since a confinement does not bound the disk it
   * fills, and the processes it starts only when the sandbox limits them.
   */
  exhausts?: "processes" | "disk";
}

export type ShellPart = ShellCommandPart | ShellFilePart | ShellUnknownPart;

/** What a bash command line runs, reads and writes, as far as it can be known before it runs. */
export interface ParsedCommand {
  parts: ShellPart[];
  /** Folders given to `cd` / `pushd`, in order; relative paths after them may be relative to any. */
  cds: ShellWord[];
}

/**
 * One command line being analysed: where parts go, and how words are judged again (as a simple
 * command, or as text a shell parses). `level` counts the nesting of scripts in scripts.
 */
export interface Analysis {
  readonly cds: ShellWord[];
  readonly env: WordEnv;
  /** What is known of programs. */
  readonly inventory: Inventory;
  /** Whether a word names a program (the inventory knows it, or a rule names it): an unknown program's argument that does is judged as a command. */
  namesProgram(program: string): boolean;
  /** How many parts there are so far (for looking at what a step added). */
  readonly size: number;
  /** The parts from `start` on. */
  partsFrom(start: number): readonly ShellPart[];
  push(part: ShellPart): void;
  /** Where a path leads through a link this command made earlier (`ln -s /etc e; cd e`), else the path itself. */
  throughLinks(path: ShellWord): ShellWord;
  /** A part the policy cannot judge without running it. */
  unknown(subject: string, reason: string): void;
  /**
   * A setting judged by the program it is given to (`HOME=/tmp ls`, `PATH=bin:$PATH tsc`): `judge`
   * is called with the words of the next command resolved, or with none when the simple command
   * ends without one (`export PATH=…`: every later name).
   */
  whenCommand(judge: (words: readonly ShellWord[] | undefined) => void): void;
  /** Runs `step` when the whole command line has been read (what a setting means for every later command, after every later `cd`). */
  atEnd(step: () => void): void;
  /** Judges `words` as a simple command, looking through wrappers, shells and eval. */
  resolve(words: ShellWord[], tail: boolean, level: number, node: Command | undefined, uncertain: string | undefined): void;
  /** Parses literal words again as a script (eval, -c strings); a word known only at run time is unknown. */
  reparse(words: ShellWord[], level: number, what: string): void;
  /** Parses text as a script, `level` deep. */
  parseScript(text: string, level: number, what: string): void;
  /** Adds a simple command with its effects (the files it touches, the commands it runs itself). */
  pushCommand(words: ShellWord[], tail: boolean, uncertain: string | undefined, args: ParsedArguments, effects: Effects, level: number, script?: ShellWord): void;
}

/** The program a word names: its last path segment. */
export function basename(path: string): string {
  const slash = path.lastIndexOf("/");
  return slash === -1 ? path : path.slice(slash + 1);
}

/** A subject short enough for an explanation. */
export function clip(text: string): string {
  return text.length > 200 ? `${text.slice(0, 197)}...` : text;
}

/** A word as the sh of `su` / `runuser` would be named. */
export const SH_WORD: ShellWord = { text: "sh", value: "sh", splits: false, tilde: false };
