import type { InventoryEntry } from "../inventory/_inventory.js";
import { SUB_WRAPPERS, type SubWrapperSpec } from "../inventory/_runners.js";
import { resolveWrapper } from "./_wrappers.js";
import { hasAny, subcommandOf } from "./_kind-of.js";
import type { Effects } from "./_effects.js";
import type { ParsedArguments } from "./_options.js";
import { type Analysis, basename, type ShellCommandPart } from "./_parts.js";
import { runSetting } from "./_settings.js";
import { runOptions } from "./_evaluating.js";
import { EXEC_OPTIONS } from "../inventory/_inline-code.js";
import { optionWords } from "./_scripts.js";
import type { ShellWord } from "./_words.js";

/** At most this many of an unknown program's arguments are judged as the commands it may run. */
const MAX_PRESUMED = 8;

/*
 * What the inventory adds to a simple command: the command a runner runs (`poetry run pytest`),
 * the command lines its options name (`man -P`, `tar -I`), and, for a program the inventory does
 * not know, its arguments that name programs, judged as commands too (it may be a runner nobody
 * listed: `mytool rm -rf /`).
 */
export function programEffects(analysis: Analysis, program: string, entry: InventoryEntry | undefined, words: ShellWord[], args: ParsedArguments, tail: boolean, level: number, effects: Effects): void {
  for (const value of optionWords(words, EXEC_OPTIONS[program] ?? [])) mark(analysis, () => analysis.reparse([value], level, `${program}'s command`), `the command ${program} runs`);
  if (!entry) return presume(analysis, program, words, 1, tail, level);
  const { row } = entry;
  subcommandWrapper(analysis, program, words, args, tail, level);
  let given = false;
  for (const option of args.options) {
    if ((row.program.includes(option.name) || row.program.includes(option.spelling)) && option.value) {
      runSetting(analysis, option.value, `${program} ${option.spelling}`, level);
      given = true;
    }
  }
  // Options the table does not know to take a value: read from the words (`man -P CMD`).
  if (row.program.length > 0 && !given) programWords(analysis, program, row.program, words, level);
  const runs = runOptions(program, args);
  if (runs.length > 0) programWords(analysis, program, runs, words, level);
  if (effects.runs && effects.runs.length > 0) return;
  const sub = subcommandOf(row, args);
  const kind = sub ? row.subcommands.get(sub.key) : row.kind;
  if (kind?.kind !== "runner" || hasAny(args, words, ["--help", "-h", "--version"])) return;
  runWords(analysis, program, row.runs, words, sub ? words.indexOf(args.operands[sub.key.includes(".") ? 1 : 0] as ShellWord) + 1 : 1, tail, level);
}

/** A program option whose value the option table does not know to take: `--pre CMD`, `--pager=CMD`. */
function programWords(analysis: Analysis, program: string, options: readonly string[], words: ShellWord[], level: number): void {
  for (let i = 1; i < words.length; i++) {
    const text = words[i]?.value;
    if (text === undefined) continue;
    if (text === "--") return;
    const option = options.find((each) => text === each || text.startsWith(`${each}=`) || (/^-[A-Za-z]$/.test(each) && text.startsWith(each) && text.length > 2));
    if (option === undefined) continue;
    const glued = text !== option && !text.startsWith(`${option}=`);
    const value: ShellWord | undefined = text === option ? words[i + 1] : { ...(words[i] as ShellWord), value: text.slice(option.length + (glued ? 0 : 1)), tilde: false };
    if (value) runSetting(analysis, value, `${program} ${option}`, level);
  }
}

/** The command a runner runs: from its first operand after `from` (after `--` with `runs after-dash`; each operand a command line with `runs shell-operands`). */
function runWords(analysis: Analysis, program: string, runs: "after-dash" | "shell-operands" | undefined, words: ShellWord[], from: number, tail: boolean, level: number): void {
  if (runs === "shell-operands") {
    for (const word of words.slice(from)) if (!(word.value?.startsWith("-") ?? false)) analysis.reparse([word], level, program);
    return;
  }
  let start = from;
  if (runs === "after-dash") {
    const dash = words.findIndex((word, index) => index >= from && word.value === "--");
    // Without `--` the command is somewhere in its words: each that names a program is judged.
    if (dash === -1) return presume(analysis, program, words, from, tail, level, true);
    start = dash + 1;
  } else {
    while (start < words.length && /^(-|[A-Za-z_][A-Za-z0-9_]*=)/.test(words[start]?.value ?? "-")) start += 1;
  }
  if (start < words.length) mark(analysis, () => analysis.resolve(words.slice(start), tail, level, undefined, undefined), `the command ${program} runs`);
  presume(analysis, program, words, start + 1, tail, level, true);
}

/**
 * An unknown program may run its arguments: each argument that names a program (the inventory
 * knows it, or a rule names it) is judged as the command it would be.
 */
function presume(analysis: Analysis, program: string, words: ShellWord[], from: number, tail: boolean, level: number, known = false): void {
  let judged = 0;
  for (let i = from; i < words.length && judged < MAX_PRESUMED; i++) {
    const value = words[i]?.value;
    if (value === undefined || value.startsWith("-") || /^[A-Za-z_][A-Za-z0-9_]*=/.test(value)) continue;
    if (!analysis.namesProgram(basename(value))) continue;
    judged += 1;
    const why = known ? `an argument of ${program} that names a program (it may run it)` : `an argument of ${program}, which the inventory does not know: it may run it`;
    mark(analysis, () => analysis.resolve(words.slice(i), tail, level, undefined, undefined), why);
  }
}

/** Runs `step` and says why the first command it added is judged. */
function mark(analysis: Analysis, step: () => void, why: string): void {
  const start = analysis.size;
  step();
  const first = analysis.partsFrom(start).find((part): part is ShellCommandPart => part.kind === "command");
  if (first && first.via === undefined) first.via = why;
}

/** A subcommand that runs a command of its own (`docker exec C CMD`, `kubectl exec P -- CMD`, `ip netns exec NS CMD`): the command is judged. */
function subcommandWrapper(analysis: Analysis, program: string, words: ShellWord[], args: ParsedArguments, tail: boolean, level: number): void {
  const table = SUB_WRAPPERS[program];
  if (!table) return;
  const [first, second] = args.operands;
  const two = first?.value !== undefined && second?.value !== undefined ? `${first.value}.${second.value}` : undefined;
  const key = two !== undefined && Object.hasOwn(table, two) ? two : first?.value !== undefined && Object.hasOwn(table, first.value) ? first.value : undefined;
  if (key === undefined) return;
  const spec = table[key] as SubWrapperSpec;
  const at = words.indexOf((key === two ? second : first) as ShellWord);
  if (at === -1) return;
  const what = `${program} ${key.replace(".", " ")}`;
  if (spec.afterDash || spec.commandAfter) return commandAfter(analysis, what, spec, words.slice(at + 1), tail, level);
  const head: ShellWord = { text: what, value: program, splits: false, tilde: false };
  mark(analysis, () => resolveWrapper(analysis, what, spec, [head, ...words.slice(at + 1)], tail, level, undefined, undefined, true), `the command ${what} runs`);
}

/** The command after `--`, after an option that takes the rest (`nix develop -c`), and in a command-line option's value (`vagrant ssh -c`). */
function commandAfter(analysis: Analysis, what: string, spec: SubWrapperSpec, rest: ShellWord[], tail: boolean, level: number): void {
  for (let i = 0; i < rest.length; i++) {
    const text = rest[i]?.value;
    if (text === undefined) continue;
    if (text === "--") return mark(analysis, () => analysis.resolve(rest.slice(i + 1), tail, level, undefined, undefined), `the command ${what} runs`);
    if (spec.commandAfter?.includes(text)) return mark(analysis, () => analysis.resolve(rest.slice(i + 1), tail, level, undefined, undefined), `the command ${what} runs`);
    for (const option of spec.commandString ?? []) {
      if (text === option && rest[i + 1]) analysis.reparse([rest[i + 1] as ShellWord], level, `${what} ${option}`);
      else if (option.startsWith("--") && text.startsWith(`${option}=`)) analysis.reparse([{ ...(rest[i] as ShellWord), value: text.slice(option.length + 1) }], level, `${what} ${option}`);
    }
  }
}
