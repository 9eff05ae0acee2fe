import { OPTION_TABLE_ALIASES, OPTION_TABLE_SPECS, type OptionTableSpec } from "../inventory/_option-tables.js";
import type { ShellWord } from "./_words.js";

/**
 * Option tables: how a program's options are spelled, so that `rm -rf`, `rm -r -f`,
 * `rm --force --recursive` and `rm x -fR` read as the same two options. Each table is a list of
 * groups, one per option: its spellings separated by `,`; `=` after the group means it takes a
 * value (`-o F`, `-oF`, `--output F`, `--output=F`), `=!` a value after which the rest are the
 * program's arguments (`python -c CODE -x`), `?` an optional value (only `--x=v` or glued
 * `-iSUFFIX`), `#` an optional glued number (`perl -l0`); `>a+b` after a short spelling means it is the same as options a and b (`git branch
 * -D` is `--delete --force`). An option's name is its first long spelling, else its first.
 */
interface OptionSpec {
  /** The option's name: its first long spelling, else its first. */
  name: string;
  value: "none" | "required" | "optional" | "digits";
  /** Options it stands for (`-D` → `--delete`, `--force`). */
  expands?: string[];
  /** The words after its value are the program's arguments, not options (`python -c CODE -x`). */
  terminal?: boolean;
}

export interface OptionTable {
  /** By spelling: `-r`, `--recursive`. */
  readonly bySpelling: ReadonlyMap<string, OptionSpec>;
  /** `-name`, `-delete`: single-dash words are whole options (find). */
  readonly singleDashLong: boolean;
  /** Options stop at the first operand (interpreters, git's global options, wrappers). */
  readonly stopAtOperand: boolean;
  /** Subcommand tables, by the first operand (git push, git branch). */
  readonly subcommands?: ReadonlyMap<string, OptionTable>;
  /** `+toolchain` words before the subcommand are not operands (cargo +nightly). */
  readonly plusWords?: boolean;
  /** A first word of letters without a dash is a bundle of short options (`tar xzf`). */
  readonly bundledFirst?: boolean;
  /** Every option of the program is in the table: one it does not list is `unknown` in the result. */
  readonly closed?: boolean;
  /** Long options only as written, no unique prefixes (git's own options). */
  readonly exactLong?: boolean;
  /** Options followed by a command that ends at `;` or `+` (find's `-exec`). */
  readonly commandUntil?: readonly string[];
}

/**
 * A table from its spec, read when first consulted: a policy's start reads only the tables of the
 * programs its calls run (reading them all was ~3 ms of every hook's start).
 */
function table(written: OptionTableSpec): OptionTable {
  let bySpelling: ReadonlyMap<string, OptionSpec> | undefined;
  const { spec, subcommands, ...extra } = written;
  return {
    get bySpelling() {
      bySpelling ??= spellingsOf(spec);
      return bySpelling;
    },
    singleDashLong: false,
    stopAtOperand: false,
    ...extra,
    ...(subcommands && { subcommands: new Map(Object.entries(subcommands).map(([name, each]) => [name, table({ spec: each })])) }),
  };
}

/** Programs whose options the policy knows. Programs not listed get their combined short flags split. */
export const OPTION_TABLES: ReadonlyMap<string, OptionTable> = tablesOf();

function tablesOf(): Map<string, OptionTable> {
  const tables = new Map(OPTION_TABLE_SPECS.map(([name, spec]) => [name, table(spec)]));
  for (const [alias, of] of OPTION_TABLE_ALIASES) {
    const found = tables.get(of);
    if (found) tables.set(alias, found);
  }
  return tables;
}

function spellingsOf(spec: string): Map<string, OptionSpec> {
  const bySpelling = new Map<string, OptionSpec>();
  for (const group of spec.trim().split(/\s+/)) {
    if (group === "") continue;
    let body = group;
    let expands: string[] | undefined;
    const arrow = body.indexOf(">");
    if (arrow !== -1) {
      expands = body.slice(arrow + 1).split("+");
      body = body.slice(0, arrow);
    }
    let value: OptionSpec["value"] = "none";
    const terminal = body.endsWith("!");
    if (terminal) body = body.slice(0, -1);
    if (body.endsWith("=")) {
      value = "required";
      body = body.slice(0, -1);
    } else if (body.endsWith("?")) {
      value = "optional";
      body = body.slice(0, -1);
    } else if (body.endsWith("#")) {
      value = "digits";
      body = body.slice(0, -1);
    }
    const spellings = body.split(",");
    const name = spellings.find((each) => each.startsWith("--")) ?? (spellings[0] as string);
    const option: OptionSpec = { name, value, ...(expands && { expands }), ...(terminal && { terminal }) };
    for (const spelling of spellings) bySpelling.set(spelling, option);
  }
  return bySpelling;
}

/** The option table of a program (`python3.12` reads as `python3`). */
export function tableOf(program: string): OptionTable | undefined {
  const found = OPTION_TABLES.get(program);
  if (found) return found;
  if (/^(python|pypy)[0-9.]*$/.test(program)) return OPTION_TABLES.get("python3");
  if (/^perl[0-9.]*$/.test(program)) return OPTION_TABLES.get("perl");
  if (/^ruby[0-9.]*$/.test(program)) return OPTION_TABLES.get("ruby");
  if (/^php[0-9.]*$/.test(program)) return OPTION_TABLES.get("php");
  if (/^lua[0-9.]*$/.test(program)) return OPTION_TABLES.get("lua");
  return undefined;
}

/** One option as read from a command: its name, and its value when it takes one. */
export interface ReadOption {
  name: string;
  /** How it was spelled (`-f` of `-rf`). */
  spelling: string;
  /** The value; `undefined` value inside means known only at run time. Absent for flags. */
  value?: ShellWord;
  /** The word it was read from, for explanations. */
  word: ShellWord;
}

/** A command's arguments read with its program's option table. */
export interface ParsedArguments {
  options: ReadOption[];
  /** Operands (subcommand first for git), in order. */
  operands: ShellWord[];
  /** Words known only at run time in option position: they may be any option. */
  dynamic: boolean;
  /** The subcommand whose table read the options after it (git push). */
  subcommand?: string;
  /** Where `--` ended the options: the number of operands before it. */
  separator?: number;
  /** Options a closed table does not list, as spelled (`tree --new-flag`): what they do is not known. */
  unknown?: string[];
}

/**
 * Reads `args` (the words after the program) as options and operands. With a table, options are
 * named by it and their values taken; without one, combined short flags are split (`-rf` is `-r`,
 * `-f`) and `--x=v` carries its value. A word known only at run time is an operand that may also
 * be any option (`dynamic`). `--` ends the options.
 */
export function parseArguments(program: string, args: readonly ShellWord[]): ParsedArguments {
  const result: ParsedArguments = { options: [], operands: [], dynamic: false };
  const root = tableOf(program);
  let current = root;
  let optionsEnded = false;
  for (let i = 0; i < args.length; i++) {
    // An option whose value is a glob (`--include=*.ts`) stays as written: no file is named `--include=…`.
    const given = args[i] as ShellWord;
    const word = given.value === undefined && given.pattern?.startsWith("-") ? { ...given, value: given.pattern } : given;
    const value = word.value;
    if (!optionsEnded && value === "--") {
      optionsEnded = true;
      result.separator = result.operands.length;
      continue;
    }
    if (i === 0 && root?.bundledFirst && value !== undefined && /^[A-Za-z]+$/.test(value)) {
      i += readOption(current, { ...word, value: `-${value}` }, args[i + 1], result.options);
      continue;
    }
    if (optionsEnded || value === undefined || value === "-" || !value.startsWith("-")) {
      if (value === undefined && !optionsEnded) result.dynamic = true;
      if (!optionsEnded && root?.plusWords && value?.startsWith("+") && result.operands.length === 0) continue;
      result.operands.push(word);
      if (current === root && root?.subcommands && result.operands.length === 1) {
        if (value !== undefined) result.subcommand = value;
        current = value === undefined ? undefined : root.subcommands.get(value);
      } else if (current?.stopAtOperand) {
        optionsEnded = true;
      }
      continue;
    }
    const before = result.options.length;
    if (current?.commandUntil?.includes(value)) {
      // `find . -exec echo -delete \; -print`: the command's words (judged as a command) are not find's.
      result.options.push({ name: value, spelling: value, word });
      let j = i + 1;
      while (j < args.length && !(args[j]?.value === ";" || (args[j]?.value === "+" && j > i + 1))) j++;
      i = j;
      continue;
    }
    i += readOption(current, word, args[i + 1], result.options);
    if (result.options.slice(before).some((option) => current?.bySpelling.get(option.spelling)?.terminal)) optionsEnded = true;
    // `head -5`: an old spelling of a count, not an option.
    if (current?.closed && !/^-[0-9]+$/.test(value)) {
      for (const option of result.options.slice(before)) if (!current.bySpelling.has(option.name)) (result.unknown ??= []).push(option.spelling);
    }
  }
  return result;
}

/** Reads one option word (and its value word); returns how many extra words it used (0 or 1). */
function readOption(table: OptionTable | undefined, word: ShellWord, next: ShellWord | undefined, out: ReadOption[]): number {
  const value = word.value as string;
  const push = (spec: OptionSpec | undefined, spelling: string, optionValue?: ShellWord): void => {
    for (const name of spec?.expands ?? [spec?.name ?? spelling]) {
      out.push(optionValue === undefined ? { name, spelling, word } : { name, spelling, value: optionValue, word });
    }
  };
  const whole = (spec: OptionSpec | undefined, spelling: string): number => {
    if (spec?.value === "required") {
      push(spec, spelling, next ?? sub(word, ""));
      return next ? 1 : 0;
    }
    push(spec, spelling);
    return 0;
  };
  if (value.startsWith("--")) {
    const eq = value.indexOf("=");
    const spelling = eq === -1 ? value : value.slice(0, eq);
    const spec = table?.bySpelling.get(spelling) ?? abbreviated(table, spelling, out, word);
    if (eq !== -1) {
      push(spec, spelling, sub(word, value.slice(eq + 1)));
      return 0;
    }
    return whole(spec, spelling);
  }
  if (table?.singleDashLong || (value.length > 2 && table?.bySpelling.has(value))) return whole(table?.bySpelling.get(value), value);
  for (let c = 1; c < value.length; c++) {
    const spelling = `-${value[c]}`;
    const spec = table?.bySpelling.get(spelling);
    if (spec && spec.value !== "none") {
      let attached = value.slice(c + 1);
      if (spec.value === "digits") {
        attached = /^(?:x[0-9a-fA-F]*|[0-9]+)/.exec(attached)?.[0] ?? "";
        push(spec, spelling, attached === "" ? undefined : sub(word, attached));
        c += attached.length;
        continue;
      }
      if (attached.length > 0) {
        push(spec, spelling, sub(word, attached));
        return 0;
      }
      return whole(spec, spelling);
    }
    push(spec, spelling);
  }
  return 0;
}

/**
 * GNU getopt and git take a long option's unique prefix (`--rec` for `--recursive`). The option
 * it abbreviates, or, when the prefix is ambiguous, every option it may be (the program refuses
 * it, but a rule about any of them should not be escaped by it): all but the last are pushed here.
 */
function abbreviated(table: OptionTable | undefined, prefix: string, out: ReadOption[], word: ShellWord): OptionSpec | undefined {
  if (!table || table.exactLong || prefix.length < 3) return undefined;
  const candidates = [...new Set([...table.bySpelling].filter(([spelling]) => spelling.startsWith("--") && spelling.startsWith(prefix)).map(([, spec]) => spec))];
  for (const spec of candidates.slice(0, -1)) for (const name of spec.expands ?? [spec.name]) out.push({ name, spelling: prefix, word });
  return candidates[candidates.length - 1];
}

function sub(word: ShellWord, value: string): ShellWord {
  return { text: word.text, value, splits: false, tilde: value.startsWith("~") };
}

/** The value of the last option of that name, if any. */
export function optionValue(parsed: ParsedArguments, ...names: string[]): ShellWord | undefined {
  let found: ShellWord | undefined;
  for (const option of parsed.options) if (names.includes(option.name) && option.value) found = option.value;
  return found;
}

export function hasOption(parsed: ParsedArguments, ...names: string[]): boolean {
  return parsed.options.some((option) => names.includes(option.name));
}
