import { DANGEROUS_VARIABLES, HARMLESS_NODE_OPTIONS, programVariable } from "../inventory/_variables.js";
import { codeVariable, runsShell } from "./_evaluating.js";
import type { Analysis, ShellPart } from "./_parts.js";
import type { ShellWord } from "./_words.js";

/*
 * Settings whose value is a command line a program runs later: an option (`man -P`, `tar -I`,
 * `sort --compress-program`), an environment variable (`PAGER`, `GIT_SSH_COMMAND`), a git
 * setting (`core.pager`), an ssh option (`ProxyCommand`). The value is judged as a command where
 * it is given, and the part is at least ask unless what it names is harmless: programs the
 * inventory knows that only read (no pager or editor: they have command languages), with
 * nothing the policy cannot read.
 */

/** Judges `value` as the command line a setting makes a program run; at least ask unless harmless. */
export function runSetting(analysis: Analysis, value: ShellWord, what: string, level: number): void {
  if (value.value === undefined) {
    analysis.unknown(`${what}=${value.text}`, `${what} names a program known only at run time`);
    return;
  }
  const start = analysis.size;
  analysis.parseScript(value.value, level + 1, what);
  const added = analysis.partsFrom(start);
  if (!harmless(analysis, added) || runsShell(value.value)) analysis.unknown(`${what}=${value.text}`, `${what} makes a program run \`${value.value}\`, which does more than read`);
}

/** Whether parts only run programs that read (and write no file), with nothing the policy cannot read. */
export function harmless(analysis: Analysis, parts: readonly ShellPart[]): boolean {
  if (parts.length === 0) return false;
  return parts.every((part) => {
    if (part.kind === "unknown") return false;
    if (part.kind !== "command") return part.kind === "read";
    const name = part.words[0]?.value;
    if (name === undefined || part.uncertain !== undefined || part.inline !== undefined || part.script !== undefined) return false;
    const entry = analysis.inventory.lookup(name.slice(name.lastIndexOf("/") + 1));
    const kind = entry?.row.kind;
    return kind !== undefined && kind.kind === "read-only" && kind.role === undefined && entry?.row.program.length === 0 && entry.row.writesOperands === undefined && entry.row.writes.length === 0;
  });
}

/**
 * An assignment to a variable (`NAME=value cmd`, `export NAME=value`, `env NAME=value cmd`): one
 * that changes which program a name runs asks; one whose value is a command line (`PAGER`) has it
 * judged; `NODE_OPTIONS` asks unless it only sizes memory or quiets warnings.
 */
export function assignment(analysis: Analysis, name: string, value: ShellWord | undefined, text: string, level: number): void {
  if (codeVariable(analysis, name, value, text)) return;
  if (DANGEROUS_VARIABLES.has(name) || name.startsWith("BASH_FUNC_")) {
    analysis.unknown(text, `setting ${name} changes which program a name runs or runs code itself`);
  } else if (name === "SSH_AUTH_SOCK" || name === "GPG_AGENT_INFO") {
    analysis.unknown(text, `setting ${name} makes ssh or gpg use the keys of the agent at that socket, which may be another user's or session's`);
  } else if (programVariable(name)) {
    runSetting(analysis, value ?? { text, value: undefined, splits: false, tilde: false }, name, level);
  } else if ((name === "LESS" || name === "MORE") && (value?.value === undefined || value.value.includes("+"))) {
    analysis.unknown(text, `setting ${name} with + gives the pager a command to run at start`);
  } else if (name === "LESSKEY" || name === "LESSKEYIN") {
    analysis.unknown(text, `setting ${name} gives the pager key bindings, which may run commands`);
  } else if (name === "NODE_OPTIONS") {
    const words = value?.value?.trim().split(/\s+/).filter((each) => each !== "");
    if (words === undefined || !words.every((each) => HARMLESS_NODE_OPTIONS.test(each))) {
      analysis.unknown(text, "setting NODE_OPTIONS can make node load and run code (`--require`, `--import`)");
    }
  }
}

/** `NAME=value` or `NAME+=value` as a word: the name and the value (undefined when known only at run time). */
export function assignmentOf(word: ShellWord): { name: string; value: ShellWord | undefined } | undefined {
  const match = /^([A-Za-z_][A-Za-z0-9_]*)\+?=/.exec(word.value ?? word.text);
  if (!match) return undefined;
  const value = word.value === undefined ? undefined : { ...word, value: word.value.slice(match[0].length), tilde: false };
  return { name: match[1] as string, value };
}
