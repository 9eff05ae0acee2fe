import { DANGEROUS_VARIABLES, HARMLESS_NODE_OPTIONS, HOME_VARIABLES, OPTION_VARIABLES, type OptionVariable, programVariable, READS_NO_HOME, SYSTEM_PROGRAM_FOLDERS } from "../inventory/_variables.js";
import { codeVariable, outsideValue, runsShell } from "./_evaluating.js";
import { type Analysis, basename, type ShellPart } from "./_parts.js";
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
  if (name === "PATH") return pathSetting(analysis, value, text);
  const options = OPTION_VARIABLES[name];
  if (options) return optionVariable(analysis, name, options, value, text);
  if (HOME_VARIABLES.test(name)) return homeSetting(analysis, name, value, text);
  if (codeVariable(analysis, name, value, text)) return;
  if (/^GIT_TRACE/.test(name) && !/^([0-9]|true|false|yes|no|on|off)?$/i.test(value?.value ?? "?")) {
    analysis.unknown(text, `setting ${name} to a path makes git append its trace to that file, wherever it is`);
  } else if (DANGEROUS_VARIABLES.has(name) || name.startsWith("BASH_FUNC_")) {
    analysis.unknown(text, `setting ${name} changes which program a name runs or runs code itself`);
  } else if (name === "SSH_AUTH_SOCK" || name === "GPG_AGENT_INFO") {
    analysis.unknown(text, `setting ${name} makes ssh or gpg use the keys of the agent at that socket, which may be another user's or session's`);
  } else if (programVariable(name)) {
    runSetting(analysis, value ?? { text, value: undefined, splits: false, tilde: false }, name, level);
  } else if ((name === "LESS" || name === "MORE" || name === "SYSTEMD_LESS") && (value?.value === undefined || value.value.includes("+"))) {
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

/** The value of an assignment as written (`PATH="$PWD/bin:$PATH"` → `$PWD/bin:$PATH`), quotes removed; undefined when it holds a substitution or quoted `$`. */
function writtenValue(value: ShellWord | undefined, text: string): string | undefined {
  if (value?.value !== undefined) return value.value;
  const written = text.replace(/^[A-Za-z_][A-Za-z0-9_]*\+?=/, "");
  if (/[`\\]|\$\(|'[^']*\$[^']*'/.test(written)) return undefined;
  return written.replace(/["']/g, "");
}

/**
 * `PATH=node_modules/.bin:$PATH tsc`, `PATH="$PWD/.venv/bin:$PATH" pytest`: the folders PATH puts
 * before (or after) the inherited ones are where a name may now be found. The system's folders add
 * nobody's code; every other folder is judged, with the program the setting is given to, as that
 * folder's program (`node_modules/.bin/tsc`): the project's own when it is in the workspace (run in
 * a trusted workspace, asked in one not trusted), not the project's outside it. A PATH whose
 * folders are known only at run time asks.
 */
function pathSetting(analysis: Analysis, value: ShellWord | undefined, text: string): void {
  const written = writtenValue(value, text);
  const folders: string[] = [];
  for (const entry of written === undefined ? [] : written.split(":")) {
    if (/^\$\{?PATH\}?$/.test(entry) || SYSTEM_PROGRAM_FOLDERS.test(entry)) continue;
    // `$PWD/x` is x in the folder the command runs in; an empty entry is that folder.
    const folder = entry.replace(/^\$\{?PWD\}?(\/|$)/, "./") || ".";
    if (/[$~*?[\]{}]/.test(folder)) {
      analysis.unknown(text, `setting PATH puts ${entry} before the system's folders, which is known only at run time or in the home folder: a name may run a program from there`);
      return;
    }
    folders.push(folder.replace(/(.)\/+$/, "$1"));
  }
  if (written === undefined) {
    analysis.unknown(text, "setting PATH to a value known only at run time changes which program a name runs");
    return;
  }
  if (folders.length === 0) return;
  analysis.whenCommand((words) => {
    const program = words?.[0]?.value;
    const plain = program !== undefined && !program.includes("/") ? program : undefined;
    const push = (cdCount: number) => {
      for (const folder of folders) {
        const path = `${folder}/${plain ?? "…"}`;
        const found: ShellWord = { text: path, value: path, splits: false, tilde: false };
        const via = `${text}: it puts ${folder} among the folders names are looked up in, so ${plain ?? "a later name"} may be ${path}`;
        analysis.push({ kind: "command", words: [found, ...(plain !== undefined && words ? words.slice(1) : [])], tail: false, cdCount, via, searched: text });
      }
    };
    if (words !== undefined) return push(analysis.cds.length);
    // For every later command: a relative folder is looked up from wherever a later `cd` leads.
    const from = analysis.cds.length;
    analysis.atEnd(() => {
      for (let cdCount = from; cdCount <= analysis.cds.length; cdCount++) push(cdCount);
    });
  });
}

/** `RUBYOPT=-W0`, `JAVA_TOOL_OPTIONS=-Xmx2g`: options for a runtime, harmless when each only sets warnings, encodings or memory. */
function optionVariable(analysis: Analysis, name: string, spec: OptionVariable, value: ShellWord | undefined, text: string): void {
  const given = value?.value;
  if (given === undefined) {
    analysis.unknown(text, `setting ${name} to options known only at run time may make ${spec.runtime} load code (${spec.loads})`);
    return;
  }
  const words = given.trim().split(spec.separator ?? /\s+/).filter((each) => each !== "");
  for (let i = 0; i < words.length; i++) {
    const word = words[i] as string;
    if (spec.includes && word.startsWith("-I")) {
      const folder = word === "-I" ? words[++i] : word.slice(2);
      if (folder !== undefined && !/^[/~$]/.test(folder) && !folder.split("/").includes("..")) continue;
      analysis.unknown(text, `setting ${name} with -I ${folder ?? ""} makes ${spec.runtime} load code from ${folder ?? "a folder not given"}, which may be outside the workspace`);
      return;
    }
    if (!spec.harmless.test(word)) {
      analysis.unknown(text, `setting ${name} with ${word} may make ${spec.runtime} load or run code (${spec.loads}); options that only set warnings, encodings or memory run without asking`);
      return;
    }
  }
}

/**
 * `HOME=/tmp`, `XDG_CONFIG_HOME=/x`: where programs read their settings from. A program that reads
 * nothing from there (`env -i HOME=/tmp ls`) is run as it would be anyway; any other is asked when
 * the place is outside the workspace (its settings there may name programs to run).
 */
function homeSetting(analysis: Analysis, name: string, value: ShellWord | undefined, text: string): void {
  const outside = outsideValue(value?.value ?? value?.text ?? text.slice(text.indexOf("=") + 1));
  if (outside === undefined) return;
  analysis.whenCommand((words) => {
    const program = words?.[0]?.value;
    if (program !== undefined && (!program.includes("/") || /^\/(usr\/)?bin\//.test(program)) && READS_NO_HOME.has(basename(program))) return;
    analysis.unknown(text, `setting ${name} makes ${program === undefined ? "later programs" : basename(program)} load code, settings or tools from ${outside}, which is not the project's (only programs that read nothing from there, like ls or cat, run so without asking)`);
  });
}

/** `NAME=value` or `NAME+=value` as a word: the name and the value (undefined when known only at run time). */
export function assignmentOf(word: ShellWord): { name: string; value: ShellWord | undefined } | undefined {
  const match = /^([A-Za-z_][A-Za-z0-9_]*)\+?=/.exec(word.value ?? word.text);
  if (!match) return undefined;
  const value = word.value === undefined ? undefined : { ...word, value: word.value.slice(match[0].length), tilde: false };
  return { name: match[1] as string, value };
}
