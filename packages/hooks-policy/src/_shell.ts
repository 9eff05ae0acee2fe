import { homedir } from "node:os";
import { type Assignment, type Command, forEachChild, parse, type Redirection, type SyntaxNode, type Word } from "unbash";
import { type Effects, effectsOf, type Touch } from "./_effects.js";
import { type ParsedArguments, parseArguments } from "./_options.js";
import { runtimeWord, type ShellWord, showWord, evalWord, type WordEnv } from "./_words.js";
import { DANGEROUS_VARIABLES, SHELL_VALUE_OPTIONS, SHELLS, WRAPPERS, type WrapperSpec } from "./_wrappers.js";

/** A command longer than this is not parsed: the policy asks. */
export const MAX_COMMAND_LENGTH = 64 * 1024;
/** Scripts and command lists nested deeper than this are not looked into: the policy asks. */
export const MAX_NESTING = 32;
/** More simple commands, redirects and nested strings than this in one call: the policy asks. */
export const MAX_PARTS = 10_000;
const MAX_NODE_DEPTH = 1_000;
const MAX_ALTERNATIVES = 8;

/** A simple command the shell would run, after looking through wrappers. */
export interface ShellCommandPart {
  kind: "command";
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
}

/** A file the command writes (`>`, `>>`, `tee`, `cp`'s target) or reads (`<`). */
export interface ShellFilePart {
  kind: "write" | "read";
  path: ShellWord;
  /** What makes it a write or read, for explanations: `>`, `tee`, … */
  via: string;
  cdCount: number;
}

/** Something the policy cannot judge without running it: always at least `ask`. */
export interface ShellUnknownPart {
  kind: "unknown";
  subject: string;
  reason: string;
}

export type ShellPart = ShellCommandPart | ShellFilePart | ShellUnknownPart;

/** What a bash command line runs, reads and writes, as far as it can be known before it runs. */
export interface ParsedCommand {
  parts: ShellPart[];
  /** Folders given to `cd` / `pushd`, in order; relative paths after them may be relative to any. */
  cds: ShellWord[];
}

const SILENT_DEVICES = new Set(["/dev/null", "/dev/stdout", "/dev/stderr", "/dev/fd/1", "/dev/fd/2", "/dev/tty"]);

/**
 * Parses a bash command line into every simple command it would run, recursively (lists,
 * pipelines, subshells, groups, compound commands, functions, substitutions, `bash -c` strings,
 * literal `eval`, wrappers), and the files its redirects and writers touch. Never throws for any
 * input: what cannot be known is an `unknown` part.
 */
export function parseCommand(source: string): ParsedCommand {
  const analysis = new Analysis(source);
  analysis.run();
  return { parts: analysis.parts, cds: analysis.cds };
}

class Analysis {
  readonly parts: ShellPart[] = [];
  readonly cds: ShellWord[] = [];
  readonly env: WordEnv;
  #stopped = false;

  constructor(readonly source: string) {
    // A script that sets HOME may point `~` and `$HOME` anywhere; then they are unknown.
    this.env = { home: /\bHOME\s*\+?=/.test(source) ? undefined : homedir() };
  }

  run(): void {
    if (this.source.length > MAX_COMMAND_LENGTH) {
      this.#stop(`${this.source.length} characters`, `the command is longer than ${MAX_COMMAND_LENGTH} characters, so it was not looked into`);
      return;
    }
    this.#parseScript(this.source, 0, "command");
  }

  #stop(subject: string, reason: string): void {
    if (this.#stopped) return;
    this.#stopped = true;
    this.parts.push({ kind: "unknown", subject, reason });
  }

  #push(part: ShellPart): void {
    if (this.#stopped) return;
    if (this.parts.length >= MAX_PARTS) {
      this.#stop("(whole command)", `the command has more than ${MAX_PARTS} parts, so the rest was not looked into`);
      return;
    }
    this.parts.push(part);
  }

  #unknown(subject: string, reason: string): void {
    this.#push({ kind: "unknown", subject: clip(subject), reason });
  }

  #parseScript(text: string, level: number, what: string): void {
    if (level > MAX_NESTING) {
      this.#stop(clip(text), `${what} is nested more than ${MAX_NESTING} levels deep, so it was not looked into`);
      return;
    }
    let script: SyntaxNode;
    try {
      script = parse(text);
    } catch (error) {
      this.#unknown(text, `${what} could not be parsed (${(error as Error).message})`);
      return;
    }
    this.#visit(script, 0, level, text);
  }

  #visit(node: SyntaxNode, depth: number, level: number, source: string): void {
    if (this.#stopped) return;
    if (depth > MAX_NODE_DEPTH) {
      this.#stop("(whole command)", "the command is nested too deeply to be looked into");
      return;
    }
    let nextLevel = level;
    switch (node.type) {
      case "Script":
        if (node.errors && node.errors.length > 0) {
          const first = node.errors[0];
          this.#unknown(sliceAround(node, source), `the shell syntax is not valid (${first?.message ?? "parse error"}), so what runs is not known`);
        }
        nextLevel = level + 1;
        break;
      case "CompoundList":
        nextLevel = level + 1;
        break;
      case "Command":
        this.#command(node, level);
        break;
      case "Redirect":
        this.#redirect(node);
        break;
      default:
        break;
    }
    if (nextLevel > MAX_NESTING) {
      this.#stop("(whole command)", `the command is nested more than ${MAX_NESTING} levels deep, so it was not looked into`);
      return;
    }
    forEachChild(node, (child) => this.#visit(child, depth + 1, nextLevel, source));
  }

  #redirect(node: Extract<Redirection, { type: "Redirect" }>): void {
    const target = node.target;
    if (!target) return;
    const word = evalWord(target, this.env);
    const op = node.operator;
    if (op === ">&" || op === "<&") {
      if (word.value !== undefined && /^(\d+-?|-)$/.test(word.value)) return;
      if (word.value === undefined) {
        this.#unknown(`${op}${word.text}`, "a redirect whose target is known only at run time");
        return;
      }
    }
    if (word.value !== undefined && SILENT_DEVICES.has(word.value)) return;
    const writes = op !== "<" && op !== "<&";
    const reads = op === "<" || op === "<&" || op === "<>";
    if (writes) this.#push({ kind: "write", path: word, via: op, cdCount: this.cds.length });
    if (reads) this.#push({ kind: "read", path: word, via: op, cdCount: this.cds.length });
  }

  #command(node: Command, level: number): void {
    for (const item of node.prefix) {
      if (item.type === "Assignment") this.#assignment(item);
    }
    if (!node.name) return;
    const words: ShellWord[] = [evalWord(node.name, this.env)];
    for (const item of node.suffix) {
      if (item.type === "Word") words.push(evalWord(item, this.env));
      else if (item.type === "Assignment") words.push(assignmentWord(item, this.env));
    }
    this.#resolve(words, false, level, node, undefined);
  }

  #assignment(item: Assignment): void {
    if (DANGEROUS_VARIABLES.has(item.name) || item.name.startsWith("BASH_FUNC_")) {
      this.#unknown(item.text, `setting ${item.name} changes which program a name runs or runs code itself`);
    }
  }

  /** Judges `words` as a simple command, looking through wrappers, shells and eval. */
  #resolve(words: ShellWord[], tail: boolean, level: number, node: Command | undefined, uncertain: string | undefined): void {
    if (this.#stopped || words.length === 0) return;
    const name = words[0] as ShellWord;
    if (name.value === undefined) {
      this.#push({ kind: "command", words, tail, uncertain: uncertain ?? "the command name is known only at run time", cdCount: this.cds.length });
      return;
    }
    const program = basename(name.value);

    const wrapper = WRAPPERS[program];
    if (wrapper) {
      this.#wrapper(program, wrapper, words, tail, level, node, uncertain);
      return;
    }
    if (SHELLS.has(program)) {
      this.#shell(words, tail, level, node, uncertain);
      return;
    }
    const args = parseArguments(program, words.slice(1));
    const effects = effectsOf(program, words, args);
    this.#pushCommand(words, tail, uncertain, args, effects, level);

    switch (program) {
      case "busybox":
        this.#resolve(words.slice(1), tail, level, node, uncertain);
        return;
      case "eval":
        this.#reparse(words.slice(1), level, "eval");
        return;
      case "trap": {
        const first = words[1];
        if (first && !(first.value?.startsWith("-") ?? false)) this.#reparse([first], level, "a trap's command");
        return;
      }
      case "alias":
        for (const word of words.slice(1)) {
          if (word.value === undefined) this.#unknown(word.text, "an alias whose text is known only at run time");
          else if (word.value.includes("=")) this.#parseScript(word.value.slice(word.value.indexOf("=") + 1), level + 1, "an alias");
        }
        return;
      case "source":
      case ".":
        if (words[1] && words[1].value === undefined) {
          this.#unknown(words.map(showWord).join(" "), "runs a script whose name or content is known only at run time");
        }
        return;
      case "tmux":
        this.#tmux(words, level);
        return;
      case "hash":
        if (words.some((word) => word.value === undefined || /^-[a-z]*p/.test(word.value))) {
          this.#unknown(words.map(showWord).join(" "), "`hash -p` makes a name run another program");
        }
        return;
      case "export":
      case "declare":
      case "typeset":
      case "readonly":
      case "local":
        for (const word of words.slice(1)) {
          const match = /^([A-Za-z_][A-Za-z0-9_]*)\+?=/.exec(word.value ?? word.text);
          if (match && DANGEROUS_VARIABLES.has(match[1] as string)) {
            this.#unknown(word.text, `setting ${match[1]} changes which program a name runs or runs code itself`);
          }
        }
        return;
      case "enable":
        if (words.length > 1) this.#unknown(words.map(showWord).join(" "), "`enable` loads or changes shell builtins");
        return;
      case "cd":
      case "pushd": {
        const target = words.slice(1).find((word) => !(word.value?.startsWith("-") ?? false));
        this.cds.push(target ?? { text: "~", value: "~", splits: false, tilde: true });
        return;
      }
      case "popd":
        this.cds.push(runtimeWord("(popd)", false));
        return;
      case "find":
        this.#find(words, level);
        return;
      default:
        return;
    }
  }

  #pushCommand(words: ShellWord[], tail: boolean, uncertain: string | undefined, args: ParsedArguments, effects: Effects, level: number, script?: ShellWord): void {
    const part: ShellCommandPart = { kind: "command", words, tail, cdCount: this.cds.length, args };
    const why = uncertain ?? effects.uncertain;
    if (why !== undefined) part.uncertain = why;
    if (effects.reads.length > 0) part.reads = effects.reads;
    if (effects.trees.length > 0) part.trees = effects.trees;
    if (effects.inline !== undefined) part.inline = effects.inline;
    if (script ?? effects.script) part.script = script ?? effects.script;
    this.#push(part);
    for (const touch of effects.writes) this.#push({ kind: "write", path: touch.path, via: touch.via, cdCount: this.cds.length });
    for (const run of effects.runs ?? []) {
      if (run.shell) this.#reparse(run.words, level, run.via);
      else this.#resolve(run.words, false, level, undefined, undefined);
    }
  }

  /** tmux commands that run a shell command given as their last words. */
  #tmux(words: ShellWord[], level: number): void {
    let i = 1;
    for (; i < words.length; i++) {
      const value = words[i]?.value;
      if (value === undefined) return this.#unknown(words.map(showWord).join(" "), "tmux's arguments are known only at run time");
      if (!value.startsWith("-")) break;
      if (value === "-c") this.#reparse(words.slice(i + 1, i + 2), level, "tmux -c");
      if (/^-[LSfTc]$/.test(value)) i += 1;
    }
    const sub = words[i]?.value;
    if (sub === undefined) return;
    if (/^(send-keys|send|send-prefix)$/.test(sub)) {
      return this.#unknown(words.map(showWord).join(" "), "tmux send-keys types text into a terminal, which may run it");
    }
    if (!/^(new-session|new|new-window|neww|split-window|splitw|respawn-pane|respawnp|respawn-window|respawnw|run-shell|run|if-shell|if|pipe-pane|pipep|display-popup|popup)$/.test(sub)) return;
    let j = i + 1;
    for (; j < words.length; j++) {
      const value = words[j]?.value;
      if (value === undefined || !value.startsWith("-")) break;
      if (value === "--") {
        j += 1;
        break;
      }
      if (/^-[a-zA-Z]*[cefFnstxylpTwhdSb]$/.test(value) && !/^-[a-zA-Z]*[AbDdEhIkPvZ]$/.test(value)) j += 1;
    }
    const command = words.slice(j);
    if (command.length > 0) this.#reparse(command, level, `tmux ${sub}`);
  }

  #wrapper(
    program: string,
    spec: WrapperSpec,
    words: ShellWord[],
    tail: boolean,
    level: number,
    node: Command | undefined,
    uncertain: string | undefined,
  ): void {
    const options = readOptions(words, 1, spec);
    let index = options.index;
    const alternatives: number[] = [];
    let why = uncertain;
    if (options.unknown.length > 0) {
      why ??= `${program}'s option ${options.unknown.join(", ")} is not known to the policy, so the program it runs is uncertain`;
    }
    if (spec.own || options.noCommand || options.unknown.length > 0) {
      this.#push({ kind: "command", words, tail, uncertain: options.unknown.length > 0 ? why : uncertain, cdCount: this.cds.length });
    }
    for (const [option, value] of options.values) {
      if (spec.commandString?.includes(option)) this.#reparse([value], level, `${program} ${option}`);
      if (spec.writes?.includes(option)) this.#push({ kind: "write", path: value, via: `${program} ${option}`, cdCount: this.cds.length });
    }
    if (options.noCommand) return;
    if (spec.assignments) {
      while (index < words.length) {
        const word = words[index] as ShellWord;
        const match = /^([A-Za-z_][A-Za-z0-9_]*)\+?=/.exec(word.value ?? word.text);
        if (!match) break;
        if (DANGEROUS_VARIABLES.has(match[1] as string)) {
          this.#unknown(word.text, `setting ${match[1]} changes which program a name runs or runs code itself`);
        }
        index += 1;
      }
    }
    index += spec.operands ?? 0;
    const viaShell = program === "su" || (program === "runuser" && !options.seen.has("-u") && !options.seen.has("--user"));
    if (program === "runuser" && viaShell) index += 1;
    if (options.unknown.length > 0) {
      for (let alt = index + 1; alt < Math.min(words.length, index + 1 + MAX_ALTERNATIVES); alt++) alternatives.push(alt);
    }
    if (index >= words.length) {
      const hasString = options.values.some(([option]) => spec.commandString?.includes(option));
      if (!hasString && (spec.shellWhenEmpty || options.shell)) {
        this.#unknown(words.map(showWord).join(" "), `${program} starts a shell that reads its commands from standard input`);
      }
      return;
    }
    let rest = words.slice(index);
    if (program === "script") {
      for (const word of rest) this.#push({ kind: "write", path: word, via: "script", cdCount: this.cds.length });
      if (!options.values.some(([option]) => spec.commandString?.includes(option))) {
        this.#unknown(words.map(showWord).join(" "), "script starts a shell that reads its commands from standard input");
      }
      return;
    }
    if (program === "parallel") {
      const end = rest.findIndex((word) => word.value !== undefined && /^:::/.test(word.value));
      if (end !== -1) rest = rest.slice(0, end);
      if (rest.length === 1 && rest[0]?.value !== undefined && /[\s;&|<>$`]/.test(rest[0].value)) {
        this.#reparse(rest, level, "parallel");
        return;
      }
      this.#resolve(rest, true, level, undefined, why);
      return;
    }
    if (program === "flock" && (rest[0]?.value === "-c" || rest[0]?.value === "--command")) {
      // `flock FILE -c COMMAND`: the command string comes after the lock file.
      this.#reparse(rest.slice(1, 2), level, "flock -c");
      return;
    }
    if (program === "watch" && !options.seen.has("-x") && !options.seen.has("--exec")) {
      this.#reparse(rest, level, "watch");
      return;
    }
    if (viaShell) {
      // The words after the user go to the user's shell: `su root -c 'cmd'`.
      this.#shell([{ text: "sh", value: "sh", splits: false, tilde: false }, ...rest], tail, level, undefined, why);
      return;
    }
    if (program === "xargs") {
      this.#resolve(rest, true, level, undefined, why);
    } else {
      this.#resolve(rest, tail, level, node, why);
    }
    for (const alt of alternatives) this.#resolve(words.slice(alt), tail || program === "xargs", level, undefined, why);
  }

  #shell(words: ShellWord[], tail: boolean, level: number, node: Command | undefined, uncertain: string | undefined): void {
    let commandMode = false;
    let stdinMode = false;
    let index = 1;
    let unknown: string | undefined;
    while (index < words.length) {
      const word = words[index] as ShellWord;
      if (word.value === undefined) {
        unknown = word.text;
        break;
      }
      const value = word.value;
      if (value === "--" || value === "-") {
        index += 1;
        break;
      }
      if (!/^[-+]./.test(value)) break;
      if (SHELL_VALUE_OPTIONS.has(value)) {
        index += 2;
        continue;
      }
      if (!value.startsWith("--")) {
        if (value.slice(1).includes("c")) commandMode = true;
        if (value.slice(1).includes("s")) stdinMode = true;
        if (/[oO]$/.test(value)) index += 1;
      }
      index += 1;
    }
    const shown = words.map(showWord).join(" ");
    if (unknown !== undefined) {
      this.#push({ kind: "command", words, tail, uncertain: uncertain ?? "a shell whose options are known only at run time", cdCount: this.cds.length });
      return;
    }
    if (commandMode) {
      const script = words[index];
      if (!script) {
        this.#unknown(shown, "a shell's -c without a command string");
        return;
      }
      if (uncertain) this.#unknown(shown, uncertain);
      this.#reparse([script], level, "a shell's -c string");
      return;
    }
    if (!stdinMode && index < words.length) {
      // A script file: judged as the shell command itself (its content is not read).
      const program = basename(words[0]?.value ?? "sh");
      this.#pushCommand(words, tail, uncertain, parseArguments(program, words.slice(1)), { writes: [], reads: [], trees: [] }, level, words[index]);
      return;
    }
    const input = node ? literalInput(node.redirects, this.env) : undefined;
    if (input === undefined) {
      this.#unknown(shown, "a shell reads its script from standard input (a pipe, file or heredoc), which is known only at run time");
      return;
    }
    if (uncertain) this.#unknown(shown, uncertain);
    this.#parseScript(input, level + 1, "a shell's input");
  }

  /** Parses literal words again as a script (eval, -c strings); a word known only at run time is unknown. */
  #reparse(words: ShellWord[], level: number, what: string): void {
    if (words.length === 0) return;
    if (words.some((word) => word.value === undefined)) {
      this.#unknown(words.map((word) => word.text).join(" "), `${what} runs text known only at run time`);
      return;
    }
    this.#parseScript(words.map((word) => word.value).join(" "), level + 1, what);
  }

  #find(words: ShellWord[], level: number): void {
    for (let i = 1; i < words.length; i++) {
      const value = words[i]?.value;
      if (value === "-exec" || value === "-execdir" || value === "-ok" || value === "-okdir") {
        const inner: ShellWord[] = [];
        let j = i + 1;
        for (; j < words.length; j++) {
          const word = words[j] as ShellWord;
          if (word.value === ";" || (word.value === "+" && inner.length > 0)) break;
          inner.push(word.value !== undefined && word.value.includes("{}") ? runtimeWord(word.text, false) : word);
        }
        this.#resolve(inner, false, level, undefined, undefined);
        i = j;
      } else if ((value === "-fprint" || value === "-fprint0" || value === "-fls" || value === "-fprintf") && words[i + 1]) {
        this.#push({ kind: "write", path: words[i + 1] as ShellWord, via: `find ${value}`, cdCount: this.cds.length });
      }
    }
  }
}

interface ReadOptions {
  index: number;
  values: Array<[string, ShellWord]>;
  seen: Set<string>;
  unknown: string[];
  noCommand: boolean;
  shell: boolean;
}

/** Reads a wrapper's options from `words[start]` on, up to its first operand. */
function readOptions(words: ShellWord[], start: number, spec: WrapperSpec): ReadOptions {
  const result: ReadOptions = { index: start, values: [], seen: new Set(), unknown: [], noCommand: false, shell: false };
  const takesValue = (option: string): boolean =>
    (spec.values?.includes(option) ?? false) || (spec.commandString?.includes(option) ?? false) || (spec.writes?.includes(option) ?? false);
  const known = (option: string): boolean =>
    takesValue(option) || (spec.flags?.includes(option) ?? false) || (spec.noCommand?.includes(option) ?? false) || (spec.shell?.includes(option) ?? false);
  const note = (option: string): void => {
    result.seen.add(option);
    if (spec.noCommand?.includes(option)) result.noCommand = true;
    if (spec.shell?.includes(option)) result.shell = true;
  };
  let i = start;
  while (i < words.length) {
    const word = words[i] as ShellWord;
    const value = word.value;
    if (value === undefined) {
      result.unknown.push(word.text);
      break;
    }
    if (value === "--") {
      i += 1;
      break;
    }
    if (value === "-" && known("-")) {
      note("-");
      i += 1;
      continue;
    }
    if (!value.startsWith("-") || value === "-") break;
    if (spec.digitOptions && /^-\d+$/.test(value)) {
      i += 1;
      continue;
    }
    if (value.startsWith("--")) {
      const eq = value.indexOf("=");
      const option = eq === -1 ? value : value.slice(0, eq);
      if (eq !== -1) {
        if (!known(option)) result.unknown.push(option);
        note(option);
        if (takesValue(option)) result.values.push([option, { ...word, value: value.slice(eq + 1), tilde: value[eq + 1] === "~" }]);
        i += 1;
        continue;
      }
      note(option);
      if (takesValue(option)) {
        const next = words[i + 1];
        if (next) result.values.push([option, next]);
        i += 2;
        continue;
      }
      if (!known(option)) result.unknown.push(option);
      i += 1;
      continue;
    }
    if (known(value) && !takesValue(value)) {
      note(value);
      i += 1;
      continue;
    }
    let consumed = 1;
    for (let c = 1; c < value.length; c++) {
      const option = `-${value[c]}`;
      note(option);
      if (takesValue(option)) {
        const attached = value.slice(c + 1);
        if (attached.length > 0) {
          result.values.push([option, { ...word, value: attached, tilde: attached.startsWith("~") }]);
        } else {
          const next = words[i + 1];
          if (next) result.values.push([option, next]);
          consumed = 2;
        }
        break;
      }
      if (!known(option)) result.unknown.push(option);
    }
    i += consumed;
  }
  result.index = i;
  return result;
}

/** The text a literal heredoc or here-string gives a command's standard input, or undefined. */
function literalInput(redirects: readonly Redirection[], env: WordEnv): string | undefined {
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

function assignmentWord(item: Assignment, env: WordEnv): ShellWord {
  if (item.value.type !== "Word") return runtimeWord(item.text, false);
  const value = evalWord(item.value as Word, env).value;
  return { text: item.text, value: value === undefined ? undefined : `${item.name}${item.append ? "+=" : "="}${value}`, splits: false, tilde: false };
}

function basename(path: string): string {
  const slash = path.lastIndexOf("/");
  return slash === -1 ? path : path.slice(slash + 1);
}

function clip(text: string): string {
  return text.length > 200 ? `${text.slice(0, 197)}...` : text;
}

function sliceAround(node: { pos: number; end: number; source?: string }, source: string): string {
  return clip((node.source ?? source).slice(node.pos, node.end) || "(empty)");
}
