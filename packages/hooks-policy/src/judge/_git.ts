import { existsSync } from "node:fs";
import { resolve } from "node:path";
import type { KindRole } from "../inventory/_kinds.js";
import { type ParsedArguments, parseArguments, type ReadOption, tableOf } from "../shell/_options.js";
import type { ShellWord } from "../shell/_words.js";

/*
 * git's subcommands that can lose what git cannot bring back, by their options and operands as git
 * reads them (`git help <cmd>`, `git <cmd> --git-completion-helper-all`): uncommitted changes
 * (`checkout` with paths or `-f`, `restore` of the working tree, `reset --hard`, `clean` without
 * `-n`, `rm -f`), other worktrees (`worktree remove`), refs and their reflogs (`update-ref -d`),
 * the history kept for undoing (`reflog expire`, `gc --prune=now`, `prune`, `repack -a -d`), and
 * commits a rebase rewrites. Their harmless spellings (`reset` that unstages, `restore --staged`,
 * `clean -n`, a branch switch) stay what the row says. An option the table does not know for one
 * of these subcommands is not guessed at: a newer git's may discard changes.
 */

/** What one git command line loses, or why it cannot be told; undefined when nothing. */
export interface GitJudgment {
  kind: KindRole;
  why: string;
}

/** Discards uncommitted changes or history (asked by `recommended`, allowed by `workspace` as any write). */
export const DISCARDS: KindRole = { kind: "writes", role: "discards" };

/** The subcommands judged here (the others are the row's). */
const JUDGED = new Set(["checkout", "switch", "restore", "reset", "clean", "rebase", "stash", "worktree", "update-ref", "symbolic-ref", "reflog", "gc", "prune", "repack", "rm", "mv", "read-tree"]);

/** `-c` settings that make git expire its history sooner (gc runs on its own after many commands: `gc.auto`). */
const EXPIRY_KEYS = /^(gc\.(.*\.)?(pruneexpire|reflogexpire|reflogexpireunreachable|worktreepruneexpire|rerereresolved|rerereunresolved)|gc\.auto|gc\.autopacklimit|core\.logallrefupdates)$/;

/** What the git command `words` (git first) loses; undefined when it loses nothing the row does not say. */
export function gitJudgment(words: readonly ShellWord[], args: ParsedArguments, cwd: string | undefined): GitJudgment | undefined {
  const at = words.findIndex((word, index) => index > 0 && word === args.operands[0]);
  const global = args.options.filter((option) => at === -1 || words.indexOf(option.word) < at);
  const expiry = expirySetting(global);
  if (expiry !== undefined) return { kind: DISCARDS, why: `git -c ${expiry} makes git expire the history it keeps for undoing (reflog, unreachable commits) sooner` };
  const sub = args.subcommand;
  if (sub === undefined || !JUDGED.has(sub)) return undefined;
  const own = args.options.filter((option) => at === -1 || words.indexOf(option.word) > at);
  // `git reset --hard --help`: the usage (or the manual) and nothing else.
  if (own.some((option) => option.word.value === "--help" || option.word.value === "-h")) return { kind: { kind: "read-only" }, why: `git ${sub} --help prints its usage or manual and does nothing else` };
  const verdict = subcommandJudgment(sub, args, own, cwd);
  if (verdict?.kind === DISCARDS) return verdict;
  // `reflog show`, `stash show` and `stash list` take log and diff options: only their actions that discard are read so closely.
  const action = args.operands[1]?.value;
  if ((sub === "reflog" && !/^(expire|delete)$/.test(action ?? "")) || (sub === "stash" && !/^(drop|clear|pop|apply|push|save|branch)$/.test(action ?? "")) || (sub === "worktree" && action !== "remove")) return verdict;
  const unknown = unknownOption(sub, own);
  if (unknown !== undefined) {
    return { kind: { kind: "unknown" }, why: `the inventory does not know the option ${unknown} of git ${sub} (git refuses options it does not have, and a newer git's may discard changes): a rule naming the command allows it` };
  }
  return verdict;
}

function subcommandJudgment(sub: string, args: ParsedArguments, own: readonly ReadOption[], cwd: string | undefined): GitJudgment | undefined {
  const operands = args.operands.slice(1);
  const on = (name: string) => flagOn(own, name, sub);
  const shown = `git ${sub}`;
  switch (sub) {
    case "checkout": {
      if (on("--force")) return discards(`${shown} -f throws away the uncommitted changes of every file it switches`);
      if (on("--patch")) return discards(`${shown} -p discards the changes it is told to, hunk by hunk`);
      const paths = checkoutPaths(args, operands, own, cwd);
      if (paths !== undefined) return discards(`${shown} ${paths} overwrites those files with another version: their uncommitted changes are lost`);
      return undefined;
    }
    case "switch":
      return on("--force") ? discards(`${shown} -f (--discard-changes) throws away the uncommitted changes of every file it switches`) : undefined;
    case "restore":
      if (on("--worktree") || !on("--staged")) return discards(`${shown} without --staged (or with --worktree) overwrites the working tree's files: their uncommitted changes are lost`);
      return undefined;
    case "reset": {
      const mode = ["--hard", "--merge", "--keep"].find(on);
      return mode ? discards(`${shown} ${mode} overwrites the index and the working tree: uncommitted changes are lost`) : undefined;
    }
    case "clean":
      return on("--dry-run") ? { kind: { kind: "read-only" }, why: `${shown} -n only lists what it would remove` } : discards(`${shown} deletes the untracked files (-x: the ignored ones too), which git has no copy of`);
    case "rebase": {
      const resumes = own.length > 0 && own.every((option) => /^--(continue|abort|quit|show-current-patch)$/.test(option.name));
      return resumes ? undefined : discards(`${shown} rewrites the branch's commits: the old ones stay only in the reflog`);
    }
    case "stash":
      return /^(drop|clear)$/.test(operands[0]?.value ?? "") ? discards(`${shown} ${operands[0]?.value} deletes stashed changes`) : operands[0]?.value === undefined && operands.length > 0 ? unsure(shown) : undefined;
    case "worktree":
      if (operands[0]?.value === undefined && operands.length > 0) return unsure(shown);
      return operands[0]?.value === "remove" ? discards(`${shown} remove deletes the worktree's folder and its files${on("--force") ? ", changed or not (-f)" : ""}`) : undefined;
    case "rm":
      return on("--force") && !on("--cached") && !on("--dry-run") ? discards(`${shown} -f deletes the files with their uncommitted changes`) : undefined;
    case "mv":
      return on("--force") && !on("--dry-run") ? discards(`${shown} -f overwrites a destination that exists`) : undefined;
    case "read-tree":
      return on("-u") && !on("--dry-run") ? discards(`${shown} -u overwrites the working tree's files with the tree it reads`) : undefined;
    default:
      return historyJudgment(sub, operands, own, on, shown);
  }
}

/** The subcommands that delete refs, reflog entries or objects: what git could otherwise bring back. */
function historyJudgment(sub: string, operands: ParsedArguments["operands"], own: readonly ReadOption[], on: (name: string) => boolean, shown: string): GitJudgment | undefined {
  switch (sub) {
    case "update-ref": {
      if (on("-d")) return discards(`${shown} -d deletes the ref and its reflog`);
      if (on("--stdin")) return discards(`${shown} --stdin runs the ref updates and deletions of its input`);
      if (operands.length < 2) return undefined;
      const value = operands[1]?.value;
      return value === undefined || /^0+$/.test(value) ? discards(`${shown} with ${value === undefined ? "a new value known only at run time" : "a zero value"} may delete the ref`) : undefined;
    }
    case "symbolic-ref":
      return on("--delete") ? discards(`${shown} -d deletes the symbolic ref`) : undefined;
    case "reflog": {
      const action = operands[0]?.value;
      if (action === undefined && operands.length > 0) return unsure(shown);
      if ((action === "expire" || action === "delete") && !on("--dry-run")) return discards(`${shown} ${action} deletes reflog entries: what they kept can no longer be brought back`);
      return undefined;
    }
    case "gc": {
      const prune = lastValue(own, "--prune");
      if (prune !== null && prune !== "" && prune !== "never") {
        return discards(`${shown} --prune=${prune ?? "…"} deletes unreachable commits sooner than git's two weeks`);
      }
      return undefined;
    }
    case "prune":
      return on("--dry-run") ? { kind: { kind: "read-only" }, why: `${shown} -n only lists what it would remove` } : discards(`${shown} deletes every unreachable object: commits only the reflog or a lost stash kept`);
    case "repack":
      if (on("--cruft-expiration") || (on("-a") && on("-d") && !on("-A") && !on("--keep-unreachable") && !on("--cruft"))) return discards(`${shown} -a -d drops the unreachable objects of the packs it replaces`);
      return undefined;
    default:
      return undefined;
  }
}

function discards(why: string): GitJudgment {
  return { kind: DISCARDS, why };
}

function unsure(shown: string): GitJudgment {
  return { kind: DISCARDS, why: `${shown}'s action is known only at run time, and may discard changes or history` };
}

/** A `-c` setting of when git expires its history (`gc.pruneExpire=now`). */
function expirySetting(global: readonly ReadOption[]): string | undefined {
  for (const option of global) {
    // A setting known only at run time asks already (shell/_effects.ts).
    const key = option.name === "-c" ? option.value?.value?.split("=")[0]?.toLowerCase() : undefined;
    if (key !== undefined && EXPIRY_KEYS.test(key)) return option.value?.value;
  }
  return undefined;
}

/**
 * Whether a flag is on at the end: its last spelling wins over `--no-…` (`clean -n --no-dry-run`
 * removes). An option whose short spelling takes an optional glued value (`-tf`: `--track=f` for
 * git 2.39, `-t -f` for older ones) counts its glued letters as flags too.
 */
function flagOn(options: readonly ReadOption[], name: string, sub: string): boolean {
  const table = subTable(sub);
  const letters = [...(table?.bySpelling ?? [])].filter(([spelling, spec]) => spec.name === name && /^-[^-]$/.test(spelling)).map(([spelling]) => spelling.slice(1));
  let on = false;
  for (const option of options) {
    if (option.name === name) on = true;
    else if (negates(option.spelling, name)) on = false;
    else if (glued(option, table) && letters.some((letter) => option.value?.value?.includes(letter))) on = true;
  }
  return on;
}

/** A short option of an optional value with letters glued to it that are not one of its values (`-tf`). */
function glued(option: ReadOption, table: ReturnType<typeof subTable>): boolean {
  const value = option.value?.value;
  if (value === undefined || !/^-[^-]$/.test(option.spelling) || table?.bySpelling.get(option.spelling)?.value !== "optional") return false;
  return option.word.value !== undefined && option.word.value.includes(`${option.spelling.slice(1)}${value}`) && !/^(direct|inherit)$/.test(value);
}

function subTable(sub: string) {
  return tableOf("git")?.subcommands?.get(sub);
}

/** `--no-force` (or its unique prefix `--no-forc`) turns `--force` off. */
function negates(spelling: string, name: string): boolean {
  return spelling.startsWith("--no-") && spelling.length > 5 && name.startsWith(`--${spelling.slice(5)}`);
}

/** The value of the last `name` given (`""` when given without one), or null when not given or negated. */
function lastValue(options: readonly ReadOption[], name: string): string | undefined | null {
  let value: string | undefined | null = null;
  for (const option of options) {
    if (option.name === name) value = option.value === undefined ? "" : option.value.value;
    else if (negates(option.spelling, name)) value = null;
  }
  return value;
}

/** The first option of `sub` the table does not know (nor as `--no-…`), as written. */
function unknownOption(sub: string, options: readonly ReadOption[]): string | undefined {
  const table = subTable(sub);
  if (!table) return undefined;
  for (const option of options) {
    if (table.bySpelling.has(option.spelling) || table.bySpelling.has(option.name)) continue;
    if (option.spelling.startsWith("--no-") && [...table.bySpelling.keys()].some((spelling) => negates(option.spelling, spelling) || spelling.startsWith(`--${option.spelling.slice(5)}`))) continue;
    return option.word.value ?? option.word.text;
  }
  return undefined;
}

/**
 * What of `git checkout`'s operands are paths it overwrites: after `--`, from `--pathspec-from-file`,
 * every operand after the first, or a first that may be a file rather than a branch (one that
 * exists, a glob, `.`, pathspec magic, or one known only at run time); undefined for a branch switch.
 */
function checkoutPaths(args: ParsedArguments, operands: readonly ShellWord[], own: readonly ReadOption[], cwd: string | undefined): string | undefined {
  if (own.some((option) => option.name === "--pathspec-from-file")) return "--pathspec-from-file";
  // `args.separator` counts the subcommand among the operands.
  if (args.separator !== undefined && args.separator >= 1 && operands.length >= args.separator) return `-- ${operands.slice(args.separator - 1).map((each) => each.text).join(" ")}`.trim();
  if (operands.length >= 2) return operands.slice(1).map((each) => each.text).join(" ");
  const only = operands[0];
  if (only === undefined) return undefined;
  const value = only.value;
  if (value === undefined) return only.splits || !only.pattern ? `${only.text} (a word known only at run time, which may name files)` : `${only.text} (a glob)`;
  if (value === "-" || /^@\{-?\d+\}$/.test(value)) return undefined;
  if (/[*?[]/.test(value) || value.startsWith(":") || /^\.{1,2}(\/.*)?$/.test(value) || value.endsWith("/")) return value;
  if (cwd !== undefined && existsSync(resolve(cwd, value))) return `${value} (a file of the working tree, which git checks out over its changes)`;
  return undefined;
}

/** `git …` read again with the git table (for callers that have only the words). */
export function gitArguments(words: readonly ShellWord[]): ParsedArguments {
  return parseArguments("git", words.slice(1));
}
