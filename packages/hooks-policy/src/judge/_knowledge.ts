import { existsSync } from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { isInside } from "@toolhost/core";
import type { Inventory, InventoryEntry } from "../inventory/_inventory.js";
import { hasAny, kindText, optionAlone, rowKind } from "../shell/_kind-of.js";
import { KIND_WORDS, type KindRole, ROLE_WORDS } from "../inventory/_kinds.js";
import { parseArguments, type ParsedArguments } from "../shell/_options.js";
import type { ShellCommandPart } from "../shell/_parse.js";
import type { ShellWord } from "../shell/_words.js";
import { environmentDump } from "./_environment.js";
import { gitJudgment } from "./_git.js";
import { apiRead, cloudCall, configCredential, CONFIG_GETTERS, npmCredential, OTHER_CLOUDS } from "./_network-reads.js";
import { toolArguments } from "./_documents.js";
import { archiveEscape, setsId } from "./_operations.js";
import { debuggedProgram, FETCHED, reallyInside, fetchedModule, javaProgram, NOT_THE_PROJECTS, outsideCode, ownScript, SETTINGS, settingsChange, systemChange } from "./_project-code.js";

/** What the inventory says of one simple command. */
export interface CommandKnowledge {
  /** Its row; absent when the inventory does not know the program (or it is run by a path the row cannot vouch for). */
  entry?: InventoryEntry;
  kind: KindRole;
  /** In words, for the explanation: `inventory: git push publishes (network:publisher)`. */
  note: string;
  /** Why it is at least ask whatever the rules say (a privileged container, a cluster's secrets). */
  atLeastAsk?: string;
}

/** Folders whose programs are the system's: a program run by a path in one is what the inventory says of its name. */
const SYSTEM_BIN = /^\/(usr\/(local\/)?)?s?bin\/[^/]+$|^\/opt\/homebrew\/bin\/[^/]+$|^\/snap\/bin\/[^/]+$/;
/** Python's way of running a module: `python -m pytest` is pytest. */
const PYTHON = /^(python|pypy)[0-9.]*$/;

/** What a command's program is, for a command whose program is known before it runs; undefined otherwise. */
export function knowledgeOf(inventory: Inventory, part: ShellCommandPart, cwd: string | undefined, workspace: string): CommandKnowledge | undefined {
  const known = programKnowledge(inventory, part, cwd, workspace);
  return known && projectCode(known, part, cwd, workspace);
}

/**
 * The project's build is the project's files: one that loads code from outside the workspace, runs
 * in a folder outside it, or runs a module fetched by name is not (trust does not cover it).
 */
function projectCode(known: CommandKnowledge, part: ShellCommandPart, cwd: string | undefined, workspace: string): CommandKnowledge {
  if (part.printsOnly !== undefined && known.kind.kind === "runs-code" && part.words.length <= 3) {
    return { ...known, kind: { kind: "read-only" }, note: `${known.note}; but its inline code only prints constants (${JSON.stringify(part.printsOnly.slice(0, 40))}): it reads only` };
  }
  const program = (part.words[0]?.value ?? "").replace(/^.*\//, "");
  const args = part.args ?? parseArguments(program, part.words.slice(1));
  const settings = known.entry ? settingsChange(program, part.words, args) : undefined;
  if (settings) return { ...known, kind: SETTINGS, note: `${known.note}; but ${settings} (system:settings)` };
  const system = known.entry ? systemChange(program, part.words, args) : undefined;
  // At least ask whatever the rules say: a rule that allows the program by its name (`readonly`'s `date`) allows it as a reader.
  if (system) return { ...known, kind: system.kind, note: `${known.note}; but ${system.why} (${system.kind.kind}:${system.kind.role ?? ""})`, atLeastAsk: system.why };
  if (known.kind.role !== "build") return known;
  const fetched = fetchedModule(program, args, cwd);
  if (fetched) return { ...known, kind: FETCHED, note: `${known.note}; but ${fetched}, which is not the project's build (installs:fetch-run)` };
  const outside = outsideCode(part, cwd, workspace);
  if (outside) return { ...known, kind: NOT_THE_PROJECTS, note: `${known.note}; but ${outside}, so it is not only the project's own code (runs-code:interpreter)` };
  return known;
}

function programKnowledge(inventory: Inventory, part: ShellCommandPart, cwd: string | undefined, workspace: string): CommandKnowledge | undefined {
  const name = part.words[0]?.value;
  if (name === undefined) return undefined;
  const program = name.slice(name.lastIndexOf("/") + 1);
  const args = part.args ?? parseArguments(program, part.words.slice(1));
  if (name.includes("/") && !SYSTEM_BIN.test(name)) {
    return wrapperScript(inventory, name, program, part.words, args, cwd, workspace) ?? (part.searched === undefined ? pathProgram(name, program, cwd, workspace) : searchedProgram(part.searched, name, program, cwd, workspace));
  }
  const module = PYTHON.test(program) ? pythonModule(inventory, part.words, args) : undefined;
  if (module) return module;
  const entry = inventory.lookup(program);
  const dump = environmentDump(program, part);
  if (dump !== undefined) {
    const why = `${dump}, and the host redacts only the variables it knows by name`;
    // A kind, not an ask whatever the rules say: a policy that allows secret stores (or every call) decides.
    return { ...(entry && { entry }), kind: { kind: "system", role: "secrets" }, note: why };
  }
  if (!entry) return onlyAsksItsVersion(part.words) ?? unknownProgram(program);
  const { kind, by } = rowKind(entry, args, part.words);
  const unknownOptions = args.unknown;
  if (unknownOptions !== undefined && unknownOptions.length > 0 && !onlyAsksItsVersion(part.words) && !optionAlone(entry.row, part.words)) {
    // A program the inventory knows, given an option it does not (issue 39): it may write, run or change the system.
    const which = [...new Set(unknownOptions)].join(", ");
    const why = `${program} ${which}: the inventory knows every option of ${program} but not ${unknownOptions.length === 1 ? "this one" : "these"}, so what it does is not known (teach it: a rule { command: "${program} ${unknownOptions[0]} *", decision: allow })`;
    return { entry, kind: { kind: "unknown" }, note: why, atLeastAsk: why };
  }
  const known: CommandKnowledge = { entry, kind, note: described(by, kind, entry) };
  return adjusted(known, program, part, args, cwd, workspace);
}

function described(by: string, kind: KindRole, entry: InventoryEntry): string {
  const role = kind.role ? ` (${ROLE_WORDS[kind.role] ?? kind.role})` : "";
  const where = entry.source === "inventory" ? "inventory" : `inventory row of ${entry.source}`;
  return `${where}: ${by} ${KIND_WORDS[kind.kind]}${role}`;
}

function unknownProgram(program: string): CommandKnowledge {
  return {
    kind: { kind: "unknown" },
    note: `the inventory does not know ${program} (teach it: a rule { command: "${program} *", decision: allow }, or programs: { ${program}: read-only } in a policy)`,
  };
}

/**
 * An unknown program given only `--version`, `--help`, `-h`, `-V`, `version` or `help` prints what
 * it is (issue 39). A program of the workspace is the project's code (judged by its path, not here).
 */
function onlyAsksItsVersion(words: readonly ShellWord[]): CommandKnowledge | undefined {
  const only = words.length === 2 ? words[1]?.value : undefined;
  if (only === undefined || !/^(--version|-V|--help|-h|version|help)$/.test(only)) return undefined;
  const program = words[0]?.value ?? "";
  return { kind: { kind: "read-only" }, note: `${program} ${only} prints its version or usage, and does nothing else` };
}

/** The wrapper scripts projects keep of the build tools (`./mvnw`, `./gradlew`, `./sbtx`): the tool itself, by its row. */
const BUILD_WRAPPERS = new Map([["mvnw", "mvnw"], ["gradlew", "gradlew"], ["sbtx", "sbt"], ["sbtn", "sbt"], ["sbt", "sbt"], ["lein", "lein"], ["x.py", "x.py"]]);

/**
 * `./mvnw deploy`, `./gradlew publish`: a workspace's wrapper of a known build tool runs that tool
 * with the words given, so its goals are judged by the tool's row (publishing asks), not as the
 * workspace's own program (issue 39). One outside the workspace is not the project's (`pathProgram`).
 */
function wrapperScript(inventory: Inventory, name: string, program: string, words: readonly ShellWord[], args: ParsedArguments, cwd: string | undefined, workspace: string): CommandKnowledge | undefined {
  if (cwd === undefined && !isAbsolute(name)) return undefined;
  if (!isInside(resolve(cwd ?? "/", name), workspace)) return undefined;
  const tool = BUILD_WRAPPERS.get(program.replace(/\.(bat|cmd|sh)$/, ""));
  const entry = tool === undefined ? undefined : inventory.lookup(tool);
  if (!entry) return undefined;
  const { kind, by } = rowKind(entry, args, words);
  // The wrapper is the project's code whatever it is asked: never less than its build.
  const build: KindRole = { kind: "runs-code", role: "build" };
  const graver = kind.kind === "read-only" || kind.kind === "writes" || kind.kind === "runner" ? build : kind;
  return { entry, kind: graver, note: `${name} is the workspace's wrapper of ${tool}, judged by its row: ${described(by.replace(/^\S+/, name), graver, entry).replace(/^inventory: /, "")}` };
}

/** A program run by a path (`./run-tests`, `node_modules/.bin/x`, `/tmp/cat`): the repository's own, or one the inventory cannot vouch for by its name. */
function pathProgram(name: string, program: string, cwd: string | undefined, workspace: string): CommandKnowledge {
  const where = cwd === undefined && !isAbsolute(name) ? undefined : resolve(cwd ?? "/", name);
  // Through a link of the workspace (`d -> /`: `d/tmp/x`) the program is where the link leads.
  if (where !== undefined && reallyInside(where, workspace)) {
    return { kind: { kind: "runs-code", role: "build" }, note: `${name} is a program of the workspace: the repository's own code` };
  }
  return { kind: { kind: "unknown" }, note: `${name} is run by a path outside the system's folders, so the inventory's row of ${program} does not vouch for it: teach it with a rule ({ command: "${name} *", decision: allow })` };
}

/**
 * A program a PATH setting may make a name run (`PATH=node_modules/.bin:$PATH tsc` as
 * `node_modules/.bin/tsc`): the project's own in a folder of the workspace; from a folder outside
 * it, not the project's and at least ask whatever the rules say (a rule allowing `tsc` allows the
 * system's tsc, not whatever that folder holds).
 */
function searchedProgram(setting: string, name: string, program: string, cwd: string | undefined, workspace: string): CommandKnowledge {
  const known = pathProgram(name, program, cwd, workspace);
  if (known.kind.kind !== "unknown") return known;
  const folder = name.slice(0, name.lastIndexOf("/"));
  const why = `${setting} puts ${folder}, outside the workspace, among the folders names are looked up in: ${program === "…" ? "a later name" : program} may run a program from there, which is not the project's`;
  return { kind: { kind: "unknown" }, note: why, atLeastAsk: why };
}

/** `python -m MODULE …` is MODULE's row, for the words after it. */
function pythonModule(inventory: Inventory, words: readonly ShellWord[], args: ParsedArguments): CommandKnowledge | undefined {
  const option = args.options.find((each) => each.name === "-m");
  const module = option?.value?.value;
  if (module === undefined) return undefined;
  const entry = inventory.lookup(module);
  if (!entry) return undefined;
  const at = words.findIndex((word) => word === option?.value || word.value === module || word.value?.endsWith(`m${module}`));
  const rest = words.slice(at === -1 ? words.length : at);
  const { kind, by } = rowKind(entry, parseArguments(module, rest.slice(1)), rest);
  return { entry, kind, note: described(`python -m ${by}`, kind, entry) };
}

/** What the row alone cannot say: a script of the workspace, a container given the host, an upload, a cluster's secrets. */
function adjusted(known: CommandKnowledge, program: string, part: ShellCommandPart, args: ParsedArguments, cwd: string | undefined, workspace: string): CommandKnowledge {
  const { kind } = known;
  if (program === "git") {
    const git = gitJudgment(part.words, args, cwd);
    if (git) return { ...known, kind: git.kind, note: `${known.note}; but ${git.why} (${kindText(git.kind)})` };
  }
  // The project's build output run under a debugger or by the JVM is the project's code, as `node dist/x.js` is.
  const built = program === "java" ? javaProgram(part.words, cwd, workspace) : kind.role === "debugger" ? debuggedProgram(program, part.words, cwd, workspace) : undefined;
  if (built !== undefined) return { ...known, kind: { kind: "runs-code", role: "build" }, note: `${known.note}; ${built} is the workspace's own program, which ${program} runs` };
  // sqlite-utils' Python (--convert, --functions, convert) is given on the line: no script of the workspace.
  if (program === "sqlite-utils") return toolArguments(known, program, part.words, args, () => false);
  if (kind.role === "interpreter" || kind.role === "shell") return interpreted(known, part, args, cwd, workspace);
  if (program === "docker" || program === "podman" || program === "nerdctl") return container(known, part.words, args);
  if (program === "gh" && args.operands[0]?.value === "api") return apiCall(known, part.words, args);
  if (program === "aws" || program === "gcloud" || program === "az" || OTHER_CLOUDS.has(program)) return cloudCall(known, program, part.words);
  if (program === "npm") return npmCredential(known, part.words);
  if (CONFIG_GETTERS.has(program)) {
    const credential = configCredential(known, program, args.operands);
    if (credential !== known) return credential;
  }
  const escape = archiveEscape(program, part.words, cwd, workspace);
  if (escape !== undefined) return { ...known, kind: { kind: "destroys", role: "host" }, note: `${known.note}; ${escape}` };
  if (program === "chmod" && !hasAny(args, part.words, ["--reference"]) && setsId(args.operands[0]?.value)) {
    const mode = args.operands[0]?.value;
    const why = `${mode === undefined ? "chmod's mode is known only at run time and may set" : `chmod ${mode} sets`} a set-user-ID or set-group-ID bit: the program runs with its owner's rights`;
    return { ...known, kind: { kind: "system", role: "privileges" }, note: `${known.note}; ${why}` };
  }
  if (program === "scp" || program === "rsync") return copyDirection(known, program, args);
  // `mount`, `mount -l`, `mount -t ext4` with nothing to mount list what is mounted.
  if (program === "mount" && args.operands.length === 0 && part.words.slice(1).every((word, i, rest) => /^(-l|--show-labels|-v|--verbose|-t|--types)$/.test(word.value ?? "") || (/^(-t|--types)$/.test(rest[i - 1]?.value ?? "") && word.value !== undefined))) {
    return { ...known, kind: { kind: "read-only" }, note: `${known.note}; but with nothing to mount it lists what is mounted (reads only)` };
  }
  if (program === "npx" || program === "bunx" || program === "pnpx" || (program === "npm" && /^(exec|x)$/.test(args.operands[0]?.value ?? ""))) return packageRunner(known, part.words, cwd, workspace);
  if ((program === "kubectl" || program === "oc") && /(^|,)secrets?(\.[\w.]+)?(\/|,|$)/.test(args.operands[1]?.value ?? "") && args.operands[0]?.value === "get" && hasAny(args, part.words, ["-o", "--output", "--template"]) && !namesOnly(part.words)) {
    return { ...known, kind: { kind: "system", role: "secrets" }, note: `${known.note}; kubectl get secret -o prints the cluster's secrets`, atLeastAsk: "kubectl get secret -o prints the cluster's secrets" };
  }
  return toolArguments(known, program, part.words, args, (folder) => cwd === undefined || resolve(cwd, folder) === resolve(workspace));
}

/** `kubectl get secrets -o name`: every output asked for is the objects' names, and no template prints their data. */
function namesOnly(words: readonly ShellWord[]): boolean {
  let outputs = 0;
  for (let i = 1; i < words.length; i++) {
    const text = words[i]?.value;
    if (text === undefined) return false;
    if (/^--template(=|$)/.test(text)) return false;
    const glued = /^(?:-o=?|--output=)(.*)$/.exec(text);
    const value = text === "-o" || text === "--output" ? words[++i]?.value : glued ? glued[1] : null;
    if (value === null) continue;
    if (value !== "name") return false;
    outputs++;
  }
  return outputs > 0;
}

/**
 * `npx tsc`: a package runner runs the project's own program when `node_modules/.bin` of the
 * folder or one above it in the workspace has it; else it downloads the package and runs it
 * (without a terminal it does not ask), as with `--yes`, `-p` or a version (`pkg@1`).
 */
function packageRunner(known: CommandKnowledge, words: readonly ShellWord[], cwd: string | undefined, workspace: string): CommandKnowledge {
  let i = words[0]?.value === "npm" ? 2 : 1;
  for (; i < words.length; i++) {
    const value = words[i]?.value;
    if (value === undefined || value === "--") return value === "--" ? lookFor(known, words[i + 1]?.value, cwd, workspace) : known;
    if (/^(-y|--yes|-p|--package|-c|--call)(=|$)/.test(value)) return known;
    if (!value.startsWith("-")) break;
  }
  return lookFor(known, words[i]?.value, cwd, workspace);
}

function lookFor(known: CommandKnowledge, command: string | undefined, cwd: string | undefined, workspace: string): CommandKnowledge {
  if (command === undefined || cwd === undefined || command.includes("@") || command.includes("/")) return known;
  for (let folder = cwd; isInside(folder, workspace); folder = dirname(folder)) {
    if (existsSync(join(folder, "node_modules", ".bin", command))) {
      // The project's own program, as the project's build is: asked in a workspace not trusted, and not the project's when told to load code from elsewhere.
      return { ...known, kind: { kind: "runs-code", role: "build" }, note: `${known.note}; ${command} is the project's own (node_modules/.bin), so it runs that (runs-code:build)` };
    }
    if (folder === workspace || dirname(folder) === folder) break;
  }
  return known;
}

/** An interpreter or shell given a script of the workspace runs the project's own code (`node scripts/build.mjs`, `bash ./test.sh`). */
function interpreted(known: CommandKnowledge, part: ShellCommandPart, args: ParsedArguments, cwd: string | undefined, workspace: string): CommandKnowledge {
  // `deno run x.ts`, `bun run x`: the script follows the subcommand.
  const script = part.script ?? (known.entry?.row.subcommands.size && /^(run|test)$/.test(args.operands[0]?.value ?? "") ? args.operands[1] : args.operands[0]);
  if (part.inline !== undefined || part.printsOnly !== undefined || !script || script.value === undefined || cwd === undefined) return known;
  const program = (part.words[0]?.value ?? "").replace(/^.*\//, "");
  if (part.script === undefined && !ownScript(program, part.words, script, args, cwd, workspace)) return known;
  if (!reallyInside(resolve(cwd, script.value), workspace)) return known;
  return { ...known, kind: { kind: "runs-code", role: "build" }, note: `${known.note}; ${script.value} is the workspace's own script` };
}

const HOST_NAMESPACES = /^(host)$/;
const HOST_PATHS = /^(\/|~|\/(etc|root|home|var|run|proc|sys|dev|boot|usr|bin|sbin|lib|opt|srv|mnt)(\/.*)?|.*docker\.sock)$/;

/** `docker run --privileged`, `--pid=host`, `-v /:/host`, the docker socket: the container is the host. */
function container(known: CommandKnowledge, words: readonly ShellWord[], args: ParsedArguments): CommandKnowledge {
  const sub = args.operands[0]?.value;
  if (sub !== "run" && sub !== "create" && sub !== "exec" && !(sub === "container" && /^(run|create)$/.test(args.operands[1]?.value ?? ""))) return known;
  const why = hostAccess(words, args);
  if (why === undefined) return known;
  return { ...known, kind: { kind: "destroys", role: "host" }, note: `${known.note}; ${why}: the container can change the host`, atLeastAsk: `${why}: the container can change the host` };
}

function hostAccess(words: readonly ShellWord[], args: ParsedArguments): string | undefined {
  if (hasAny(args, words, ["--privileged"])) return "--privileged";
  for (const option of ["--pid", "--network", "--net", "--ipc", "--uts", "--userns", "--cgroupns"]) {
    for (const value of valuesOf(args, words, option)) if (HOST_NAMESPACES.test(value)) return `${option}=${value}`;
  }
  for (const value of valuesOf(args, words, "--cap-add")) if (/^(all|sys_admin|sys_ptrace|sys_module|dac_read_search|net_admin)$/i.test(value.replace(/^cap_/i, ""))) return `--cap-add=${value}`;
  for (const value of valuesOf(args, words, "--security-opt")) if (/unconfined|label[:=]disable/.test(value)) return `--security-opt=${value}`;
  if (valuesOf(args, words, "--device").length > 0) return "--device";
  for (const value of [...valuesOf(args, words, "-v"), ...valuesOf(args, words, "--volume")]) {
    const source = value.split(":")[0] ?? "";
    if (HOST_PATHS.test(source.replace(/\/+$/, "") || "/")) return `-v ${value}`;
  }
  for (const value of valuesOf(args, words, "--mount")) {
    const source = /(?:^|,)(?:source|src)=([^,]*)/.exec(value)?.[1];
    if (source !== undefined && HOST_PATHS.test(source.replace(/\/+$/, "") || "/")) return `--mount ${value}`;
  }
  return undefined;
}

/** Every value of one option: read by the table, or from the words (`--pid host`, `--pid=host`, `-vX`). */
function valuesOf(args: ParsedArguments, words: readonly ShellWord[], option: string): string[] {
  const values = args.options.filter((each) => each.name === option || each.spelling === option).flatMap((each) => (each.value?.value === undefined ? [] : [each.value.value]));
  for (let i = 1; i < words.length; i++) {
    const text = words[i]?.value;
    if (text === undefined) continue;
    if (text.startsWith(`${option}=`)) values.push(text.slice(option.length + 1));
    else if (text === option && words[i + 1]?.value !== undefined) values.push(words[i + 1]?.value as string);
  }
  return values;
}

/** `gh api` reads with GET; a method, fields or an input make it write. */
function apiCall(known: CommandKnowledge, words: readonly ShellWord[], args: ParsedArguments): CommandKnowledge {
  const method = [...valuesOf(args, words, "-X"), ...valuesOf(args, words, "--method")][0]?.toUpperCase();
  const fields = hasAny(args, words, ["-f", "-F", "--field", "--raw-field", "--input"]);
  if ((method === undefined || method === "GET") && !fields) return apiRead(known, words);
  return { ...known, kind: { kind: "network", role: "publisher" }, note: `${known.note}; gh api ${method ?? "with fields"} changes what is on GitHub (network:publisher)` };
}

/** scp and rsync: to a remote host they upload; from one they download; between local paths they only write. */
function copyDirection(known: CommandKnowledge, program: string, args: ParsedArguments): CommandKnowledge {
  const operands = args.operands.map((each) => each.value);
  const remote = (value: string | undefined) => value === undefined || (/^[^/]*:/.test(value) && !value.startsWith("./"));
  const destination = operands[operands.length - 1];
  if (operands.length >= 2 && remote(destination)) return { ...known, kind: { kind: "network", role: "uploader" }, note: `${known.note}; ${program} to ${destination ?? "a destination known only at run time"} sends files off the machine (network:uploader)` };
  if (operands.some(remote)) return known;
  return { ...known, kind: { kind: "writes" }, note: `${known.note}; between local paths ${program} only writes its destination (writes)` };
}
