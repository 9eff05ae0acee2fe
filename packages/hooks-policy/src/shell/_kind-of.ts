import type { ParsedArguments } from "./_options.js";
import type { ShellWord } from "./_words.js";
import type { InventoryEntry } from "../inventory/_inventory.js";
import { graver, type KindRole, kindText } from "../inventory/_kinds.js";
import type { ProgramRow } from "../inventory/_row.js";

/** A program's kind for one command line, and the words that say why (`git push` → `network:publisher`). */
export interface RowKind {
  kind: KindRole;
  /** What of the command decided it: `git push`, `curl --data`, `sed -f`. */
  by: string;
}

/** The subcommand a command line names, as the row's `sub` knows it (`pr.create`, `*.delete`, `run`, `*`). */
export function subcommandOf(row: ProgramRow, args: ParsedArguments): { key: string; words: string } | undefined {
  if (row.subcommands.size === 0) return undefined;
  const [first, second] = args.operands.map((operand) => operand.value);
  // A key that is an option (`brew --prefix`) names a call of the option alone (`rowKind`), not an operand after `--`.
  if (first === undefined || first.startsWith("-")) return undefined;
  const keys = second === undefined ? [first, "*"] : [`${first}.${second}`, `*.${second}`, first, "*"];
  const key = keys.find((each) => row.subcommands.has(each));
  if (key === undefined) return undefined;
  return { key, words: key === first || key === "*" ? first : `${first} ${second}` };
}

/** Whether the command line has one of the options (by name or spelling), with the value when one is asked for. */
export function hasAny(args: ParsedArguments, words: readonly ShellWord[], options: readonly string[], value?: string): boolean {
  const wanted = value?.toLowerCase();
  for (const option of args.options) {
    if (!options.includes(option.name) && !options.includes(option.spelling)) continue;
    if (wanted === undefined || option.value?.value?.toLowerCase() === wanted) return true;
  }
  // Options the table does not know take no value: look at the words themselves (`--method POST`, `--method=POST`).
  for (let i = 1; i < words.length; i++) {
    const text = words[i]?.value;
    if (text === undefined) continue;
    if (text === "--") break;
    for (const option of options) {
      if (text === option && (wanted === undefined || words[i + 1]?.value?.toLowerCase() === wanted)) return true;
      if (text.startsWith(`${option}=`) && (wanted === undefined || text.slice(option.length + 1).toLowerCase() === wanted)) return true;
    }
  }
  return false;
}

/** The kind the inventory gives a command: its row's, its subcommand's, or what its options make it. */
export function rowKind(entry: InventoryEntry, args: ParsedArguments, words: readonly ShellWord[]): RowKind {
  const { row, name } = entry;
  // `X --version`, `X --help`: it prints and does nothing else.
  if (words.length === 2 && /^(--version|-V|--help|-h)$/.test(words[1]?.value ?? "")) return { kind: { kind: "read-only" }, by: `${name} ${words[1]?.value}` };
  // A toolchain's information options alone (`dotnet --info`, `php -v`, `brew --prefix`): the row's `sub` names them.
  const alone = optionAlone(row, words);
  if (alone) return { kind: alone, by: `${name} ${words[1]?.value}` };
  let result: RowKind = { kind: row.kind, by: name };
  const sub = subcommandOf(row, args);
  if (sub) result = { kind: row.subcommands.get(sub.key) as KindRole, by: `${name} ${sub.words}` };
  let when: RowKind | undefined;
  for (const each of row.when) {
    if (!hasAny(args, words, each.options, each.value)) continue;
    const by = `${name} ${each.options[each.options.length - 1]}${each.value ? ` ${each.value}` : ""}`;
    when = when === undefined || graver(when.kind, each.kind) === each.kind ? { kind: each.kind, by } : when;
  }
  if (when) result = when;
  // A build's goals run one after the other: one that publishes makes the whole line publish.
  for (const goal of row.goals) {
    const operand = args.operands.find((each) => each.value !== undefined && (goal.name.endsWith("*") ? each.value.startsWith(goal.name.slice(0, -1)) : each.value === goal.name));
    if (operand && graver(result.kind, goal.kind) === goal.kind) result = { kind: goal.kind, by: `${name} ${operand.value}` };
  }
  if (row.script.length > 0 && hasAny(args, words, row.script)) {
    const script: RowKind = { kind: { kind: "runs-code", role: "interpreter" }, by: `${name} ${row.script[row.script.length - 1]} (a script the policy does not read)` };
    result = graver(result.kind, script.kind) === script.kind ? script : result;
  }
  return result;
}

export { kindText };

/** The kind the row's `sub` gives an option that is the command's only word (`dotnet --list-sdks`); undefined otherwise. */
export function optionAlone(row: ProgramRow, words: readonly ShellWord[]): KindRole | undefined {
  const only = words.length === 2 ? words[1]?.value : undefined;
  return only !== undefined && only.startsWith("-") ? row.subcommands.get(only) : undefined;
}
