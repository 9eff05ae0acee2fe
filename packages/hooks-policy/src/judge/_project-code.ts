import { existsSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, resolve } from "node:path";
import { isInside } from "@toolhost/core";
import { FETCHED_MODULE, SCHEDULING_COMMANDS, SETTINGS_COMMANDS, SYSTEM_OPTIONS, SYSTEM_PLACES } from "../inventory/_inline-code.js";
import { JVM_HARMLESS } from "../inventory/_variables.js";
import { realOf } from "../paths/_paths.js";
import type { KindRole } from "../inventory/_kinds.js";
import { tableOf, type ParsedArguments } from "../shell/_options.js";
import type { ShellCommandPart } from "../shell/_parse.js";
import type { ShellWord } from "../shell/_words.js";

/*
 * Trust means the project's files (issue 39): a trusted workspace's build, tests and scripts run
 * its own code. What they are told to load from elsewhere (a module, plugin, agent, settings file
 * or project outside the workspace, code by URL or by a registry's name) is not the project's, and
 * neither is a build run in a folder outside it.
 */

/** Code the policy cannot read, not the project's: asked unconfined whether or not the workspace is trusted. */
export const NOT_THE_PROJECTS: KindRole = { kind: "runs-code", role: "interpreter" };
/** The user's or the system's settings of a tool. */
export const SETTINGS: KindRole = { kind: "system", role: "settings" };
/** Code fetched by a name or an address and run. */
export const FETCHED: KindRole = { kind: "installs", role: "fetch-run" };

/** Whether a path is in the workspace, and where links lead too (`d -> /`: `d/tmp/x.js` is /tmp/x.js). */
export function reallyInside(path: string, workspace: string): boolean {
  if (!isInside(path, workspace)) return false;
  const real = realOf(path);
  return isInside(real, workspace) || isInside(real, realOf(workspace));
}

/** A word that may name a file: no quotes, no code. */
const PATH_LIKE = /^[\w@%+=:,./~-]+$/;

/**
 * Whether `script` is a script of the workspace that the interpreter runs as the project's own
 * code: a file name (not code taken for one: `Rscript -e 'system(…)'` without a table reads the
 * code as the operand), inside the workspace, after only options the interpreter's table knows.
 */
export function ownScript(program: string, words: readonly ShellWord[], script: ShellWord, args: ParsedArguments, cwd: string, workspace: string): boolean {
  const value = script.value as string;
  if (!PATH_LIKE.test(value) || value.startsWith("-") || FETCHED_MODULE.test(value)) return false;
  if (!reallyInside(resolve(cwd, value), workspace)) return false;
  // `jupyter execute`, `jupyter nbconvert`: the first word is a subcommand, not a script.
  if (/^jupyter/.test(program)) return false;
  const table = tableOf(program);
  const at = words.indexOf(script);
  // Without a table an option's value cannot be told from the script; with one, an option it does not know may take the next word.
  return args.options.every((option) => (at !== -1 && words.indexOf(option.word) > at) || (table?.bySpelling.has(option.spelling) ?? false));
}

/** A literal path of the workspace (`./build/app`, `build/app.jar`); with `slash`, one that names a folder too (a bare name may be looked up in PATH). */
function ownPath(value: string, cwd: string, workspace: string, slash: boolean): boolean {
  return PATH_LIKE.test(value) && !value.startsWith("-") && (!slash || value.includes("/")) && reallyInside(resolve(cwd, value), workspace);
}

/**
 * Debugger commands that run nothing but the program debugged and print what it did: running,
 * stepping, backtraces, frames, registers, breakpoints at a location (no condition or command: an
 * expression may call a function), quiet settings. Every other command (`shell`, `!`, `python`,
 * `pipe`, `call`, `print f()`, `source`, `set logging file`, `platform shell`, `script`) asks.
 */
const DEBUGGER_COMMANDS =
  /^(run|r|start|starti|continue|c|next|n|nexti|ni|step|s|stepi|si|finish|kill|quit|q|bt|backtrace|where|(bt|backtrace) full|thread apply all (bt|backtrace)( full)?|thread backtrace( all)?|thread list|info (registers|all-registers|locals|args|frame|threads|sharedlibrary|signals|inferiors|breakpoints|source|program)|frame( \d+)?|up( \d+)?|down( \d+)?|list|l|disassemble|process launch|frame variable|register read|image list|set pagination (on|off)|set confirm (on|off)|set print (pretty|elements|frame-arguments|thread-events|inferior-events)( \w+)?|set (width|height) \d+|(break|b|tbreak|watch) [\w.:*&$-]+|breakpoint set (-n|--name|-f|--file|-l|--line) [\w.:-]+|delete|catch (throw|catch|exec|fork|syscall)|handle \w+( (no)?(stop|print|pass))+)$/;

const GDB_FLAGS = /^--?(batch|q|quiet|silent|nx|n|nh|return-child-result|readnow|readnever|nw|nowindows)$/;
const GDB_COMMANDS = /^--?(ex|eval-command|iex|init-eval-command)$/;
const LLDB_FLAGS = /^(-b|--batch|-Q|--source-quietly|-x|--no-lldbinit|-X|--no-use-colors)$/;
const LLDB_COMMANDS = /^(-o|--one-line|-k|--one-line-on-crash|-O|--one-line-before-file)$/;

/**
 * `gdb -batch -ex run -ex bt ./build/app`, `lldb -b -o run -- ./build/app`: the program of the
 * workspace a debugger runs, when every command it is given is one of DEBUGGER_COMMANDS and it is
 * told to attach to nothing (a second operand is a core file or a process); undefined otherwise.
 */
export function debuggedProgram(program: string, words: readonly ShellWord[], cwd: string | undefined, workspace: string): string | undefined {
  if (cwd === undefined || (program !== "gdb" && program !== "lldb")) return undefined;
  const gdb = program === "gdb";
  let target: string | undefined;
  for (let i = 1; i < words.length; i++) {
    const value = words[i]?.value;
    if (value === undefined) return undefined;
    // The program, and after it its own arguments.
    if (target === undefined && ((gdb && /^--?args$/.test(value)) || (!gdb && value === "--"))) {
      target = words[i + 1]?.value;
      break;
    }
    if (!gdb && (value === "-f" || value === "--file")) {
      if (target !== undefined) return undefined;
      target = words[++i]?.value;
      continue;
    }
    if ((gdb ? GDB_FLAGS : LLDB_FLAGS).test(value)) continue;
    const glued = gdb ? /^--?(eval-command|ex|init-eval-command|iex)=(.*)$/s.exec(value) : null;
    if (glued || (gdb ? GDB_COMMANDS : LLDB_COMMANDS).test(value)) {
      const command = glued ? glued[2] : words[++i]?.value;
      if (command === undefined || !DEBUGGER_COMMANDS.test(command.trim().replace(/\s+/g, " "))) return undefined;
      continue;
    }
    if (value.startsWith("-") || target !== undefined) return undefined;
    target = value;
  }
  return target !== undefined && ownPath(target, cwd, workspace, true) ? target : undefined;
}

/**
 * `java -jar build/app.jar`, `java -cp build/classes com.x.Main`, `java src/Main.java`: the
 * workspace's program the JVM runs, after only options that run no code of their own and a class
 * path inside the workspace; undefined otherwise (`java -jar /tmp/x.jar`, `-javaagent:`).
 */
export function javaProgram(words: readonly ShellWord[], cwd: string | undefined, workspace: string): string | undefined {
  if (cwd === undefined) return undefined;
  for (let i = 1; i < words.length; i++) {
    const value = words[i]?.value;
    if (value === undefined) return undefined;
    if (value === "-jar") {
      const jar = words[i + 1]?.value;
      return jar !== undefined && ownPath(jar, cwd, workspace, false) ? jar : undefined;
    }
    if (/^(-cp|-classpath|--class-path)(=|$)/.test(value)) {
      const list = value.includes("=") ? value.slice(value.indexOf("=") + 1) : words[++i]?.value;
      if (list === undefined || !list.split(":").every((entry) => entry !== "" && ownPath(entry.replace(/\/?\*$/, "") || ".", cwd, workspace, false))) return undefined;
      continue;
    }
    if (value === "--source" && /^\d+$/.test(words[i + 1]?.value ?? "")) {
      i += 1;
      continue;
    }
    if (JVM_HARMLESS.test(value)) continue;
    if (value.startsWith("-")) return undefined;
    // A source file of the workspace, or a main class found on the class path given (else the folder it runs in).
    if (value.endsWith(".java")) return ownPath(value, cwd, workspace, false) ? value : undefined;
    return /^[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)*$/.test(value) ? value : undefined;
  }
  return undefined;
}

/**
 * Why a command of the project's build is not the project's own code: a word that names code or a
 * project outside the workspace (`-r /tmp/evil.js`, `--rulesdir /tmp/x`, `-javaagent:/tmp/a.jar`,
 * `make -C /tmp/evil`, a `data:` URL), or the folder it runs in is outside; undefined when none.
 */
export function outsideCode(part: ShellCommandPart, cwd: string | undefined, workspace: string): string | undefined {
  if (cwd === undefined) return "it runs in a folder known only at run time";
  if (!isInside(cwd, workspace)) return `it runs in ${cwd}, outside the workspace`;
  // Bazel's, Buck's and Pants' targets are labels of the workspace (`//src/...`, `//app:main`), not paths from the root.
  const labels = LABEL_BUILDS.test(part.words[0]?.value ?? "");
  for (const word of part.words.slice(1)) {
    if (word.value === undefined) continue;
    if (labels && /^\/\/[\w./:-]*$/.test(word.value) && !/(^|\/)\.\.(\/|:|$)/.test(word.value)) continue;
    for (const candidate of candidates(word.value)) {
      const outside = outsidePlace(candidate, cwd, workspace);
      if (outside) return `${word.value} names ${outside}`;
    }
  }
  return undefined;
}

const LABEL_BUILDS = /^(bazel|bazelisk|buck|buck2|pants)$/;

/** The places a word may name: itself, after `=`, after `:` (`-javaagent:/x`), glued to a short option (`-I/x`). */
function candidates(value: string): string[] {
  const found = [value];
  const eq = value.indexOf("=");
  if (eq !== -1) found.push(value.slice(eq + 1));
  const colon = /^-[A-Za-z-]+:(.+)$/.exec(value);
  if (colon) found.push(colon[1] as string);
  const glued = /^-[A-Za-z]([/~].*)$/.exec(value);
  if (glued) found.push(glued[1] as string);
  return found;
}

function outsidePlace(value: string, cwd: string, workspace: string): string | undefined {
  if (/^data:/i.test(value)) return "code given inline as a data: URL";
  if (value === "~" || value.startsWith("~/")) return `${value}, in the home folder`;
  if (isAbsolute(value)) return SYSTEM_PLACES.test(value) || isInside(value, workspace) ? undefined : `${value}, outside the workspace`;
  if (value.startsWith("../") || value === "..") return isInside(resolve(cwd, value), workspace) ? undefined : `${value}, outside the workspace`;
  return undefined;
}

/** `go run example.com/x/tool@latest`, `deno run npm:cowsay`, `deno run https://…`: code by a registry's name or an address. */
export function fetchedModule(program: string, args: ParsedArguments, cwd: string | undefined): string | undefined {
  const sub = args.operands[0]?.value;
  if (program === "go" && (sub === "run" || sub === "install" || sub === "generate")) {
    const target = args.operands.slice(1).find((each) => each.value !== undefined && !each.value.startsWith("-"));
    const value = target?.value;
    if (value !== undefined && (value.includes("@") || /^[a-z0-9-]+(\.[a-z0-9-]+)+\//i.test(value))) return `go ${sub} ${value} fetches the module by its path`;
    return undefined;
  }
  if (program === "deno" || program === "bun") {
    for (const each of args.operands) {
      const value = each.value;
      if (value !== undefined && (/^(npm|jsr|https?):/i.test(value) || (/^(run|x|exec|install|i|add)$/.test(sub ?? "") && each !== args.operands[0] && value.includes("@") && !exists(cwd, value)))) {
        return `${program} ${sub ?? ""} ${value} runs code fetched by its name or address`.replace("  ", " ");
      }
    }
  }
  return undefined;
}

function exists(cwd: string | undefined, value: string): boolean {
  if (cwd === undefined) return false;
  try {
    const where = resolve(cwd, value.replace(/^~(?=\/|$)/, homedir()));
    return existsSync(where) && statSync(where).isFile();
  } catch {
    return false;
  }
}

/** `npm config set …`, `pip config set …`, `git config --global …`: what changes the user's or the system's settings of a tool; undefined otherwise. */
export function settingsChange(program: string, words: readonly ShellWord[], args: ParsedArguments): string | undefined {
  if (program === "git") return gitSettings(args);
  const listed = SETTINGS_COMMANDS[program];
  if (!listed) return undefined;
  // `aws configure list` and `list-profiles` show the settings (keys masked): they change nothing.
  if (program === "aws" && args.operands[0]?.value === "configure" && /^(list|list-profiles)$/.test(args.operands[1]?.value ?? "")) return undefined;
  const each = listedCommand(listed, words, args);
  return each === undefined ? undefined : `${program} ${each} changes the user's or the system's settings of ${program}`;
}

/** Which of `listed` (`config set`, `env -w`) the command is: by its words as given or by its operands. */
function listedCommand(listed: readonly string[], words: readonly ShellWord[], args: ParsedArguments): string | undefined {
  const given = words.slice(1).map((word) => word.value ?? "");
  const operands = args.operands.map((word) => word.value ?? "");
  for (const each of listed) {
    const wanted = each.split(" ");
    // The words as given (`go env -w`) or the operands (`npm --location=user config set`).
    const matches = (list: string[]) => wanted.every((word, i) => word === "*" || list[i] === word);
    if (matches(given) || matches(operands)) return each;
  }
  return undefined;
}

/** `date -s`, `dmesg --clear`, `strace -p 1`, `git maintenance start`: options and subcommands that change the system or leave a timer; the kind and why. */
export function systemChange(program: string, words: readonly ShellWord[], args: ParsedArguments): { kind: KindRole; why: string } | undefined {
  const listed = SYSTEM_OPTIONS[program];
  if (listed) {
    const given = words.slice(1).map((word) => word.value ?? "");
    const option = given.find((value) => listed.options.some((each) => value === each || value.startsWith(`${each}=`) || (/^-[A-Za-z]$/.test(each) && /^-[A-Za-z]+$/.test(value) && value.includes(each.slice(1)))));
    if (option !== undefined) return { kind: listed.kind, why: `${program} ${option} ${listed.what}` };
  }
  const network = networkSetting(program, words, args);
  if (network) return { kind: { kind: "system", role: "privileges" }, why: network };
  // `date MMDDhhmm[[CC]YY][.ss]`: an operand that is not a format (`+%s`) sets the clock.
  const setting = program === "date" ? args.operands.find((operand) => !(operand.value ?? "").startsWith("+")) : undefined;
  if (setting) return { kind: { kind: "system", role: "privileges" }, why: `date ${setting.value ?? setting.text} sets the system's clock (an operand that is not a +FORMAT is a date to set)` };
  const scheduled = SCHEDULING_COMMANDS[program] && listedCommand(SCHEDULING_COMMANDS[program] as readonly string[], words, args);
  if (scheduled) return { kind: { kind: "system", role: "scheduler" }, why: `${program} ${scheduled} schedules work that runs after the call` };
  return undefined;
}

/** What `ip OBJECT VERB` does that only reads (`ip -br addr`, `ip route get 1.1.1.1`); every other verb, in any abbreviation, changes the machine. */
const IP_READS = /^(show|list|lst|ls|get|help|monitor)$/;

/** `ip link set eth0 down`, `ifconfig eth0 down`, `route add …`, `arp -d …`: what changes the machine's network settings; undefined for the readings. */
function networkSetting(program: string, words: readonly ShellWord[], args: ParsedArguments): string | undefined {
  const values = words.slice(1).map((word) => word.value);
  const operands = args.operands.map((word) => word.value);
  switch (program) {
    case "ip": {
      if (values.some((value) => value === undefined || /^-(b|batch|force|n|netns|N)$/.test(value) || /^-(batch|netns)=/.test(value))) return "ip -batch / -netns runs ip's commands from a file or in another namespace";
      const [object, verb] = operands;
      if (object === "netns" && verb === undefined) return undefined;
      if (verb === undefined || IP_READS.test(verb) || /^(help|monitor|mon)$/.test(object ?? "")) return undefined;
      return `ip ${object} ${verb} changes the machine's interfaces, addresses or routes`;
    }
    case "ifconfig":
      return operands.length > 1 ? `ifconfig ${operands.join(" ")} changes an interface` : undefined;
    case "route":
      return operands.some((value) => value === undefined || /^(add|del|delete|flush|change|replace)$/.test(value)) ? "route changes the routing table" : undefined;
    case "arp":
      return values.some((value) => value === undefined || /^-[A-Za-z]*[dsf]/.test(value) || /^--(delete|set|file)/.test(value)) ? "arp -d / -s / -f changes the neighbour table" : undefined;
    default:
      return undefined;
  }
}

const GIT_READS = /^(--get|--get-all|--get-regexp|--get-urlmatch|-l|--list|--show-origin|--show-scope|--name-only|-z|--null|--type=.*|--default=.*|--includes|--no-includes)$/;

/** `git config --global|--system …` that sets, adds, unsets or edits (not `--get`, `--list`, `get`, `list`). */
function gitSettings(args: ParsedArguments): string | undefined {
  if (args.subcommand !== "config") return undefined;
  const scope = args.options.find((option) => option.name === "--global" || option.name === "--system" || (option.name === "--file" && option.value?.value !== undefined && !option.value.value.startsWith(".")));
  if (!scope) return undefined;
  const words = [...args.options.map((option) => option.spelling), ...args.operands.slice(1).map((word) => word.value ?? "")];
  const operands = args.operands.slice(1).map((word) => word.value ?? "");
  const reading = operands[0] === "get" || operands[0] === "list" || (operands.length <= 1 && !words.some((word) => /^(--unset|--unset-all|--add|--replace-all|--rename-section|--remove-section|-e|--edit|set|unset|edit)$/.test(word))) || args.options.some((option) => GIT_READS.test(option.spelling));
  return reading ? undefined : `git config ${scope.spelling} changes the user's or the system's git settings`;
}
