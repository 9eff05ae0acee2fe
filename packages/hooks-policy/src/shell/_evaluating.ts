import { CODE_VARIABLES, RUN_OPTIONS, SYSTEM_OPTIONS, SYSTEM_PLACES } from "../inventory/_inline-code.js";
import type { ParsedArguments } from "./_options.js";
import type { Analysis } from "./_parts.js";
import type { ShellWord } from "./_words.js";

/*
 * Bash as bash runs it (issue 39): the expansions and builtins that evaluate text again, the
 * variables that tell a runtime where to load code from, and what outlives the call.
 */

/** A place a variable's value names outside the workspace (`/tmp/evil`, `~/x`, `../x`, a URL), or undefined. */
export function outsideValue(text: string): string | undefined {
  for (const piece of text.split(/[\s:;,=]+|(?<=-[A-Za-z])(?=[/~])/)) {
    const value = piece.replace(/^["']|["']$/g, "");
    if (value === "" || /^\$\{?(PATH|PWD|[A-Z_]*PATH)\}?$/.test(value) || /^\$\{?PWD\}?(\/|$)/.test(value)) continue;
    if (/^(https?|ftp|data)$/i.test(value) || value.startsWith("//")) return `${text}: an address`;
    if (value.startsWith("~") || value.startsWith("$HOME") || value.startsWith("${HOME}")) return `${value}, in the home folder`;
    if (value.startsWith("/") && !SYSTEM_PLACES.test(value)) return `${value}, outside the workspace`;
    if (value === ".." || value.startsWith("../")) return `${value}, outside the workspace`;
    if (value.startsWith("$")) return `${value}, known only at run time`;
  }
  return undefined;
}

/** `PYTHONPATH=/tmp/evil pytest`, `JAVA_TOOL_OPTIONS=-javaagent:/tmp/a.jar mvn test`: code loaded from outside the project. True when it judged the variable. */
export function codeVariable(analysis: Analysis, name: string, value: ShellWord | undefined, text: string): boolean {
  if (!CODE_VARIABLES.test(name)) return false;
  const given = value?.value ?? value?.text ?? text.slice(text.indexOf("=") + 1);
  const outside = outsideValue(given);
  if (outside !== undefined) analysis.unknown(text, `setting ${name} makes the program load code, settings or tools from ${outside}, which is not the project's`);
  else if (name === "GOFLAGS" && /(^|\s)--?(exec|toolexec|vettool|overlay)(=|\s|$)/.test(given)) analysis.unknown(text, `setting GOFLAGS with ${/--?(exec|toolexec|vettool|overlay)/.exec(given)?.[0] ?? ""} makes go run another program, or build other files, for every build`);
  return true;
}

/**
 * What keeps running after the call ends (`nohup`, `setsid`, `disown`, `screen -dm`, `tmux new
 * -d`, `pm2 start`): asked unconfined; a sandboxed call's tree ends with it (the sandbox has its
 * own process namespace and dies with its parent), so a sandboxed rule may lift it.
 */
export function detaches(program: string, words: readonly ShellWord[]): string | undefined {
  const values = words.slice(1).map((word) => word.value ?? "");
  const first = values.find((value) => !value.startsWith("-"));
  switch (program) {
    case "nohup":
    case "setsid":
    case "daemonize":
    case "disown":
      return `${program} keeps a process running after the call ends`;
    case "screen":
      return values.some((value) => /^-[A-Za-z]*[dD][A-Za-z]*$/.test(value)) && values.some((value) => /^-[A-Za-z]*m/.test(value)) ? "screen -d -m starts a detached session that keeps running after the call ends" : undefined;
    case "tmux": {
      const at = values.findIndex((value) => /^(new-session|new|new-window|neww|run-shell|run)$/.test(value));
      return at !== -1 && values.slice(at + 1).some((value) => /^-[A-Za-z]*[db][A-Za-z]*$/.test(value)) ? `tmux ${values[at]} -d starts what keeps running after the call ends` : undefined;
    }
    case "start-stop-daemon":
      return values.some((value) => /^(-S|--start)$/.test(value)) ? "start-stop-daemon --start starts a daemon" : undefined;
    case "pm2":
    case "forever":
    case "supervisorctl":
      return /^(start|restart|reload|resurrect|startOrRestart|startOrReload)$/.test(first ?? "") ? `${program} ${first} starts a process that keeps running after the call ends` : undefined;
    default:
      return undefined;
  }
}

/** Variables a builtin may set that change what later names run or load: setting one from input or by name is a run of unknown code. */
const GUARDED = /^(PATH|BASH_ENV|ENV|LD_[A-Z_]+|DYLD_[A-Z_]+|PROMPT_COMMAND|PS[0-4]|IFS|SHELLOPTS|BASHOPTS|BASH_LOADABLES_PATH|EXECIGNORE|CDPATH|GLOBIGNORE|HOME|PYTHONPATH|NODE_OPTIONS|PERL5OPT|RUBYOPT|BASH_XTRACEFD|HISTFILE|MAIL|MAILPATH)$/;

/** Builtins that evaluate text (callbacks, namerefs, names set from input): the reason each is a run of unknown code. */
export function evaluatingBuiltin(program: string, words: readonly ShellWord[]): string | undefined {
  const values = words.slice(1).map((word) => word.value);
  const has = (pattern: RegExp) => values.some((value) => value !== undefined && pattern.test(value));
  switch (program) {
    case "mapfile":
    case "readarray":
      if (has(/^-[A-Za-z]*C/)) return `${program} -C runs its callback for the lines it reads`;
      return targets(program, words).find((name) => GUARDED.test(name)) ? `${program} sets a variable that decides what runs` : undefined;
    case "compgen":
      return has(/^-[A-Za-z]*[CF]/) ? "compgen -C / -F runs the command or function it is given" : undefined;
    case "complete":
      return has(/^-[A-Za-z]*C/) ? "complete -C makes completion run the command it is given" : undefined;
    case "printf": {
      const at = values.indexOf("-v");
      const name = at === -1 ? values.find((value) => value?.startsWith("-v") && value.length > 2)?.slice(2) : values[at + 1];
      if (at !== -1 && name === undefined) return "printf -v sets a variable named only at run time";
      return name !== undefined && GUARDED.test(name.replace(/\[.*$/, "")) ? `printf -v ${name} sets a variable that decides what runs` : undefined;
    }
    case "read":
    case "getopts":
      return targets(program, words).find((name) => GUARDED.test(name)) ? `${program} sets a variable that decides what runs from its input` : undefined;
    case "declare":
    case "typeset":
    case "local":
    case "export":
    case "readonly":
      if (has(/^-[A-Za-z]*n/)) return `${program} -n makes a name refer to another variable, which a later assignment sets`;
      // `export PATH=$PWD/bin:$PATH` names PATH (its value is judged as the assignment it is); `export "$x"=1` does not.
      if (values.some((value, i) => value === undefined && !(words[i + 1]?.text.startsWith("-") ?? false) && !/^[A-Za-z_][A-Za-z0-9_]*\+?=/.test(words[i + 1]?.text ?? ""))) return `${program} sets a variable named only at run time`;
      return undefined;
    default:
      return undefined;
  }
}

/** The variables `read`, `mapfile` and `getopts` set (their operands after the options that take a value). */
function targets(program: string, words: readonly ShellWord[]): string[] {
  const names: string[] = [];
  const valued = program === "read" ? /^-[A-Za-z]*[adinNptu]$/ : program === "getopts" ? /^$/ : /^-[A-Za-z]*[dnOsuCc]$/;
  for (let i = 1; i < words.length; i++) {
    const value = words[i]?.value ?? "";
    if (value.startsWith("-")) {
      if (valued.test(value)) {
        if (program === "read" && /a$/.test(value)) names.push(words[i + 1]?.value ?? "");
        i += 1;
      }
      continue;
    }
    names.push(program === "getopts" && i === 1 ? "" : value);
  }
  return names.filter((name) => name !== "");
}

/**
 * Expansions in a command line's text that evaluate text again: `${x@P}` (prompt expansion runs
 * command substitutions in the value), an array subscript holding `$` or a backquote (in
 * arithmetic it is expanded and evaluated again), and arithmetic over a variable `read` set from
 * input (a value like `a[$(cmd)]` runs cmd). Single-quoted text is left out: bash expands nothing in it.
 */
export function evaluatingText(source: string): string[] {
  if (!/[@[(]|\blet\b/.test(source)) return [];
  const text = source.replace(/\$'(?:[^'\\]|\\.)*'|'[^']*'/g, "''");
  const found: string[] = [];
  if (/\$\{[^{}]*@P\}/.test(text)) found.push("`${…@P}` expands the value as a prompt, which runs the command substitutions in it");
  // In `let`, `((…))` and `[[ … -eq … ]]` even a quoted operand is evaluated as arithmetic.
  if (SUBSCRIPT.test(text) || arithmetic(source).some((region) => SUBSCRIPT.test(region))) found.push("an array subscript holding `$` or a backquote is expanded and evaluated as arithmetic again, which can run commands");
  const read = readVariables(text);
  if (read.size > 0) {
    for (const region of arithmetic(text)) {
      const name = [...region.matchAll(/[A-Za-z_][A-Za-z0-9_]*/g)].map((match) => match[0]).find((each) => read.has(each));
      if (name !== undefined) {
        found.push(`arithmetic evaluates ${name}, which is read from input: a value like a[$(cmd)] runs cmd`);
        break;
      }
    }
  }
  return found;
}

const SUBSCRIPT = /[A-Za-z_][A-Za-z0-9_]*\[[^\]\n]*[$`][^\]\n]*\]/;

function readVariables(text: string): Set<string> {
  const names = new Set<string>();
  for (const match of text.matchAll(/\b(?:read|mapfile|readarray)((?:\s+(?!-)[A-Za-z_][A-Za-z0-9_]*|\s+-[A-Za-z]+(?:\s+(?:"[^"]*"|\S+))?)+)/g)) {
    for (const word of (match[1] as string).matchAll(/(?:^|\s)([A-Za-z_][A-Za-z0-9_]*)(?=\s|$)/g)) names.add(word[1] as string);
  }
  return names;
}

/** The arithmetic in a command line's text: `$((…))`, `((…))`, `let …`, `[[ … -eq … ]]`. */
function arithmetic(text: string): string[] {
  const regions = [...text.matchAll(/\(\(([\s\S]*?)\)\)/g)].map((match) => match[1] as string);
  for (const match of text.matchAll(/\b(?:let|declare\s+-[A-Za-z]*i[A-Za-z]*|typeset\s+-[A-Za-z]*i[A-Za-z]*|local\s+-[A-Za-z]*i[A-Za-z]*)\s+([^;&|\n]*)/g)) regions.push(match[1] as string);
  for (const match of text.matchAll(/\[\[([\s\S]*?)\]\]/g)) if (/-(eq|ne|lt|le|gt|ge)\b/.test(match[1] as string)) regions.push(match[1] as string);
  return regions;
}

/** The options of this command whose value is a command line it runs (RUN_OPTIONS: `split --filter`, `git grep -O`). */
export function runOptions(program: string, args: ParsedArguments): string[] {
  const listed = RUN_OPTIONS[program];
  if (!listed) return [];
  const sub = args.operands[0]?.value;
  return listed.flatMap((each) => {
    const colon = each.indexOf(":");
    return colon === -1 ? [each] : each.slice(0, colon) === sub ? [each.slice(colon + 1)] : [];
  });
}

/** A setting's command line that is a shell program (`sh -c …`, a list, a pipeline, a substitution): code, never only a reader. */
export function runsShell(value: string): boolean {
  const first = value.trim().split(/\s+/)[0] ?? "";
  return /^(\S*\/)?(sh|bash|dash|zsh|ksh|mksh|ash|fish|busybox|env|eval|exec|command)$/.test(first) || /[;&|`<>]|\$\(/.test(value);
}

/** `strace -p PID`: a wrapper told to attach to another process runs no command of its own, and reads that process. */
export function attaches(program: string, words: readonly ShellWord[]): string | undefined {
  if (program !== "strace" && program !== "ltrace") return undefined;
  const listed = SYSTEM_OPTIONS[program];
  const option = words.slice(1).find((word) => listed?.options.some((each) => word.value === each || word.value?.startsWith(`${each}=`) || (word.value?.startsWith(each) && each.length === 2)));
  return option && listed ? `${program} ${option.value} ${listed.what}` : undefined;
}

/** A literal the code prints: a string with nothing interpolated, or a number. */
const LITERAL = String.raw`(?:"[^"\\$@#{}\x60]*"|'[^'\\]*'|-?\d+(?:\.\d+)?)`;
const PRINTS = new RegExp(String.raw`^(?:print|console\.log|puts|p|say|echo|printf|cat|writeln|println)\s*\(?\s*${LITERAL}(?:\s*[,.+]\s*${LITERAL})*\s*\)?$`);

/**
 * Inline code the policy can read, and that only prints constants (`python -c "print('ok')"`, `node
 * -e 'console.log(1)'`, `ruby -e "puts 'ok'"`, a heredoc of prints): it runs nothing, reads and
 * writes nothing. Anything else is code the policy cannot read.
 */
export function readableCode(code: string): boolean {
  if (code.length > 2_000) return false;
  const statements = code.split(/[;\n]/).map((each) => each.trim()).filter((each) => each !== "" && each !== "pass");
  return statements.length > 0 && statements.every((each) => PRINTS.test(each));
}
