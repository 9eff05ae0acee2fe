import type { Command } from "unbash";
import type { WrapperSpec } from "../inventory/_runners.js";
import { type Analysis, SH_WORD } from "./_parts.js";
import { assignment, assignmentOf } from "./_settings.js";
import { resolveShell } from "./_shells.js";
import type { ShellWord } from "./_words.js";
import { runtimeWord, showWord } from "./_words.js";

/** When a wrapper option is not known, at most this many readings of where its program starts are judged. */
const MAX_ALTERNATIVES = 8;

/** A wrapper call being resolved: the analysis, the wrapper's words, and how it was reached. */
interface WrapperCall {
  analysis: Analysis;
  program: string;
  spec: WrapperSpec;
  words: ShellWord[];
  tail: boolean;
  level: number;
  node: Command | undefined;
  /** Why the command is at least ask, from what wraps it or from an option the policy does not know. */
  why: string | undefined;
  options: ReadOptions;
}

/**
 * A program that runs another program given in its arguments (`env`, `sudo`, `timeout`, `xargs`,
 * …): the program it runs is judged, and the wrapper too when it changes who or where it runs, or
 * when one of its options is not known (then each reading of where the program starts is judged).
 */
export function resolveWrapper(
  analysis: Analysis,
  program: string,
  spec: WrapperSpec,
  words: ShellWord[],
  tail: boolean,
  level: number,
  node: Command | undefined,
  uncertain: string | undefined,
  sub = false,
): void {
  const options = readOptions(words, 1, spec);
  const call: WrapperCall = { analysis, program, spec, words, tail, level, node, why: uncertain, options };
  if (options.unknown.length > 0) {
    call.why ??= `${program}'s option ${options.unknown.join(", ")} is not known to the policy, so the program it runs is uncertain`;
  }
  if (spec.own || options.noCommand || options.unknown.length > 0) {
    analysis.push({ kind: "command", words, tail, uncertain: options.unknown.length > 0 ? call.why : uncertain, cdCount: analysis.cds.length });
  }
  for (const [option, value] of options.values) {
    if (spec.commandString?.includes(option)) analysis.reparse([value], level, `${program} ${option}`);
    if (spec.writes?.includes(option)) analysis.push({ kind: "write", path: value, via: `${program} ${option}`, cdCount: analysis.cds.length });
  }
  if (options.noCommand) return;
  const index = commandIndex(call);
  if (index >= words.length) {
    const hasString = options.values.some(([option]) => spec.commandString?.includes(option));
    if (!hasString && (spec.shellWhenEmpty || options.shell)) {
      analysis.unknown(words.map(showWord).join(" "), `${program} starts a shell that reads its commands from standard input`);
    } else if (!spec.own && !sub && options.unknown.length === 0) {
      // Given no program, a wrapper is judged as itself: `env` alone prints the environment.
      analysis.push({ kind: "command", words, tail, uncertain, cdCount: analysis.cds.length });
    }
    return;
  }
  const rest = program === "xargs" ? replaced(analysis, words.slice(index), options) : words.slice(index);
  if (runsItsWay(call, rest)) return;
  analysis.resolve(rest, tail || program === "xargs", level, program === "xargs" ? undefined : node, call.why);
  if (options.unknown.length > 0) {
    for (let alt = index + 1; alt < Math.min(words.length, index + 1 + MAX_ALTERNATIVES); alt++) {
      analysis.resolve(words.slice(alt), tail || program === "xargs", level, undefined, call.why);
    }
  }
}

/** Where the wrapped program starts: after the options, `NAME=value` words (env, sudo) and the wrapper's own operands. */
function commandIndex(call: WrapperCall): number {
  const { spec, words, options, analysis } = call;
  let index = options.index;
  if (spec.assignments) {
    while (index < words.length) {
      const word = words[index] as ShellWord;
      const set = assignmentOf(word);
      if (!set) break;
      assignment(analysis, set.name, set.value, word.text, call.level);
      index += 1;
    }
  }
  index += spec.operands ?? 0;
  if (viaShell(call)) index += call.program === "runuser" ? 1 : 0;
  // `kubectl exec POD -- CMD`, `timeout 5 -- CMD`: a `--` after the operands ends the options.
  if ((spec.operands ?? 0) > 0 && words[index]?.value === "--") index += 1;
  return index;
}

/**
 * `xargs -I{} CMD {}`: a word that is the replace string is known only at run time; in a longer
 * word (`sh -c 'rm {}'`) the input goes in as written, unquoted: read as an expansion there (so that
 * `rm` still meets its rules), and, since the input may be any text, it is code known only at run time.
 */
function replaced(analysis: Analysis, rest: ShellWord[], options: ReadOptions): ShellWord[] {
  const given = options.values.find(([option]) => option === "-I" || option === "--replace")?.[1];
  const marker = given?.value ?? (options.seen.has("-i") || options.seen.has("--replace") ? "{}" : undefined);
  if (given !== undefined && given.value === undefined) return rest.map((word) => runtimeWord(word.text, false));
  if (marker === undefined || marker === "") return rest;
  return rest.map((word) => {
    if (word.value === undefined || !word.value.includes(marker)) return word;
    if (word.value === marker || !/[\s;&|<>$`()]/.test(word.value.replaceAll(marker, ""))) return runtimeWord(word.text, false);
    analysis.unknown(word.text, `xargs -I puts its input into ${word.text} as written, so what that command line runs is known only at run time`);
    return { ...word, value: word.value.replaceAll(marker, "$XARGS_INPUT") };
  });
}

/**
 * A word of parallel's command holding a replacement string (`{}`, `{.}`, `{2}`): alone or in a
 * file name it is known only at run time; in a command line (`bash -c 'rm -rf {}'`) parallel puts
 * the input in quoted, so it is read as a quoted expansion there.
 */
function parallelWord(word: ShellWord): ShellWord {
  const value = word.value;
  if (value === undefined || !/\{[^}\s]*\}/.test(value)) return word;
  if (!/[\s;&|<>$`()]/.test(value.replace(/\{[^}\s]*\}/g, ""))) return runtimeWord(word.text, false);
  return { ...word, value: value.replace(/\{[^}\s]*\}/g, '"$PARALLEL_INPUT"') };
}

/** A joined command line as one word. */
function joined(words: ShellWord[]): ShellWord[] {
  if (words.length <= 1 || words.some((word) => word.value === undefined)) return words;
  const value = words.map((word) => word.value).join(" ");
  return [{ text: value, value, splits: false, tilde: false }];
}

/** `su USER -c …` and `runuser USER -c …` (without `-u`) hand their words to the user's shell. */
function viaShell(call: WrapperCall): boolean {
  return call.program === "su" || (call.program === "runuser" && !call.options.seen.has("-u") && !call.options.seen.has("--user"));
}

/** The wrappers that do not simply run their remaining words: true when the rest was handled here. */
function runsItsWay(call: WrapperCall, rest: ShellWord[]): boolean {
  const { analysis, program, options, spec, words, level, tail } = call;
  if (program === "script") {
    for (const word of rest) analysis.push({ kind: "write", path: word, via: "script", cdCount: analysis.cds.length });
    if (!options.values.some(([option]) => spec.commandString?.includes(option))) {
      analysis.unknown(words.map(showWord).join(" "), "script starts a shell that reads its commands from standard input");
    }
    return true;
  }
  if (program === "parallel") return parallel(call, rest);
  if (program === "sg") {
    // `sg GROUP -c CMD` / `sg GROUP CMD`: the command line goes to /bin/sh -c.
    if (rest[0]?.value === "-c") analysis.reparse(rest.slice(1, 2), level, "sg -c");
    else analysis.reparse(joined(rest), level, "sg");
    return true;
  }
  if (spec.optionsAfterOperands && rest[0]?.value?.startsWith("-")) {
    const more = readOptions([words[0] as ShellWord, ...rest], 1, spec);
    if (more.unknown.length > 0) analysis.unknown(words.map(showWord).join(" "), `${program}'s option ${more.unknown.join(", ")} is not known to the policy, so the program it runs is uncertain`);
    const after = rest.slice(more.index - 1);
    if (after.length === 0) analysis.unknown(words.map(showWord).join(" "), `${program} starts a shell that reads its commands from standard input`);
    else analysis.resolve(after, tail, level, undefined, call.why);
    return true;
  }
  if (watcherOrBatch(call, rest)) return true;
  if (program === "flock" && (rest[0]?.value === "-c" || rest[0]?.value === "--command")) {
    // `flock FILE -c COMMAND`: the command string comes after the lock file.
    analysis.reparse(rest.slice(1, 2), level, "flock -c");
    return true;
  }
  if (program === "watch" && !options.seen.has("-x") && !options.seen.has("--exec")) {
    analysis.reparse(rest, level, "watch");
    return true;
  }
  if (viaShell(call)) {
    // The words after the user go to the user's shell: `su root -c 'cmd'`.
    resolveShell(analysis, [SH_WORD, ...rest], tail, level, undefined, call.why);
    return true;
  }
  return false;
}

/** `parallel CMD ::: ARGS`: the command with each input; with no command, each argument is a command line. */
function parallel(call: WrapperCall, rest: ShellWord[]): boolean {
  const { analysis, words, level } = call;
  const end = rest.findIndex((word) => word.value !== undefined && /^:::/.test(word.value));
  // Its replacement strings (`{}`, `{.}`, `{1}`) are the input, known only at run time.
  const command = (end === -1 ? rest : rest.slice(0, end)).map(parallelWord);
  if (command.length === 0) {
    // With no command, parallel runs each of its arguments as a command line.
    for (let i = end; i < rest.length; i++) {
      const value = rest[i]?.value;
      if (value !== undefined && /^::::/.test(value)) {
        analysis.unknown(words.map(showWord).join(" "), `parallel runs the lines of ${rest[i + 1]?.text ?? "a file"} as commands, which are known only at run time`);
        i += 1;
      } else if (value === undefined || !/^:::/.test(value)) analysis.reparse([rest[i] as ShellWord], level, "parallel (an argument it runs as a command)");
    }
    return true;
  }
  // One word with blanks is a command line; parallel quotes what it puts in for `{}`.
  const line = end === -1 ? rest : rest.slice(0, end);
  const inputs = end === -1 ? undefined : rest.slice(end + 1);
  const literal = inputs !== undefined && inputs.length > 0 && inputs.length <= MAX_ALTERNATIVES && rest[end]?.value === ":::" && inputs.every((word) => word.value !== undefined && !/^:::/.test(word.value));
  if (line.length === 1 && line[0]?.value !== undefined && /[\s;&|<>$`]/.test(line[0].value)) analysis.reparse([{ ...(line[0] as ShellWord), value: line[0].value.replace(/\{[^}\s]*\}/g, '"$PARALLEL_INPUT"') }], level, "parallel");
  // `parallel gzip ::: a b`: each literal argument is added to the command.
  else if (literal && command.every((word, i) => word === line[i])) for (const input of inputs) analysis.resolve([...command, input], false, level, undefined, call.why);
  else analysis.resolve(command, true, level, undefined, call.why);
  return true;
}

/** Watchers (`watchexec`, `entr`) hand their words to a shell or run them; `sbatch` runs a script the policy cannot read. */
function watcherOrBatch(call: WrapperCall, rest: ShellWord[]): boolean {
  const { analysis, program, options, words, level, tail } = call;
  if (program === "watchexec") {
    // Its words, joined, go to a shell (`--shell`, default sh) unless `-n` / `--shell=none`.
    const shell = options.values.find(([option]) => option === "--shell")?.[1];
    if (options.seen.has("-n") || shell?.value === "none") analysis.resolve(rest, tail, level, undefined, call.why);
    else if (shell !== undefined && !/^(sh|bash|dash|zsh)$/.test(shell.value ?? "")) analysis.resolve([shell, { text: "-c", value: "-c", splits: false, tilde: false }, ...joined(rest)], tail, level, undefined, call.why);
    else analysis.reparse(joined(rest), level, "watchexec");
    return true;
  }
  if (program === "entr") {
    // `entr -s 'CMD'` runs its first word through the shell; `/_` is the file that changed.
    if (options.seen.has("-s")) analysis.reparse(rest.slice(0, 1).map((word) => (word.value?.includes("/_") ? runtimeWord(word.text, false) : word)), level, "entr -s");
    else analysis.resolve(rest.map((word) => (word.value === "/_" ? runtimeWord(word.text, false) : word)), tail, level, undefined, call.why);
    return true;
  }
  if (program === "sbatch") {
    // The batch script, or with `--wrap` none: the script is code the policy cannot read.
    if (!options.values.some(([option]) => option === "--wrap")) analysis.unknown(words.map(showWord).join(" "), `sbatch runs the batch script ${rest[0]?.text ?? ""}, which the policy cannot read`);
    return true;
  }
  return false;
}

interface ReadOptions {
  index: number;
  values: Array<[string, ShellWord]>;
  seen: Set<string>;
  unknown: string[];
  noCommand: boolean;
  shell: boolean;
}

/** What a wrapper's spec says of one of its options. */
interface OptionKnowledge {
  takesValue(option: string): boolean;
  known(option: string): boolean;
  note(option: string): void;
}

function knowledgeOf(spec: WrapperSpec, result: ReadOptions): OptionKnowledge {
  const takesValue = (option: string): boolean =>
    (spec.values?.includes(option) ?? false) || (spec.commandString?.includes(option) ?? false) || (spec.writes?.includes(option) ?? false);
  return {
    takesValue,
    known: (option) =>
      takesValue(option) || (spec.flags?.includes(option) ?? false) || (spec.noCommand?.includes(option) ?? false) || (spec.shell?.includes(option) ?? false),
    note(option) {
      result.seen.add(option);
      if (spec.noCommand?.includes(option)) result.noCommand = true;
      if (spec.shell?.includes(option)) result.shell = true;
    },
  };
}

/** Reads a wrapper's options from `words[start]` on, up to its first operand. */
function readOptions(words: ShellWord[], start: number, spec: WrapperSpec): ReadOptions {
  const result: ReadOptions = { index: start, values: [], seen: new Set(), unknown: [], noCommand: false, shell: false };
  const knowledge = knowledgeOf(spec, result);
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
    if (value === "-" && knowledge.known("-")) {
      knowledge.note("-");
      i += 1;
      continue;
    }
    if (!value.startsWith("-") || value === "-") break;
    if (spec.digitOptions && /^-\d+$/.test(value)) i += 1;
    else if (value.startsWith("--")) i += readLongOption(words, i, knowledge, result);
    else i += readShortOptions(words, i, knowledge, result);
  }
  result.index = i;
  return result;
}

/** `--opt`, `--opt=value` or `--opt value`; how many words it took. */
function readLongOption(words: ShellWord[], i: number, knowledge: OptionKnowledge, result: ReadOptions): number {
  const word = words[i] as ShellWord;
  const value = word.value as string;
  const eq = value.indexOf("=");
  const option = eq === -1 ? value : value.slice(0, eq);
  if (eq !== -1) {
    if (!knowledge.known(option)) result.unknown.push(option);
    knowledge.note(option);
    if (knowledge.takesValue(option)) result.values.push([option, { ...word, value: value.slice(eq + 1), tilde: value[eq + 1] === "~" }]);
    return 1;
  }
  knowledge.note(option);
  if (knowledge.takesValue(option)) {
    const next = words[i + 1];
    if (next) result.values.push([option, next]);
    return 2;
  }
  if (!knowledge.known(option)) result.unknown.push(option);
  return 1;
}

/** `-a`, `-abc`, `-uVALUE`, `-u VALUE`; how many words it took. */
function readShortOptions(words: ShellWord[], i: number, knowledge: OptionKnowledge, result: ReadOptions): number {
  const word = words[i] as ShellWord;
  const value = word.value as string;
  if (knowledge.known(value) && !knowledge.takesValue(value)) {
    knowledge.note(value);
    return 1;
  }
  for (let c = 1; c < value.length; c++) {
    const option = `-${value[c]}`;
    knowledge.note(option);
    if (knowledge.takesValue(option)) {
      const attached = value.slice(c + 1);
      if (attached.length > 0) {
        result.values.push([option, { ...word, value: attached, tilde: attached.startsWith("~") }]);
        return 1;
      }
      const next = words[i + 1];
      if (next) result.values.push([option, next]);
      return 2;
    }
    if (!knowledge.known(option)) result.unknown.push(option);
  }
  return 1;
}
