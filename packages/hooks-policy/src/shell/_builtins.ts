import type { Command } from "unbash";
import { evaluatingBuiltin } from "./_evaluating.js";
import type { Analysis } from "./_parts.js";
import { assignment, assignmentOf } from "./_settings.js";
import { literalInput } from "./_shells.js";
import { runtimeWord, type ShellWord, showWord } from "./_words.js";

/**
 * What a simple command does to the shell beyond running (after it was added as a part): builtins
 * that run text again (`eval`, `trap`, `alias`), change where names lead (`cd`, `hash -p`,
 * `export PATH=`), and programs that run commands of their own (`find -exec`, `tmux`, `busybox`).
 */
export function shellEffects(analysis: Analysis, program: string, words: ShellWord[], tail: boolean, level: number, node: Command | undefined, uncertain: string | undefined): void {
  const shown = () => words.map(showWord).join(" ");
  const evaluates = evaluatingBuiltin(program, words);
  if (evaluates !== undefined) analysis.unknown(shown(), evaluates);
  switch (program) {
    case "busybox":
      return analysis.resolve(words.slice(1), tail, level, node, uncertain);
    case "eval":
      return analysis.reparse(words.slice(1), level, "eval");
    case "trap": {
      const first = words[1];
      if (first && !(first.value?.startsWith("-") ?? false)) analysis.reparse([first], level, "a trap's command");
      return;
    }
    case "alias":
      return aliases(analysis, words, level);
    case "source":
    case ".":
      if (words[1] && words[1].value === undefined) analysis.unknown(shown(), "runs a script whose name or content is known only at run time");
      return;
    case "tmux":
      return tmux(analysis, words, level);
    case "hash":
      if (words.some((word) => word.value === undefined || /^-[a-z]*p/.test(word.value))) analysis.unknown(shown(), "`hash -p` makes a name run another program");
      return;
    case "export":
    case "declare":
    case "typeset":
    case "readonly":
    case "local":
      return declarations(analysis, words, level);
    case "enable":
      if (words.length > 1) analysis.unknown(shown(), "`enable` loads or changes shell builtins");
      return;
    case "cd":
    case "pushd": {
      const target = words.slice(1).find((word) => !(word.value?.startsWith("-") ?? false));
      // Into a link this command made, the folder is where the link leads.
      analysis.cds.push(target ? analysis.throughLinks(target) : { text: "~", value: "~", splits: false, tilde: true });
      return;
    }
    case "popd":
      analysis.cds.push(runtimeWord("(popd)", false));
      return;
    case "find":
      return find(analysis, words, level);
    case "at":
    case "batch":
      return scheduled(analysis, program, words, level, node);
    case "crontab":
      if (!words.slice(1).some((word) => word.value === "-l" || word.value === "--list")) analysis.unknown(shown(), "crontab installs a schedule of commands that run later, after the call and outside any sandbox");
      return;
    default:
      return;
  }
}

/**
 * `at TIME` / `batch` run the commands of their standard input (or `-f FILE`) later, after the call
 * ends: a literal heredoc or here-string is read as the job's script; anything else is a job known
 * only at run time. Listing (`-l`), showing (`-c`) and removing (`-r`, `-d`) jobs runs nothing.
 */
function scheduled(analysis: Analysis, program: string, words: ShellWord[], level: number, node: Command | undefined): void {
  const values = words.slice(1).map((word) => word.value);
  if (values.some((value) => value !== undefined && /^-[A-Za-z]*[lcrd]$/.test(value))) return;
  const shown = words.map(showWord).join(" ");
  const file = values.findIndex((value) => value !== undefined && /^-[A-Za-z]*f$/.test(value));
  if (file !== -1) return analysis.unknown(shown, `${program} runs the commands of ${words[file + 2]?.text ?? "a file"} later, which the policy cannot read`);
  // Words an unknown program was given (`mytool at noon`) are judged without a standard input of their own.
  if (!node) return;
  const input = literalInput(node.redirects, analysis.env);
  if (input === undefined) return analysis.unknown(shown, `${program} runs the commands of its standard input later, which are known only at run time`);
  analysis.unknown(shown, `${program} runs its job later, after the call ends and outside any sandbox`);
  analysis.parseScript(input, level + 1, `${program}'s job`);
}

function aliases(analysis: Analysis, words: ShellWord[], level: number): void {
  for (const word of words.slice(1)) {
    if (word.value === undefined) analysis.unknown(word.text, "an alias whose text is known only at run time");
    else if (word.value.includes("=")) analysis.parseScript(word.value.slice(word.value.indexOf("=") + 1), level + 1, "an alias");
  }
}

function declarations(analysis: Analysis, words: ShellWord[], level: number): void {
  for (const word of words.slice(1)) {
    const set = assignmentOf(word);
    if (set) assignment(analysis, set.name, set.value, word.text, level);
  }
}

/** tmux commands that run a shell command given as their last words. */
function tmux(analysis: Analysis, words: ShellWord[], level: number): void {
  let i = 1;
  for (; i < words.length; i++) {
    const value = words[i]?.value;
    if (value === undefined) return analysis.unknown(words.map(showWord).join(" "), "tmux's arguments are known only at run time");
    if (!value.startsWith("-")) break;
    if (value === "-c") analysis.reparse(words.slice(i + 1, i + 2), level, "tmux -c");
    if (/^-[LSfTc]$/.test(value)) i += 1;
  }
  const sub = words[i]?.value;
  if (sub === undefined) return;
  if (/^(send-keys|send|send-prefix)$/.test(sub)) {
    return analysis.unknown(words.map(showWord).join(" "), "tmux send-keys types text into a terminal, which may run it");
  }
  if (!/^(new-session|new|new-window|neww|split-window|splitw|respawn-pane|respawnp|respawn-window|respawnw|run-shell|run|if-shell|if|pipe-pane|pipep|display-popup|popup)$/.test(sub)) return;
  let j = i + 1;
  for (; j < words.length; j++) {
    const value = words[j]?.value;
    if (value === undefined || !value.startsWith("-")) break;
    if (value === "--") {
      j += 1;
      break;
    }
    if (/^-[a-zA-Z]*[cefFnstxylpTwhdSb]$/.test(value) && !/^-[a-zA-Z]*[AbDdEhIkPvZ]$/.test(value)) j += 1;
  }
  const command = words.slice(j);
  if (command.length > 0) analysis.reparse(command, level, `tmux ${sub}`);
}

/** `find -exec` / `-execdir` / `-ok` / `-okdir` run a command; `-fprint` and the like write a file. */
function find(analysis: Analysis, words: ShellWord[], level: number): void {
  const found = foundPaths(words);
  for (let i = 1; i < words.length; i++) {
    const value = words[i]?.value;
    if (value === "-exec" || value === "-execdir" || value === "-ok" || value === "-okdir") {
      const inner: ShellWord[] = [];
      let j = i + 1;
      for (; j < words.length; j++) {
        const word = words[j] as ShellWord;
        if (word.value === ";" || (word.value === "+" && inner.length > 0)) break;
        inner.push(word.value !== undefined && word.value.includes("{}") ? runtimeWord(word.value === "{}" ? found : word.text, false) : word);
      }
      analysis.resolve(inner, false, level, undefined, undefined);
      i = j;
    } else if ((value === "-fprint" || value === "-fprint0" || value === "-fls" || value === "-fprintf") && words[i + 1]) {
      analysis.push({ kind: "write", path: words[i + 1] as ShellWord, via: `find ${value}`, cdCount: analysis.cds.length });
    }
  }
}

/**
 * What `{}` of a find's `-exec` stands for, as a glob when find names it (`find src -name '*.ts'`
 * finds `src/**\/*.ts`, which names no secret file), else `{}` (any path).
 */
function foundPaths(words: ShellWord[]): string {
  const values = words.slice(1).map((word) => word.value);
  if (values.some((value) => value === undefined || /^(-o|-or|-not|!|,|\()$/.test(value))) return "{}";
  const first = values.findIndex((value) => /^[-(!]/.test(value as string));
  const roots = values.slice(0, first === -1 ? values.length : first);
  const at = values.indexOf("-name");
  const name = at === -1 ? undefined : values[at + 1];
  if (roots.length > 1 || name === undefined || name.includes("/")) return "{}";
  return `${(roots[0] ?? ".").replace(/\/+$/, "")}/**/${name}`;
}
