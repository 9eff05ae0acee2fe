import type { Effects } from "./_effect-types.js";
import { hasOption, type ParsedArguments } from "./_options.js";
import { HARMLESS_NODE_OPTIONS } from "../inventory/_variables.js";
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
    if (read.runs.length > 0) out.uncertain = "the sed script runs shell commands (`e`), a program's escape to the shell";
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

/** The values of options a table does not know to take one: `-c VALUE`, `-cVALUE` (short), `--command=VALUE`. */
export function optionWords(words: readonly ShellWord[], options: readonly string[]): ShellWord[] {
  const values: ShellWord[] = [];
  for (let i = 1; i < words.length; i++) {
    const text = words[i]?.value;
    if (text === undefined) continue;
    if (text === "--") break;
    for (const option of options) {
      if (text === option && words[i + 1]) values.push(words[i + 1] as ShellWord);
      else if (option.startsWith("--") && text.startsWith(`${option}=`)) values.push(literal(text.slice(option.length + 1)));
      else if (!option.startsWith("--") && option.length === 2 && text.startsWith(option) && text.length > 2 && !text.startsWith("--")) values.push(literal(text.slice(2)));
    }
  }
  return values;
}

const setting = (out: Effects, value: string, what: string) => (out.settings ??= []).push({ value: literal(value), what });

/** Database shells: `\! CMD` (psql, mysql) and `system CMD` (mysql) run a shell command; so do sqlite's `.shell` / `.system`; `.output` / `.once` write a file. */
export function databaseEffects(program: string, words: readonly ShellWord[], out: Effects): void {
  const sqlite = program === "sqlite3" || program === "duckdb";
  const sql = sqlite ? [...words.slice(1).filter((word, i) => i > 0 && !(word.value?.startsWith("-") ?? false) && words[i]?.value !== "-cmd" && words[i]?.value !== "-init"), ...optionWords(words, ["-cmd"])] : optionWords(words, program === "psql" ? ["-c", "--command"] : ["-e", "--execute"]);
  if (sqlite && optionWords(words, ["-init"]).length > 0) out.uncertain = `${program} -init runs the commands of a file the policy does not read`;
  // Given no commands in its arguments, sqlite reads them from standard input (a here-document, a pipe, a file), where `.shell` runs a program.
  if (sqlite && sql.length === 0 && !words.slice(1).some((word) => /^--?(version|help)$/.test(word.value ?? ""))) out.uncertain = `${program} reads its commands from standard input, which the policy does not read (\`.shell\` and \`.system\` there run programs)`;
  for (const word of sql) {
    if (word.value === undefined) {
      out.uncertain = `${program}'s commands are known only at run time, and may run programs (\`\\!\`, \`.shell\`)`;
      continue;
    }
    for (const line of word.value.split(/\n|;(?=\s*[.\\])/)) {
      const command = /^\s*(?:\\!|system\s|\.shell\s|\.system\s)(.*)$/s.exec(line)?.[1];
      if (command !== undefined) {
        setting(out, command, `${program} \`${line.trim().slice(0, 8)}\``);
        out.uncertain = `${program} \`${line.trim().slice(0, 12)}\` is an escape to the shell`;
      }
      const piped = /^\s*\.(output|once)\s+(?:-[a-z]\s+)?["']?\|(.*?)["']?\s*$/s.exec(line);
      if (piped) {
        setting(out, piped[2] as string, `${program} .${piped[1]} |`);
        out.uncertain = `${program} .${piped[1]} |… pipes its output into a command`;
        continue;
      }
      if (/\b(writefile|load_extension|edit|fts5|readfile)\s*\(|^\s*\.(load|read|system|shell|excel|open\s+--?(zip|append)|save|backup|restore)\b|^\s*\\([oigw]|ir|copy)\b|\b(COPY\s+.*\b(TO|FROM)\s+PROGRAM|pg_read_file|pg_ls_dir|lo_import|lo_export|INTO\s+(OUT|DUMP)FILE|LOAD_FILE|LOAD\s+DATA)\b/i.test(line)) {
        out.uncertain = `${program}: ${JSON.stringify(line.trim().slice(0, 40))} reads, writes or loads files or code the policy does not follow`;
      }
      const file = /^\s*\.(output|once|import|read)\s+(\S+)/.exec(line);
      if (file) (file[1] === "import" || file[1] === "read" ? out.reads : out.writes).push({ path: literal(file[2] as string), via: `${program} .${file[1]}` });
      if (/^\s*\.load\s/.test(line)) out.uncertain = `${program} .load loads a library, which runs code`;
    }
  }
}

/** Debuggers and editors given commands: `gdb -ex 'shell CMD'`, `vim -c '!CMD'`, `vim +'!CMD'`. */
export function commandOptions(program: string, words: readonly ShellWord[], out: Effects): void {
  const editor = !/^(gdb|lldb)$/.test(program);
  const given = editor ? [...optionWords(words, ["-c", "--cmd"]), ...words.slice(1).filter((word) => word.value?.startsWith("+") && word.value.length > 1).map((word) => literal((word.value as string).slice(1)))] : optionWords(words, ["-ex", "--eval-command", "-iex", "-o", "--one-line"]);
  for (const word of given) {
    if (word.value === undefined) {
      out.uncertain = `${program}'s command ${word.text} is known only at run time`;
      continue;
    }
    const shell = (editor ? /^:?\s*(?:silent!?\s*)?!(.*)$/s : /^(?:shell\s|!|platform\s+shell\s)(.*)$/s).exec(word.value.trim())?.[1];
    if (shell !== undefined) setting(out, shell, `${program} ${word.value.trim().slice(0, 12)}`);
    else if (/system\(|terminal|[rw]\s*!|\b(py|python3?|lua|perl|ruby|pipe)\b/.test(word.value)) out.uncertain = `${program} runs ${JSON.stringify(word.value)}, which may run programs`;
  }
}

/** A pager's `+COMMAND` (less, more): `!` runs a shell command, `|` pipes into one. */
export function pagerCommands(program: string, words: readonly ShellWord[], out: Effects): void {
  for (const word of words.slice(1)) {
    const text = word.value ?? word.text;
    if (text.startsWith("+") && /[!|]/.test(text)) out.uncertain = `${program} ${text}: a command it runs at start, which may run a program`;
  }
}

/** Build tools' variables and settings that name a program: `make SHELL=…`, `cmake -DCMAKE_C_COMPILER_LAUNCHER=…`, `cargo --config …runner…`. */
export function buildSettings(program: string, args: ParsedArguments, words: readonly ShellWord[], out: Effects, programVariable: (name: string) => boolean): void {
  if (program === "make" || program === "gmake") {
    for (const operand of args.operands) {
      const match = /^([A-Za-z_.][A-Za-z0-9_.]*)=(.*)$/s.exec(operand.value ?? "");
      if (match && (programVariable(match[1] as string) || /^(MAKESHELL|\.SHELLFLAGS)$/.test(match[1] as string))) setting(out, match[2] as string, `${program} ${match[1]}`);
      else if (operand.value === undefined && /^[A-Za-z_]+=/.test(operand.text)) out.uncertain = `${program} ${operand.text}: a variable known only at run time`;
    }
    if (optionWords(words, ["--eval", "-E"]).length > 0) out.uncertain = `${program} --eval runs make code given inline`;
  } else if (program === "cmake") {
    for (const word of words.slice(1)) {
      const match = /^-D([A-Za-z_]+)(?::[A-Z]+)?=(.*)$/s.exec(word.value ?? "");
      if (match && /_COMPILER_LAUNCHER$|_LINKER_LAUNCHER$|^CMAKE_[A-Za-z]+_COMPILER$|^CMAKE_MAKE_PROGRAM$/.test(match[1] as string)) setting(out, match[2] as string, `cmake -D${match[1]}`);
    }
  } else if (program === "cargo") {
    for (const value of optionWords(words, ["--config"])) {
      if (value.value === undefined || /runner|rustc[-_]wrapper|linker|rustc\s*=/.test(value.value)) out.uncertain = `cargo --config ${value.text}: a setting that can make cargo run a program`;
      else if (/^\s*[A-Za-z"']/.test(value.value) && /=/.test(value.value) && !CARGO_HARMLESS_CONFIG.test(value.value)) {
        out.uncertain = `cargo --config ${value.text}: a setting the policy does not know to be harmless (cargo's settings can name programs it runs, code it builds instead of the project's, or flags for the compiler)`;
      }
    }
    for (const value of optionWords(words, ["-Z"])) {
      if (value.value === undefined || !CARGO_HARMLESS_UNSTABLE.test(value.value)) out.uncertain = `cargo -Z ${value.text}: an unstable feature the policy does not know to be harmless (some load other settings or build other code)`;
    }
  } else if (program === "go") {
    goFlags(words, out);
  } else if (program === "npm" || program === "pnpm" || program === "yarn") {
    nodeOptions(program, words, out);
  }
}

/** `cargo --config KEY=VALUE` keys that only tune the build: profiles, jobs, the target folder, the network's retries, the terminal. */
const CARGO_HARMLESS_CONFIG = /^\s*(profile\.[\w.-]+|build\.(jobs|incremental|target-dir|pipelining)|net\.(retry|offline|git-fetch-with-cli)|http\.(timeout|low-speed-limit|multiplexing)|term\.[\w.-]+|cargo-new\.[\w.-]+|future-incompat-report\.[\w.-]+)\s*=/;
/** `cargo -Z` features that load nothing else and run nothing else. */
const CARGO_HARMLESS_UNSTABLE = /^(unstable-options|build-std(=[\w,-]+)?|build-std-features(=[\w,-]+)?|panic-abort-tests|timings(=[\w,]+)?|avoid-dev-deps|minimal-versions|direct-minimal-versions|no-index-update|binary-dep-depinfo|doctest-xcompile|sparse-registry|msrv-policy|checksum-freshness|publish-timeout|rustdoc-scrape-examples|next-lockfile-bump)$/;

/**
 * go's build flags whose value is a program go runs (`-exec`, `-toolexec`, `-vettool`) are judged as
 * commands; `-overlay` makes it build other files in place of the project's. Go reads `-flag` and
 * `--flag`, with the value after `=` or as the next word.
 */
function goFlags(words: readonly ShellWord[], out: Effects): void {
  for (let i = 1; i < words.length; i++) {
    const text = words[i]?.value;
    if (text === undefined || text === "--") continue;
    const flag = /^--?(exec|toolexec|vettool|overlay)(=(.*))?$/s.exec(text);
    if (!flag) continue;
    const value = flag[2] !== undefined ? literal(flag[3] as string) : words[i + 1];
    if (flag[1] === "overlay") out.uncertain = `go -overlay ${value?.text ?? ""}: it builds the files the overlay names in place of the project's, which the policy does not read`;
    else if (value?.value === undefined) out.uncertain = `go -${flag[1]} names a program known only at run time`;
    else setting(out, value.value, `go -${flag[1]}`);
  }
}

/** Words of node's options that load code from a file or a module: `-r X`, `--require=X`, `--import X`, `--loader X`. */
const NODE_LOADS = /^(-r|--require|--import|--loader|--experimental-loader)$/;

/**
 * `npm test --node-options='--require /tmp/evil.js'`: node, for every script npm runs, loads what
 * the options name. Harmless options (memory, warnings), and code loaded from the workspace or the
 * project's modules, are the project's; a place outside it, an address or any other option asks.
 */
function nodeOptions(program: string, words: readonly ShellWord[], out: Effects): void {
  for (let i = 1; i < words.length; i++) {
    const text = words[i]?.value;
    if (text === undefined || text === "--") continue;
    const option = /^--(?:config\.)?node[-_]options(=(.*))?$/s.exec(text);
    if (!option) continue;
    const value = option[1] !== undefined ? (option[2] as string) : words[i + 1]?.value;
    const why = value === undefined ? "known only at run time" : nodeOptionsProblem(value);
    if (why !== undefined) out.uncertain = `${program} ${text.replace(/=.*$/s, "")}: the options make node load or run ${why}, for every script ${program} runs`;
  }
}

function nodeOptionsProblem(value: string): string | undefined {
  const list = value.trim().split(/\s+/).filter((each) => each !== "");
  for (let i = 0; i < list.length; i++) {
    const each = list[i] as string;
    if (HARMLESS_NODE_OPTIONS.test(each)) continue;
    const eq = each.indexOf("=");
    const name = eq === -1 ? each : each.slice(0, eq);
    if (!NODE_LOADS.test(name)) return `what ${JSON.stringify(each)} says, which the policy does not know to be harmless`;
    const loaded = eq === -1 ? list[++i] : each.slice(eq + 1);
    if (loaded === undefined) return "code named at run time";
    if (/^[a-z][a-z0-9+.-]*:/i.test(loaded) || loaded.startsWith("/") || loaded.startsWith("~") || loaded === ".." || loaded.startsWith("../") || loaded.includes("$")) return `${loaded}, which is not the project's code`;
  }
  return undefined;
}

/**
 * Shell commands an inline program runs that are written in it as string literals:
 * `system("…")` (awk, perl, ruby, php, python's `os.system`), `popen`, `subprocess.…("…")`,
 * `execSync("…")`, awk's `| "…"` and `"…" | getline`, perl's and ruby's backticks.
 */
export function embeddedCommands(program: string, code: string): string[] {
  const found: string[] = [];
  const string = String.raw`("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')`;
  const patterns = [
    new RegExp(String.raw`\b(?:system|popen|exec|execSync|execFileSync|spawnSync|check_output|check_call|getoutput|getstatusoutput|run|call|Popen|shell_exec|passthru)\s*\(\s*(?:\[\s*)?${string}`, "g"),
    new RegExp(String.raw`\|\s*${string}`, "g"),
    new RegExp(String.raw`${string}\s*\|\s*getline`, "g"),
  ];
  if (/^(perl|ruby|php)/.test(program)) patterns.push(/`([^`]*)`/g, /\bqx\s*\{([^}]*)\}/g);
  for (const pattern of patterns) {
    for (const match of code.matchAll(pattern)) {
      const text = match[1] as string;
      const quoted = /^["']/.test(text) ? text.slice(1, -1).replace(/\\(["'\\])/g, "$1").replace(/\\n/g, "\n") : text;
      if (quoted.trim() !== "") found.push(quoted);
    }
  }
  return found;
}
