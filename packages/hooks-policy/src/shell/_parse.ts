import { homedir } from "node:os";
import { type Assignment, type Command, forEachChild, parse, type Redirection, type SyntaxNode, type Word } from "unbash";
import { Inventory } from "../inventory/_inventory.js";
import { FOREIGN_SHELLS, type ForeignShellSpec, SHELLS, WRAPPERS } from "../inventory/_runners.js";
import { shellEffects } from "./_builtins.js";
import { type Effects, effectsOf } from "./_effects.js";
import { type ParsedArguments, parseArguments } from "./_options.js";
import { type Analysis, basename, clip, MAX_COMMAND_LENGTH, MAX_NESTING, MAX_PARTS, type ParsedCommand, type ShellCommandPart, type ShellPart } from "./_parts.js";
import { programEffects } from "./_programs.js";
import { assignment, runSetting } from "./_settings.js";
import { literalInput, literalOutput, resolveForeignShell, resolveShell } from "./_shells.js";
import { resolveWrapper } from "./_wrappers.js";
import { attaches, detaches, evaluatingText, readableCode } from "./_evaluating.js";
import { exhaustion } from "./_exhaustion.js";
import { findInput, literalWords, type PipeInput, xargsReadsPlainly } from "./_pipes.js";
import type { Touch } from "./_effect-types.js";
import { evalWord, runtimeWord, type ShellWord, showWord, type WordEnv } from "./_words.js";

export { MAX_COMMAND_LENGTH, MAX_NESTING, MAX_PARTS } from "./_parts.js";
export type { ParsedCommand, ShellCommandPart, ShellFilePart, ShellPart, ShellUnknownPart } from "./_parts.js";

const MAX_NODE_DEPTH = 1_000;
const SILENT_DEVICES = new Set(["/dev/null", "/dev/stdout", "/dev/stderr", "/dev/fd/1", "/dev/fd/2", "/dev/tty"]);

/** What the parser knows of programs: the inventory, and the programs rules name (an unknown program's argument naming one is judged as a command). */
export interface ShellKnowledge {
  inventory: Inventory;
  namesProgram?: (program: string) => boolean;
}

let builtinKnowledge: ShellKnowledge | undefined;

/**
 * Parses a bash command line into every simple command it would run, recursively (lists,
 * pipelines, subshells, groups, compound commands, functions, substitutions, `bash -c` strings,
 * literal `eval`, wrappers, runners the inventory knows), and the files its redirects and writers
 * touch. Never throws for any input: what cannot be known is an `unknown` part.
 */
export function parseCommand(source: string, knowledge?: ShellKnowledge): ParsedCommand {
  builtinKnowledge ??= { inventory: Inventory.builtin() };
  const analysis = new ShellAnalysis(source, knowledge ?? builtinKnowledge);
  analysis.run();
  return { parts: analysis.parts, cds: analysis.cds };
}

class ShellAnalysis implements Analysis {
  readonly parts: ShellPart[] = [];
  readonly cds: ShellWord[] = [];
  readonly env: WordEnv;
  readonly inventory: Inventory;
  readonly #named: ((program: string) => boolean) | undefined;
  /** Variables the whole command line assigns exactly once, and in no other way (`read`, `for`, `export`). */
  readonly #once: ReadonlySet<string>;
  /** Links the command line makes (`ln -s TARGET LINK`), by the link as written: a write through one is a write of its target too. */
  readonly #links = new Map<string, ShellWord>();
  /** Redirects of standard output of the commands seen, with the text the command prints when it is literal. */
  readonly #printed = new Map<Redirection, string>();
  /** What the stage before an xargs of a pipeline prints, by the xargs command (see `_pipes.ts`). */
  readonly #inputs = new Map<Command, PipeInput>();
  /** xargs' input while its command is resolved, and the trees of a find's names for the part it makes. */
  #xargsInput: PipeInput | undefined;
  #tailFrom: Touch[] | undefined;
  /** Settings waiting for the program they are given to (see `whenCommand`). */
  #pending: Array<(words: readonly ShellWord[] | undefined) => void> = [];
  /** Steps run when the whole command line has been read (see `atEnd`). */
  #atEnd: Array<() => void> = [];
  #stopped = false;
  /** The index of the command part whose redirects are being read. */
  #writer: number | undefined;

  constructor(
    readonly source: string,
    knowledge: ShellKnowledge,
  ) {
    // A script that sets HOME may point `~` and `$HOME` anywhere; then they are unknown.
    this.env = { home: /\bHOME\s*\+?=/.test(source) ? undefined : homedir(), vars: new Map() };
    this.#once = setOnce(source);
    this.inventory = knowledge.inventory;
    this.#named = knowledge.namesProgram;
  }

  get size(): number {
    return this.parts.length;
  }

  partsFrom(start: number): readonly ShellPart[] {
    return this.parts.slice(start);
  }

  namesProgram(program: string): boolean {
    // Words that are also common arguments (`.`, `:`, `[`) name no program here.
    if (/^[^A-Za-z0-9_]*$/.test(program)) return false;
    return this.inventory.lookup(program) !== undefined || WRAPPERS[program] !== undefined || SHELLS.has(program) || Object.hasOwn(FOREIGN_SHELLS, program) || (this.#named?.(program) ?? false);
  }

  run(): void {
    if (this.source.length > MAX_COMMAND_LENGTH) {
      this.#stop(`${this.source.length} characters`, `the command is longer than ${MAX_COMMAND_LENGTH} characters, so it was not looked into`);
      return;
    }
    this.parseScript(this.source, 0, "command");
    this.#settle(undefined);
    for (const step of this.#atEnd.splice(0)) step();
  }

  whenCommand(judge: (words: readonly ShellWord[] | undefined) => void): void {
    this.#pending.push(judge);
  }

  atEnd(step: () => void): void {
    this.#atEnd.push(step);
  }

  /** The settings waiting for a program, judged with its words (or with none). */
  #settle(words: readonly ShellWord[] | undefined): void {
    if (this.#pending.length === 0) return;
    for (const judge of this.#pending.splice(0)) judge(words);
  }

  #stop(subject: string, reason: string): void {
    if (this.#stopped) return;
    this.#stopped = true;
    this.parts.push({ kind: "unknown", subject, reason });
  }

  push(part: ShellPart): void {
    if (this.#stopped) return;
    if (this.parts.length >= MAX_PARTS) {
      this.#stop("(whole command)", `the command has more than ${MAX_PARTS} parts, so the rest was not looked into`);
      return;
    }
    this.parts.push(part);
    if (part.kind === "write" && this.#links.size > 0) {
      const through = throughLink(this.#links, part.path);
      if (through) this.push({ ...part, path: through.target, via: `${part.via} (through the link ${through.link} made by this command)` });
    }
  }

  throughLinks(path: ShellWord): ShellWord {
    return this.#links.size === 0 ? path : (throughLink(this.#links, path)?.target ?? path);
  }

  unknown(subject: string, reason: string): void {
    this.push({ kind: "unknown", subject: clip(subject), reason });
  }

  parseScript(text: string, level: number, what: string): void {
    if (level > MAX_NESTING) {
      this.#stop(clip(text), `${what} is nested more than ${MAX_NESTING} levels deep, so it was not looked into`);
      return;
    }
    let script: SyntaxNode;
    try {
      script = parse(text);
    } catch (error) {
      this.unknown(text, `${what} could not be parsed (${(error as Error).message})`);
      return;
    }
    for (const reason of evaluatingText(text)) this.unknown(text, reason);
    // A sandbox bounds where a call writes, not how much; the processes it starts only with a limit on them.
    for (const { reason, exhausts } of exhaustion(script)) this.push({ kind: "unknown", subject: clip(text), reason, exhausts });
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
          this.unknown(sliceAround(node, source), `the shell syntax is not valid (${first?.message ?? "parse error"}), so what runs is not known`);
        }
        nextLevel = level + 1;
        break;
      case "CompoundList":
        nextLevel = level + 1;
        break;
      case "Command": {
        // Its redirects are its writes: the first command part it added writes them.
        const before = this.#writer;
        const start = this.parts.length;
        this.#command(node, level);
        const first = this.parts.findIndex((part, index) => index >= start && part.kind === "command");
        this.#writer = first === -1 ? undefined : first;
        forEachChild(node, (child) => this.#visit(child, depth + 1, level, source));
        this.#writer = before;
        return;
      }
      case "Pipeline":
        this.#pipeline(node);
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

  /** `find src -name '*.ts' | xargs grep x`, `echo a b | xargs rm`: what each xargs after a stage that says what it prints reads. */
  #pipeline(node: Extract<SyntaxNode, { type: "Pipeline" }>): void {
    node.commands.forEach((stage, at) => {
      const before = node.commands[at - 1];
      if (at === 0 || node.operators[at - 1] !== "|" || stage.type !== "Command" || before?.type !== "Command" || !before.name || before.prefix.length > 0) return;
      if (before.redirects.some((redirect) => redirect.type !== "Redirect" || (redirect.descriptor?.type === "FileDescriptor" ? redirect.descriptor.value : 1) === 1)) return;
      const words = [evalWord(before.name, this.env), ...before.suffix.filter((item): item is Word => item.type === "Word").map((item) => evalWord(item, this.env))];
      if (before.suffix.some((item) => item.type !== "Word" && item.type !== "Redirect")) return;
      const program = basename(words[0]?.value ?? "");
      const printed = program === "find" ? undefined : literalOutput(words, before, this.env);
      const input = program === "find" ? findInput(words) : printed === undefined ? undefined : literalWords(printed);
      if (input) this.#inputs.set(stage, input);
    });
  }

  #redirect(node: Extract<Redirection, { type: "Redirect" }>): void {
    const target = node.target;
    if (!target) return;
    // `> >(cmd)`, `< <(cmd)`: the target is a pipe to or from cmd, which is judged as the command it is (its script is visited as a child).
    if (target.parts?.length === 1 && target.parts[0]?.type === "ProcessSubstitution") return;
    const word = evalWord(target, this.env);
    const op = node.operator;
    if (op === ">&" || op === "<&") {
      if (word.value !== undefined && /^(\d+-?|-)$/.test(word.value)) return;
      if (word.value === undefined) {
        this.unknown(`${op}${word.text}`, "a redirect whose target is known only at run time");
        return;
      }
    }
    if (word.value !== undefined && SILENT_DEVICES.has(word.value)) return;
    const writes = op !== "<" && op !== "<&";
    const reads = op === "<" || op === "<&" || op === "<>";
    const content = writes ? this.#printed.get(node) : undefined;
    if (writes) this.push({ kind: "write", path: word, via: op, cdCount: this.cds.length, ...(content !== undefined && { content, append: op === ">>" }), ...(this.#writer !== undefined && { by: this.#writer }) });
    if (reads) this.push({ kind: "read", path: word, via: op, cdCount: this.cds.length });
  }

  #command(node: Command, level: number): void {
    // `IFS=, read -r a b`: the separators of that one read, which runs nothing.
    const reads = node.name !== undefined && /^(read|mapfile|readarray)$/.test(evalWord(node.name, this.env).value ?? "");
    for (const item of node.prefix) {
      if (item.type === "Assignment" && !(reads && item.name === "IFS")) this.#assignment(item, level);
    }
    if (!node.name) {
      // `X=/` alone sets a shell variable: later words may name it (`rm -rf "$X"`).
      for (const item of node.prefix) if (item.type === "Assignment") this.#remember(item);
      this.#settle(undefined);
      return;
    }
    const words: ShellWord[] = [evalWord(node.name, this.env)];
    for (const item of node.suffix) {
      if (item.type === "Word") words.push(evalWord(item, this.env));
      else if (item.type === "Assignment") words.push(assignmentWord(item, this.env));
    }
    this.resolve(words, false, level, node, undefined);
    // What `export PATH=…` and the like set: for every later command.
    this.#settle(undefined);
    const printed = literalOutput(words, node, this.env);
    if (printed !== undefined) {
      for (const redirect of node.redirects) {
        const fd = redirect.descriptor?.type === "FileDescriptor" ? redirect.descriptor.value : 1;
        if (redirect.type === "Redirect" && fd === 1 && /^(>|>>|>\|)$/.test(redirect.operator)) this.#printed.set(redirect, printed);
      }
    }
  }

  #remember(item: Assignment): void {
    if (item.append || !this.#once.has(item.name) || item.value.type !== "Word") return;
    const word = evalWord(item.value as Word, this.env);
    let value = word.value;
    // An assignment expands a leading tilde (`H=~; cat $H/.npmrc` reads the home folder's file); one of another user, `~+` or `~-` is left unknown.
    if (value !== undefined && word.tilde) value = value === "~" || value.startsWith("~/") ? (this.env.home === undefined ? undefined : this.env.home + value.slice(1)) : undefined;
    if (value !== undefined) this.env.vars?.set(item.name, value);
  }

  #assignment(item: Assignment, level: number): void {
    const value = item.value.type === "Word" ? evalWord(item.value as Word, this.env) : undefined;
    assignment(this, item.name, value, item.text, level);
  }

  resolve(words: ShellWord[], tail: boolean, level: number, node: Command | undefined, uncertain: string | undefined): void {
    if (this.#stopped || words.length === 0) return;
    this.#settle(words);
    const name = words[0] as ShellWord;
    if (name.value === undefined) {
      this.push({ kind: "command", words, tail, uncertain: uncertain ?? "the command name is known only at run time", cdCount: this.cds.length });
      return;
    }
    const program = basename(name.value);
    if (tail && this.#xargsInput !== undefined) {
      // The command xargs runs, with the input the stage before it prints.
      const input = this.#xargsInput;
      this.#xargsInput = undefined;
      if (input.kind === "words") return this.resolve([...words, ...input.words.map((each): ShellWord => ({ text: each, value: each, splits: false, tilde: false }))], false, level, node, uncertain);
      this.#tailFrom = input.trees;
    }
    const input = program === "xargs" && node ? this.#inputs.get(node) : undefined;
    const plainly = input ? xargsReadsPlainly(words) : undefined;
    if (input && plainly && plainly.nul === (input.kind === "find" && input.print0)) {
      this.#xargsInput = input;
      try {
        return resolveWrapper(this, program, WRAPPERS[program] as NonNullable<(typeof WRAPPERS)[string]>, words, tail, level, node, uncertain);
      } finally {
        this.#xargsInput = undefined;
        this.#tailFrom = undefined;
      }
    }
    const detached = detaches(program, words) ?? attaches(program, words);
    if (detached !== undefined) this.unknown(words.map(showWord).join(" "), detached);
    const wrapper = WRAPPERS[program];
    if (wrapper) return resolveWrapper(this, program, wrapper, words, tail, level, node, uncertain);
    const entry = this.inventory.lookup(program);
    if (SHELLS.has(program) || (entry !== undefined && SHELLS.has(entry.name) && entry.source === "inventory")) return resolveShell(this, words, tail, level, node, uncertain);
    const foreign = foreignShell(program, entry?.name);
    if (foreign) return resolveForeignShell(this, program, foreign, words, tail, level, node, uncertain);
    const args = parseArguments(program, words.slice(1));
    const effects = effectsOf(program, words, args, entry?.row);
    // An interpreter reading a literal heredoc or here-string: the program is that text.
    if (effects.inline === "(standard input)" && node) {
      const input = literalInput(node.redirects, this.env);
      if (input !== undefined && readableCode(input)) {
        effects.printsOnly = input;
        delete effects.inline;
      } else if (input !== undefined) effects.inline = input;
    }
    this.pushCommand(words, tail, uncertain, args, effects, level);
    if (effects.buildFromInput && node) {
      const input = literalInput(node.redirects, this.env);
      if (input !== undefined) for (const recipe of recipeLines(input)) this.parseScript(recipe, level + 1, `a recipe of the build file ${program} reads from its input`);
    }
    if (program === "ln" || (program === "cp" && args.options.some((option) => option.name === "--symbolic-link" || option.name === "--link"))) rememberLinks(this.#links, args);
    shellEffects(this, program, words, tail, level, node, uncertain);
    programEffects(this, program, entry, words, args, tail, level, effects);
  }

  pushCommand(words: ShellWord[], tail: boolean, uncertain: string | undefined, args: ParsedArguments, effects: Effects, level: number, script?: ShellWord): void {
    const part: ShellCommandPart = { kind: "command", words, tail, cdCount: this.cds.length, args };
    if (tail && this.#tailFrom !== undefined) part.tailFrom = this.#tailFrom;
    const why = uncertain ?? effects.uncertain;
    if (why !== undefined) part.uncertain = why;
    if (effects.reads.length > 0) part.reads = effects.reads;
    if (effects.trees.length > 0) part.trees = effects.trees;
    if (effects.inline !== undefined) part.inline = effects.inline;
    if (script ?? effects.script) part.script = script ?? effects.script;
    if (effects.printsOnly !== undefined) part.printsOnly = effects.printsOnly;
    const by = this.parts.length;
    this.push(part);
    for (const touch of effects.writes) this.push({ kind: "write", path: touch.path, via: touch.via, cdCount: this.cds.length, by });
    for (const run of effects.runs ?? []) {
      if (run.shell) this.reparse(run.words, level, run.via);
      else this.resolve(run.words, false, level, undefined, undefined);
    }
    for (const setting of effects.settings ?? []) runSetting(this, setting.value, setting.what, level);
  }

  reparse(words: ShellWord[], level: number, what: string): void {
    if (words.length === 0) return;
    if (words.some((word) => word.value === undefined)) {
      this.unknown(words.map((word) => word.text).join(" "), `${what} runs text known only at run time`);
      return;
    }
    this.parseScript(words.map((word) => word.value).join(" "), level + 1, what);
  }
}

/** The recipe lines of a makefile (tab-indented), as the shell gets them: without `@`, `-`, `+`, with `$$` as `$`. */
function recipeLines(text: string): string[] {
  return text
    .split("\n")
    .filter((line) => line.startsWith("\t"))
    .map((line) => line.slice(1).replace(/^[@+-]+/, "").replaceAll("$$", "$"))
    .filter((line) => line.trim() !== "");
}

/** The shell of another language a program name is (`pwsh`, `powershell.exe`, `tcsh6`), by itself or as the inventory spells it. */
function foreignShell(program: string, spelled: string | undefined): ForeignShellSpec | undefined {
  const bare = program.replace(/\.exe$/i, "");
  const named = Object.hasOwn(FOREIGN_SHELLS, bare) ? bare : spelled !== undefined && Object.hasOwn(FOREIGN_SHELLS, spelled) ? spelled : undefined;
  return named === undefined ? undefined : FOREIGN_SHELLS[named];
}

/** `ln [-s] TARGET… LINK` (or `-t DIR`): each link made, by its name as written, to the target it leads to. */
function rememberLinks(links: Map<string, ShellWord>, args: ParsedArguments): void {
  const directory = args.options.find((option) => option.name === "--target-directory")?.value?.value;
  const operands = [...args.operands];
  const last = directory === undefined && operands.length >= 2 ? operands.pop() : undefined;
  for (const target of operands) {
    if (target.value === undefined) continue;
    const name = target.value.slice(target.value.replace(/\/+$/, "").lastIndexOf("/") + 1);
    const link = directory !== undefined ? `${directory}/${name}` : last?.value ?? (operands.length === 1 ? name : undefined);
    if (link !== undefined) links.set(linkKey(link), target);
  }
}

function linkKey(path: string): string {
  return path.replace(/^(\.\/)+/, "").replace(/\/+$/, "");
}

/** The target a path written through a link of the command leads to (`x` or `x/rest` for a link `x`). */
function throughLink(links: ReadonlyMap<string, ShellWord>, path: ShellWord): { link: string; target: ShellWord } | undefined {
  if (path.value === undefined) return undefined;
  const key = linkKey(path.value);
  for (const [link, target] of links) {
    if (target.value === undefined || (key !== link && !key.startsWith(`${link}/`))) continue;
    const rest = key.slice(link.length);
    return { link, target: { ...target, value: `${target.value.replace(/\/+$/, "")}${rest}` } };
  }
  return undefined;
}

const NONE: ReadonlySet<string> = new Set();

/** The variables a command line assigns exactly once (`X=…`), and sets in no other way (`read X`, `for X`, `export X`, `${X:=…}`). */
function setOnce(source: string): ReadonlySet<string> {
  // Only an assignment that starts a command sets a shell variable (`X=/; …`, not `--watch=false`).
  if (!/(?:^|[;&|\n(){}`])\s*[A-Za-z_][A-Za-z0-9_]*\+?=/.test(source)) return NONE;
  const counts = new Map<string, number>();
  for (const match of source.matchAll(/(?:^|[\s;&|(){}`])([A-Za-z_][A-Za-z0-9_]*)\+?=/g)) counts.set(match[1] as string, (counts.get(match[1] as string) ?? 0) + 1);
  const once = new Set([...counts].filter(([, count]) => count === 1).map(([name]) => name));
  if (once.size === 0) return once;
  for (const match of source.matchAll(/\b(?:read|for|select|unset|local|declare|typeset|readonly|export|getopts|mapfile|readarray|let)\b[^;&|\n]*/g)) {
    for (const word of match[0].matchAll(/[A-Za-z_][A-Za-z0-9_]*/g)) once.delete(word[0]);
  }
  for (const match of source.matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*):?[=?]/g)) once.delete(match[1] as string);
  for (const match of source.matchAll(/printf\s+-v\s+([A-Za-z_][A-Za-z0-9_]*)/g)) once.delete(match[1] as string);
  return once;
}

function assignmentWord(item: Assignment, env: WordEnv): ShellWord {
  if (item.value.type !== "Word") return runtimeWord(item.text, false);
  const value = evalWord(item.value as Word, env).value;
  return { text: item.text, value: value === undefined ? undefined : `${item.name}${item.append ? "+=" : "="}${value}`, splits: false, tilde: false };
}

function sliceAround(node: { pos: number; end: number; source?: string }, source: string): string {
  return clip((node.source ?? source).slice(node.pos, node.end) || "(empty)");
}
