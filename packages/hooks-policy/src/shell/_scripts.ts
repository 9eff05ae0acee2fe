import type { Effects } from "./_effect-types.js";
import { hasOption, type ParsedArguments } from "./_options.js";
import { readSed } from "./_sed.js";
import { runtimeWord, type ShellWord } from "./_words.js";

/*
 * Command languages inside a command line's arguments, read before it runs: sed scripts, ssh's
 * `-o` settings that run local commands, `fd -x`'s command.
 */

const literal = (value: string): ShellWord => ({ text: value, value, splits: false, tilde: false });

/** The scripts of a sed command (its `-e` values, or its first operand), read for `e`, `w` and `r`. */
export function sedEffects(args: ParsedArguments, out: Effects): void {
  if (hasOption(args, "--sandbox")) return;
  const scripts = args.options.filter((option) => option.name === "--expression").map((option) => option.value);
  if (scripts.length === 0 && !hasOption(args, "--file")) scripts.push(args.operands[0]);
  for (const script of scripts) {
    if (!script) continue;
    // A script with expansions is read with them as `X`: one that reads cleanly does nothing more wherever they lead.
    const text = script.value ?? script.text.replace(/^(["'])(.*)\1$/s, "$2").replace(/\$(\{[^}]*\}|\([^)]*\)|[A-Za-z_][A-Za-z0-9_]*|.)|`[^`]*`/g, "X");
    const read = readSed(text);
    if (read.unreadable !== undefined) {
      out.uncertain = `the sed script ${JSON.stringify(text)} could not be read (${read.unreadable}), so what it runs or writes is not known`;
      continue;
    }
    if (script.value === undefined && (read.runs.length > 0 || read.writes.length > 0 || read.reads.length > 0 || read.executes)) {
      out.uncertain = "the sed script is known only at run time, and it runs commands or touches files";
      continue;
    }
    if (read.executes) out.uncertain = "the sed script runs commands (`e`) made from its input, which are known only at run time";
    for (const command of read.runs) (out.runs ??= []).push({ words: [literal(command)], shell: true, via: "sed script `e`" });
    for (const file of read.writes) out.writes.push({ path: literal(file), via: "sed script `w`" });
    for (const file of read.reads) out.reads.push({ path: literal(file), via: "sed script `r`" });
  }
}

/** ssh settings whose value is a command ssh runs on this machine. */
const LOCAL_COMMANDS = new Set(["proxycommand", "localcommand", "knownhostscommand"]);

/** `ssh -o ProxyCommand=…` (and scp's, sftp's): the command is judged; `-F FILE` may name such settings. */
export function sshOptions(program: string, args: ParsedArguments, out: Effects): void {
  for (const option of args.options) {
    const value = option.value;
    if (option.name === "-F" && value?.value !== "/dev/null") {
      out.uncertain = `${program} -F ${value?.text ?? ""}: a settings file, which may make it run programs`;
    }
    if (option.name !== "-o" || !value) continue;
    if (value.value === undefined) {
      out.uncertain = `${program} -o ${value.text}: a setting known only at run time, which may make it run a program`;
      continue;
    }
    const match = /^\s*([A-Za-z]+)\s*(?:=|\s)\s*(.*)$/s.exec(value.value);
    if (!match) continue;
    const key = (match[1] as string).toLowerCase();
    if (LOCAL_COMMANDS.has(key)) (out.settings ??= []).push({ value: literal(match[2] as string), what: `${program} -o ${match[1]}` });
    if (key === "permitlocalcommand" && /^(yes|true)$/i.test((match[2] as string).trim())) out.uncertain = `${program} -o PermitLocalCommand=yes runs the LocalCommand of its settings`;
  }
}

/** `fd -x CMD …` / `-X`: the words after the option are a command, run for each result (`{}`). */
export function fdExec(words: readonly ShellWord[], out: Effects): void {
  const at = words.findIndex((word) => word.value !== undefined && /^(-x|--exec|-X|--exec-batch)$/.test(word.value));
  if (at === -1) return;
  const command = words.slice(at + 1).map((word) => (word.value !== undefined && word.value.includes("{") ? runtimeWord(word.text, false) : word));
  const end = command.findIndex((word) => word.value === ";");
  (out.runs ??= []).push({ words: end === -1 ? command : command.slice(0, end), shell: false, via: "fd -x" });
}
