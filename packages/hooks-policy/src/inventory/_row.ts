import { type KindRole, kindText, parseKind } from "./_kinds.js";

/**
 * One row of the inventory: what a program is, and what of its command line changes that.
 *
 * Written as text (in `_programs.ts`, the README's table and a policy's `programs`):
 * `KIND[:ROLE]` then clauses separated by ` | `:
 * - `program -c,--command`: options whose value is a command line it runs (judged as a command);
 * - `script -f,--file`: options whose value is a script file it runs (which the policy cannot read);
 * - `reads -f,--file` / `writes -o,--output`: options whose value is a file it reads / writes;
 * - `operands none|after-first [OPTIONS]`: its operands name no file, or the first does not (a
 *   pattern, a filter), unless one of the options gives that instead (`grep -e PATTERN FILE`);
 * - `patterns -e,--regexp`: options whose value is a pattern, not a file;
 * - `writes-operands all|first|second|last`: the operands it writes;
 * - `sub NAMES=KIND[:ROLE] …`: subcommands (`pr.create` for two words, `*.delete` for a second word
 *   after any first, `*` for any other) and their kinds (`unknown` too: a git alias may run anything);
 * - `when OPTIONS[:VALUE]=KIND[:ROLE] …`: options that change the kind (`-T,--upload-file=network:uploader`);
 * - `goals NAMES=KIND[:ROLE] …`: operands anywhere on the line that change the kind, for builds run
 *   goal after goal (`mvn clean verify deploy`); a name ending in `*` is a prefix (`publish*`);
 * - `runs after-dash|shell-operands`: a runner's command is after `--`, or each operand is a command line.
 */
export interface ProgramRow {
  kind: KindRole;
  program: readonly string[];
  script: readonly string[];
  reads: readonly string[];
  writes: readonly string[];
  operands: "files" | "none" | "after-first";
  /** With `after-first`: options that take the first operand's place (then every operand is a file). */
  operandsUnless: readonly string[];
  patterns: readonly string[];
  writesOperands?: "all" | "first" | "second" | "last";
  subcommands: ReadonlyMap<string, KindRole>;
  when: ReadonlyArray<{ options: readonly string[]; value?: string; kind: KindRole }>;
  /** Operands, wherever they are, that change the kind (a build's goals or tasks). */
  goals: ReadonlyArray<{ name: string; kind: KindRole }>;
  runs?: "after-dash" | "shell-operands";
  /** The row as written. */
  text: string;
}

/** A row that does not follow the grammar: what is wrong with it. */
export class RowError extends Error {}

const OPTION_LIST = /^[-+][^\s,]*(,[-+][^\s,]*)*$/;

/** Reads a row; throws a `RowError` saying what is wrong. */
export function parseRow(text: string): ProgramRow {
  const [head, ...clauses] = text.split(" | ").map((part) => part.trim());
  const kind = parseKind(head ?? "");
  if (!kind) throw new RowError(`"${head}" is not a kind (or kind:role)`);
  const row = { kind, program: [] as string[], script: [] as string[], reads: [] as string[], writes: [] as string[], patterns: [] as string[], operands: "files", operandsUnless: [] as string[], subcommands: new Map(), when: [], goals: [], text } as {
    -readonly [K in keyof ProgramRow]: ProgramRow[K];
  };
  for (const clause of clauses) readClause(row, clause);
  return row;
}

function readClause(row: { -readonly [K in keyof ProgramRow]: ProgramRow[K] }, clause: string): void {
  const space = clause.indexOf(" ");
  const word = space === -1 ? clause : clause.slice(0, space);
  const rest = space === -1 ? "" : clause.slice(space + 1).trim();
  switch (word) {
    case "program":
    case "script":
    case "reads":
    case "writes":
    case "patterns":
      if (!OPTION_LIST.test(rest)) throw new RowError(`"${clause}": ${word} takes options, as -c,--command`);
      row[word] = [...row[word], ...rest.split(",")];
      return;
    case "operands": {
      const [which, unless, extra] = rest.split(" ");
      if ((which !== "none" && which !== "after-first" && which !== "files") || extra !== undefined || (unless !== undefined && (which !== "after-first" || !OPTION_LIST.test(unless)))) {
        throw new RowError(`"${clause}": operands is none, files or after-first (then, optionally, the options that take the first operand's place)`);
      }
      row.operands = which;
      row.operandsUnless = unless?.split(",") ?? [];
      return;
    }
    case "writes-operands":
      if (rest !== "all" && rest !== "first" && rest !== "last" && rest !== "second") throw new RowError(`"${clause}": writes-operands is all, first, second or last`);
      row.writesOperands = rest;
      return;
    case "runs":
      if (rest !== "after-dash" && rest !== "shell-operands") throw new RowError(`"${clause}": runs is after-dash or shell-operands`);
      row.runs = rest;
      return;
    case "sub": {
      const subcommands = new Map(row.subcommands);
      for (const [names, kind] of entries(clause, rest, true)) for (const name of names.split(",")) subcommands.set(name, kind);
      row.subcommands = subcommands;
      return;
    }
    case "goals":
      row.goals = [...row.goals, ...entries(clause, rest).flatMap(([names, kind]) => names.split(",").map((name) => ({ name, kind })))];
      return;
    case "when":
      row.when = [...row.when, ...entries(clause, rest).map(([spec, kind]) => whenOf(clause, spec, kind))];
      return;
    default:
      throw new RowError(`"${clause}" is not a clause (program, script, reads, writes, patterns, operands, writes-operands, sub, when, goals, runs)`);
  }
}

function entries(clause: string, rest: string, unknown = false): Array<[string, KindRole]> {
  if (rest === "") throw new RowError(`"${clause}" names nothing`);
  return rest.split(/\s+/).map((entry) => {
    const eq = entry.lastIndexOf("=");
    const kind = eq === -1 ? undefined : parseKind(entry.slice(eq + 1), unknown);
    if (eq <= 0 || !kind) throw new RowError(`"${entry}" in "${clause}" is not NAMES=KIND[:ROLE]`);
    return [entry.slice(0, eq), kind];
  });
}

function whenOf(clause: string, spec: string, kind: KindRole): { options: string[]; value?: string; kind: KindRole } {
  const colon = spec.indexOf(":");
  const options = colon === -1 ? spec : spec.slice(0, colon);
  if (!OPTION_LIST.test(options)) throw new RowError(`"${spec}" in "${clause}" is not OPTIONS[:VALUE]`);
  return { options: options.split(","), ...(colon !== -1 && { value: spec.slice(colon + 1) }), kind };
}

/** Every word of a row as written, for the README's table (`kind`, options, subcommands). */
export function rowWords(row: ProgramRow): string[] {
  return [kindText(row.kind), ...row.text.split(" | ").slice(1).flatMap((clause) => clause.split(/[\s,=]+/))].filter((word) => word !== "");
}
