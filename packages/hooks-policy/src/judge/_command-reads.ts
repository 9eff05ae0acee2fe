import { lstatSync, readFileSync } from "node:fs";
import { dirname, isAbsolute, join, relative } from "node:path";
import { isInside, type PolicyMatch } from "@toolhost/core";
import picomatch from "picomatch";
import { existingReal, expandTilde, LINK_TTL_MS, nearestGit, normalizePath, procAlias, recentRealOf, resolvePath as resolve, samplesOf } from "../paths/_paths.js";
import { TreeGuard } from "../paths/_protected.js";
import type { CompiledRule } from "../rules/_rules.js";
import type { InventoryEntry } from "../inventory/_inventory.js";
import { subcommandOf } from "../shell/_kind-of.js";
import type { Decision } from "../options.js";
import type { ParsedArguments } from "../shell/_options.js";
import type { Touch } from "../shell/_effect-types.js";
import type { ShellCommandPart } from "../shell/_parse.js";
import { type ShellWord, showWord } from "../shell/_words.js";
import { privateHeld } from "./_files.js";
import { WRITES_WITHOUT_READING } from "./_operations.js";
import { type JudgeScope, unique } from "./_scope.js";
import type { ToolRules } from "./_tool-rules.js";

/** Programs that never open their operands: a word known only at run time given to them names no file. */
const NO_FILE_ARGUMENTS = new Set(["echo", "printf", "test", "[", "true", "false", ":", "export", "local", "declare", "typeset", "readonly", "unset", "set", "shift", "exit", "return", "read", "sleep", "seq", "expr", "basename", "dirname", "kill", "let", "wait", "cd", "pushd", "popd"]);

type Add = (rule: CompiledRule, decision: Decision, why: string) => void;

/**
 * What a command reads through its arguments: a word naming a file the read rules deny (`cat
 * .env`, `dd if=.env`, a symlink to it) denies it; a word known only at run time that could name
 * such a file asks; a tree it reads recursively that holds such a file asks.
 */
export function readsOfCommand(scope: JudgeScope, part: ShellCommandPart, program: string, rules: ToolRules, cwds: Array<string | undefined>, matched: PolicyMatch[], notes: string[], entry?: InventoryEntry): string[] {
  /** Paths it reads in a place a `place` rule judges (outside the workspace): each is judged as a read of its own. */
  const placed: string[] = [];
  // Whether the file exists or not: what is judged is where the call may read, not what is there now.
  // A symbolic link's target is a name, not a read: reading through the link is judged where it leads.
  const symbolic = program === "ln" && part.words.some((word) => word.value === "--symbolic" || /^-[a-zA-Z]*s/.test(word.value ?? ""));
  const place = (path: string) => {
    if (!symbolic && rules.readPlaces.length > 0 && !placed.includes(path) && rules.readPlaces.some((rule) => (rule.path as (path: string) => boolean)(path))) placed.push(path);
  };
  const seen = new Set<string>();
  const add: Add = (rule, decision, why) => {
    const key = `${rule.id}:${decision}`;
    if (seen.has(key) || matched.some((entry) => entry.id === rule.id && entry.decision === decision)) return;
    seen.add(key);
    matched.push({ id: rule.id, decision, reason: rule.reason ?? why });
  };
  const cwd = cwds[Math.min(part.cdCount, cwds.length - 1)] ?? cwds[0];
  const words = WRITES_WITHOUT_READING.has(program) && entry !== undefined ? [] : entry ? fileWords(scope, part, entry, cwd) : argumentWords(part);
  const reading: Reading = { scope, rules, add, notes, place };
  for (const word of words) {
    if (word.value === undefined) {
      // A process substitution is a pipe (`<(curl …)`): what runs in it is judged as a command.
      if (!NO_FILE_ARGUMENTS.has(program) && cwd !== undefined && !/^[<>]\(/.test(word.text)) runtimeWord(reading, word, cwd);
      continue;
    }
    const value = word.value;
    if (value === "" || value.startsWith("-") || value.length > 4096 || NO_FILE_ARGUMENTS.has(program)) continue;
    for (const base of cwds) literalWord(reading, word, value, base);
  }
  for (const touch of part.trees ?? []) treeOfCommand(scope, touch, rules, cwd, add, notes, place);
  // The files a find before xargs names, given to a program that reads its operands.
  const readsOperands = !NO_FILE_ARGUMENTS.has(program) && !(WRITES_WITHOUT_READING.has(program) && entry !== undefined) && entry?.row.operands !== "none";
  if (readsOperands) for (const touch of part.tailFrom ?? []) treeOfCommand(scope, touch, rules, cwd, add, notes, place);
  return placed;
}

/** What judging a command's words needs: the rules, where matches and notes go, and the paths judged by their place. */
interface Reading {
  scope: JudgeScope;
  rules: ToolRules;
  add: Add;
  notes: string[];
  place: (path: string) => void;
}

/** A word known only at run time: a glob is judged by its place; one that could name a file a read rule names asks. */
function runtimeWord({ scope, rules, add, notes, place }: Reading, word: ShellWord, cwd: string): void {
  const glob = globPath(scope, word, cwd);
  if (glob !== undefined) place(glob);
  if (rules.readCaution.length === 0) return;
  const rule = couldName(scope, word, rules.readCaution, cwd);
  if (rule) {
    add(rule, "ask", `${word.text} is known only at run time and could name a file ${rule.id} ${rule.decision === "deny" ? "denies" : "asks for"}`);
    notes.push(`${word.text} could name a path ${rule.id} (${rule.decision}) matches`);
  }
}

/** A literal word, relative to one of the folders the command may be in (`base`, undefined after a cd to a run-time folder). */
function literalWord({ scope, rules, add, place }: Reading, word: ShellWord, value: string, base: string | undefined): void {
  const caution = rules.readCaution[0];
  if (base === undefined) {
    // After a cd to a folder known only at run time (`cd "$X" && cat .npmrc`), a relative name may be any file.
    if (!isAbsolute(value) && !(word.tilde && value.startsWith("~")) && caution) {
      add(caution, "ask", `${showWord(word)} is relative to a folder a cd chose at run time, which may hold a file the read rules deny`);
    }
    return;
  }
  // `~user/…` and `~+/…` are expanded as bash does; `~-/…` (the folder before the last cd) is known only at run time.
  const spelled = word.tilde ? expandTilde(value, scope.anchors.homes[0] as string, base) : value;
  if (spelled === undefined) {
    if (caution) add(caution, "ask", `${showWord(word)} names a folder known only at run time, which may hold a file the read rules deny`);
    return;
  }
  const denied = (paths: string[]) => {
    for (const path of paths) {
      for (const rule of rules.readDeny.matching(path)) add(rule, "deny", `${showWord(word)} names a file the read rules deny`);
      place(path);
    }
  };
  if (spelled !== value) return denied(variants(scope, spelled, base, false));
  const lexical = resolve(base, value);
  const through = procAlias(lexical, base);
  if (through === undefined) {
    if (caution) add(caution, "ask", `${showWord(word)} reaches a file through another process's folder or a descriptor, which may be one the read rules deny`);
    return;
  }
  denied(variants(scope, through === lexical ? value : through, base, word.tilde));
}

/** The absolute path of a word that is a glob alone (`~/.*_history`, `/run/secrets/*`): where it reads is judged by its place. */
function globPath(scope: JudgeScope, word: ShellWord, cwd: string): string | undefined {
  const text = word.text.replace(/^(["'])(.*)\1$/, "$2");
  if (/[$`]/.test(text) || !/[*?[]/.test(text)) return undefined;
  return resolve(cwd, text === "~" || text.startsWith("~/") ? (scope.anchors.homes[0] as string) + text.slice(1) : text);
}

/** The words of a command that may name a file it reads: its arguments (an option's `=value` alone), the files its options read, xargs' input. */
function argumentWords(part: ShellCommandPart): ShellWord[] {
  const words: ShellWord[] = [];
  for (const word of part.words.slice(1)) {
    const value = word.value;
    if (value !== undefined && value.startsWith("-") && value.includes("=")) words.push({ ...word, value: value.slice(value.indexOf("=") + 1), tilde: false });
    else words.push(word);
  }
  for (const touch of part.reads ?? []) words.push(touch.path);
  // xargs' input: arguments that come at run time (unless they are the names a find before it prints: judged as its trees).
  if (part.tail && part.tailFrom === undefined) words.push({ text: "(xargs' input)", value: undefined, splits: true, tilde: false });
  return words;
}

/** Git subcommands that print names, never contents: a secret's name given to them reads nothing (`git check-ignore .env`); `add`, `commit` and `stash` read what they store. */
const GIT_NAMES_ONLY = new Set(["status", "ls-files", "check-ignore", "check-attr", "rm", "mv", "restore", "checkout", "switch", "reset", "clean", "branch", "tag", "fetch", "pull", "push", "clone", "init", "config", "remote", "submodule", "worktree", "sparse-checkout", "update-index", "merge", "rebase", "cherry-pick", "revert"]);
/** `git log` prints contents only with a patch. */
const GIT_PATCH = new Set(["-p", "--patch", "-u", "-L", "--full-diff", "--word-diff", "--stat"]);

/**
 * The words of a command the inventory knows that name files it reads: its operands as its row
 * says (none for `ls` and `echo`, all but the first for `grep` and `jq`), the values of its options
 * but those that are patterns, and the files its options read.
 */
function fileWords(scope: JudgeScope, part: ShellCommandPart, entry: InventoryEntry, cwd: string | undefined): ShellWord[] {
  const { row } = entry;
  const args = part.args;
  if (!args) return argumentWords(part);
  // A file its options write that does not exist yet is a write part alone (a new key is no read); one that exists may be read too (`ssh-keygen -y -f KEY`).
  const fresh = (word: ShellWord) => word.value !== undefined && cwd !== undefined && variants(scope, word.value, cwd, word.tilde).every((path) => lstatSync(path, { throwIfNoEntry: false }) === undefined);
  const named = (list: readonly string[], option: { name: string; spelling: string }) => list.includes(option.name) || list.includes(option.spelling);
  const values = args.options.filter((option) => option.value && !named(row.patterns, option) && !(row.writes.length > 0 && named(row.writes, option) && fresh(option.value))).map((option) => option.value as ShellWord);
  // An option the row says writes, when its table does not say it takes a value (`age-keygen -o KEY`): the next word is its file.
  const written = new Set<ShellWord>();
  if (row.writes.length > 0) {
    part.words.forEach((word, index) => {
      const next = part.words[index + 1];
      if (next !== undefined && word.value !== undefined && row.writes.includes(word.value) && fresh(next)) written.add(next);
    });
  }
  const words = [...values, ...(part.reads ?? []).map((touch) => touch.path)];
  if (part.tail && part.tailFrom === undefined) words.push({ text: "(xargs' input)", value: undefined, splits: true, tilde: false });
  if (entry.name === "git") return [...words, ...gitFiles(args)];
  if (row.operands === "none") return words;
  // A subcommand's words (`npm run`, `gh pr create`) name no file.
  const sub = subcommandOf(row, args);
  const operands = sub === undefined ? args.operands : args.operands.slice(sub.words.split(" ").length);
  const unless = row.operandsUnless.some((name) => args.options.some((option) => option.name === name || option.spelling === name));
  const files = row.operands === "after-first" && !unless ? operands.slice(1) : operands;
  // An option the row says takes a pattern, when its table does not say it takes a value (`openssl -subj /CN=x`): the next word is no file.
  if (row.patterns.length > 0) {
    part.words.forEach((word, index) => {
      const next = part.words[index + 1];
      if (next !== undefined && word.value !== undefined && row.patterns.includes(word.value)) written.add(next);
    });
  }
  return [...words, ...(written.size === 0 ? files : files.filter((word) => !written.has(word)))];
}

/** The files a git command prints: the paths of `REV:path`, and the operands of the subcommands that show contents. */
function gitFiles(args: ParsedArguments): ShellWord[] {
  const sub = args.subcommand ?? "";
  const operands = args.operands.slice(1);
  const inHistory = operands.flatMap((operand) => {
    const value = operand.value;
    const colon = value?.indexOf(":") ?? -1;
    if (value === undefined || colon === -1 || /^[a-z+]+:\/\//.test(value)) return [];
    return [{ ...operand, value: value.slice(colon + 1) || ".", tilde: false }];
  });
  if (GIT_NAMES_ONLY.has(sub)) return inHistory;
  if (sub === "log" && !args.options.some((option) => GIT_PATCH.has(option.spelling) || GIT_PATCH.has(option.name))) return inHistory;
  return [...operands, ...inHistory];
}

function treeOfCommand(scope: JudgeScope, touch: Touch, rules: ToolRules, cwd: string | undefined, add: Add, notes: string[], place: (path: string) => void): void {
  const word = touch.path;
  const normalized = word.value !== undefined && cwd !== undefined ? normalizePath(word.value, cwd, word.tilde) : undefined;
  if (normalized?.ok) {
    for (const root of unique([normalized.lexical, normalized.real])) {
      place(root);
      // A private place under it (in /etc) is read too: judged as a read of its own.
      const held = privateHeld(scope, rules, root);
      if (held !== undefined) place(held ?? root);
    }
  }
  else if (word.value === undefined && cwd !== undefined) {
    const glob = globPath(scope, word, cwd);
    if (glob !== undefined) place(glob);
  }
  if (rules.readDeny.rules.length === 0) return;
  const first = rules.readDeny.rules[0] as CompiledRule;
  if (normalized === undefined) {
    add(first, "ask", `reads a tree known only at run time, which may hold files the read rules deny`);
    notes.push(`reads the tree ${word.text}, known only at run time`);
    return;
  }
  if (!normalized.ok) return;
  rules.guard ??= new TreeGuard((path) => rules.readDeny.any(path), LINK_TTL_MS, true);
  for (const root of unique([normalized.lexical, normalized.real])) {
    const above = touch.ignoreFiles ? whitelistedAbove(root, scope.environment.workspace) ?? whitelistedBelow(rules, root) : undefined;
    if (above !== undefined) {
      add(first, "ask", `it reads the tree ${root} recursively, and an ignore file makes it read hidden files there`);
      notes.push(`${above} has a !pattern line, which makes ${touch.via.split(" ")[0] ?? "it"} search the hidden files it names (.env among them, maybe): pass --no-ignore, or name the files to search`);
      continue;
    }
    const guard = guardOf(scope, rules, touch, root);
    const found = guard.find(root);
    // What it leaves out (hidden files and folders below the root) it does not read.
    const seen = found.paths.filter((path) => readsIt(touch, path.slice(root.length)));
    const paths = touch.tracked ? trackedOf(root, seen) : seen;
    // The shared search stops at the first denied file: one the filter leaves out proves nothing of the others (outside the workspace, where a filtered search is not made).
    if (paths.length === 0 && found.paths.length > 0 && guard === rules.guard && filteredRead(touch) && !touch.tracked) {
      add(rules.readDeny.matching(found.paths[0] as string)[0] ?? first, "ask", `it reads the tree ${root} recursively, which holds files the read rules deny`);
      notes.push(`reads ${root} recursively, which holds files the read rules deny (${found.paths[0] as string}); which of them its filter leaves out is checked only inside the workspace`);
      continue;
    }
    if (paths.length === 0 && found.complete) continue;
    const denied = paths.map((path) => rules.readDeny.matching(path)[0]).find((rule) => rule !== undefined) ?? first;
    const shown = paths.join(", ");
    const split = paths.filter((path) => !rules.readDeny.any(path));
    add(denied, "ask", `it reads the tree ${root} recursively, which holds files the read rules deny`);
    if (split.length > 0) notes.push(`${touch.via} hands on the names in ${root} split at blanks and quotes, and ${split.join(", ")} holds one, so it may name another file (use find -print0 | xargs -0)`);
    else notes.push(found.complete ? `reads ${root} recursively, which holds ${shown}` : `reads ${root} recursively, too large to check for denied files`);
  }
}

/** The ignore files rg and ag read in a folder and its parents. */
const IGNORE_FILES = new Set([".gitignore", ".ignore", ".rgignore", ".agignore"]);

/** An ignore file with a `!pattern` line: what it names is searched even when hidden (ripgrep's ignore rules come before its hidden-file rule). */
function whitelisting(path: string): boolean {
  const name = path.slice(path.lastIndexOf("/") + 1);
  if (!IGNORE_FILES.has(name) && !path.endsWith("/.git/info/exclude")) return false;
  try {
    return /^\s*!/m.test(readFileSync(path, "utf8").slice(0, 65_536));
  } catch {
    return false;
  }
}

/** An ignore file of a folder above a tree read (up to the workspace's root), or the repository's exclude file, that whitelists. */
function whitelistedAbove(root: string, workspace: string): string | undefined {
  for (let folder = root; isInside(folder, workspace); folder = dirname(folder)) {
    for (const name of [...IGNORE_FILES, ".git/info/exclude"]) if (whitelisting(join(folder, name))) return join(folder, name);
    if (folder === workspace || dirname(folder) === folder) break;
  }
  return undefined;
}

/**
 * An ignore file below a tree read's root (outside hidden folders, which rg does not enter) that
 * whitelists: the files are found by name (a search kept while the folders do not change), their
 * lines read at each decision (an edit in place changes no folder). A tree too large to search asks.
 */
function whitelistedBelow(rules: ToolRules, root: string): string | undefined {
  rules.ignoreGuard ??= new TreeGuard((path) => IGNORE_FILES.has(path.slice(path.lastIndexOf("/") + 1)), LINK_TTL_MS, false, (folder) => folder.slice(folder.lastIndexOf("/") + 1).startsWith("."));
  const found = rules.ignoreGuard.find(root);
  if (!found.complete) return `${root} (too large to look for ignore files)`;
  return found.paths.find((path) => whitelisting(path));
}

/** A name xargs splits or unquotes (without -0): blanks, quotes, backslashes. */
const SPLIT_NAME = /[\s'"\\]/;

/** Whether a tree read leaves out some files (or hands names on split). */
function filteredRead(touch: Touch): boolean {
  return touch.skipsHidden === true || touch.include !== undefined || touch.exclude !== undefined || touch.excludeDir !== undefined || touch.overrides !== undefined || touch.typed !== undefined || touch.splits === true;
}

/**
 * The guard that finds what a tree read reads of the denied files: the shared one when it reads
 * every file; for a filtered read (`--include`, `-g`, rg's hidden files, find's names), one that
 * finds only the denied files the filter lets through (else the first denied file found, filtered
 * out, would end the search before one it reads), and, for names split at blanks, any such name.
 */
function guardOf(scope: JudgeScope, rules: ToolRules, touch: Touch, root: string): TreeGuard {
  const filtered = filteredRead(touch);
  // Outside the workspace the place rules judge a tree read (its private places ask), and walking all of `/` for what a filter lets through is too slow.
  if (!filtered || !isInside(root, scope.environment.workspace)) return rules.guard as TreeGuard;
  const key = JSON.stringify([root, touch.skipsHidden, touch.include, touch.exclude, touch.excludeDir, touch.overrides, touch.typed, touch.splits]);
  rules.filteredGuards ??= new Map();
  let guard = rules.filteredGuards.get(key);
  if (guard === undefined) {
    const below = (path: string) => path.slice(root.length);
    const found = (path: string) => (rules.readDeny.any(path) || (touch.splits === true && SPLIT_NAME.test(below(path)))) && (path === root || readsIt(touch, below(path)));
    // Folders the read never enters (hidden ones rg leaves out and no glob names, --exclude-dir) are not walked.
    const skipped = (folder: string) => !enters(touch, below(folder));
    guard = new TreeGuard(found, LINK_TTL_MS, true, skipped);
    if (rules.filteredGuards.size >= 64) rules.filteredGuards.clear();
    rules.filteredGuards.set(key, guard);
  }
  return guard;
}

/**
 * The paths git tracks, of those given (below `root`): in no repository, all of them (git fails,
 * or with grep.fallbackToNoIndex set in a config searches every file); else
 * those the repository's index names. Where that cannot be read for sure (a `.git` file of a
 * worktree, `GIT_DIR` of the host, an index of version 4 whose names are compressed), all of them.
 */
function trackedOf(root: string, paths: string[]): string[] {
  const env = process.env;
  if (paths.length === 0 || env.GIT_DIR !== undefined || env.GIT_WORK_TREE !== undefined || env.GIT_INDEX_FILE !== undefined || env.GIT_CEILING_DIRECTORIES !== undefined) return paths;
  // In no repository git refuses, unless the user's or the system's git config sets
  // grep.fallbackToNoIndex, which makes it search every file: what that config says is not read here.
  const top = nearestGit(root);
  if (top === undefined || !lstatSync(join(top, ".git")).isDirectory()) return paths;
  let index: Buffer;
  try {
    index = readFileSync(join(top, ".git", "index"));
  } catch {
    return lstatSync(join(top, ".git", "index"), { throwIfNoEntry: false }) === undefined ? [] : paths;
  }
  if (index.toString("latin1", 0, 4) !== "DIRC" || index.readUInt32BE(4) >= 4) return paths;
  return paths.filter((path) => index.includes(Buffer.from(`${relative(top, path)}\0`)));
}

/** Whether a tree read reads the file at `relative` (below its root): not when it leaves out hidden ones, or what its options leave out. */
function readsIt(touch: Touch, relative: string): boolean {
  const segments = relative.split("/").filter((segment) => segment !== "");
  const name = segments[segments.length - 1] ?? "";
  if (touch.overrides !== undefined || touch.typed !== undefined) return ripgrepReads(touch, segments);
  if (touch.skipsHidden && segments.some((segment) => segment.startsWith("."))) return false;
  const named = (globs: string[] | undefined, text: string) => (globs ?? []).some((glob) => picomatch.isMatch(text, glob, { dot: true }));
  if ((touch.include?.length ?? 0) > 0 && !named(touch.include, name)) return false;
  if (named(touch.exclude, name)) return false;
  return !segments.slice(0, -1).some((segment) => named(touch.excludeDir, segment));
}

/** Whether a tree read enters the folder at `relative` below its root (false only when its filter proves it does not). */
function enters(touch: Touch, relative: string): boolean {
  const name = relative.slice(relative.lastIndexOf("/") + 1);
  if ((touch.excludeDir ?? []).some((glob) => picomatch.isMatch(name, glob, { dot: true }))) return false;
  if (!touch.skipsHidden || !name.startsWith(".")) return true;
  return (touch.overrides ?? []).some((each) => !each.exclude);
}

/**
 * Whether rg reads the file at `segments` below its root, by its globs and types (ripgrep's order):
 * a folder a glob excludes is not entered, nor a hidden one no glob includes (unless it reads hidden
 * files); for the file, the last glob that matches decides and an include reads it even when hidden;
 * with includes, a file none matches is not read; with types, only a file a type names is (hidden too).
 */
function ripgrepReads(touch: Touch, segments: string[]): boolean {
  const overrides = touch.overrides ?? [];
  const last = (path: string, name: string) => {
    for (let i = overrides.length - 1; i >= 0; i--) {
      const each = overrides[i] as (typeof overrides)[number];
      const glob = each.glob.replace(/^\//, "");
      const anchored = glob.replace(/\/$/, "").includes("/");
      if (picomatch.isMatch(anchored ? path : name, glob.replace(/\/$/, ""), { dot: true, nocase: each.nocase })) return each;
    }
    return undefined;
  };
  for (let i = 0; i < segments.length - 1; i++) {
    const name = segments[i] as string;
    const decided = last(segments.slice(0, i + 1).join("/"), name);
    if (decided?.exclude) return false;
    if (touch.skipsHidden && name.startsWith(".") && decided === undefined) return false;
  }
  const name = segments[segments.length - 1] ?? "";
  const decided = last(segments.join("/"), name);
  if (decided !== undefined) return !decided.exclude;
  if (overrides.some((each) => !each.exclude)) return false;
  if (touch.typed !== undefined) return touch.typed.some((glob) => picomatch.isMatch(name, glob, { dot: true }));
  return !(touch.skipsHidden && name.startsWith("."));
}

/** The path an argument names, and where it leads when it exists and symlinks are followed. */
function variants(scope: JudgeScope, value: string, cwd: string, tilde: boolean): string[] {
  if (value.includes("\0")) return [];
  let path = value;
  if (tilde && (value === "~" || value.startsWith("~/"))) path = (scope.anchors.homes[0] as string) + value.slice(1);
  const lexical = resolve(cwd, path);
  const dotted = path.includes("..") && path.split("/").includes("..");
  // A file not there (yet) is still where the links of its existing folders lead (`d/root/.bash_history` with d -> /).
  const real = existingReal(dotted ? `${cwd}/${path}` : lexical) ?? (dotted ? undefined : recentRealOf(lexical));
  return real === undefined || real === lexical ? [lexical] : [lexical, real];
}

/** The first deny/ask read rule a word known only at run time could name a path of, if any. */
function couldName(scope: JudgeScope, word: ShellWord, caution: CompiledRule[], cwd: string): CompiledRule | undefined {
  const text = word.text.replace(/^(["'])(.*)\1$/, "$2");
  const pureGlob = !/[$`]/.test(text) && /[*?[]/.test(text);
  if (!pureGlob) return caution[0];
  const path = resolve(cwd, text.startsWith("~/") ? scope.anchors.homes[0] + text.slice(1) : text);
  let cache = couldNameCache.get(caution);
  if (!cache) couldNameCache.set(caution, (cache = new Map()));
  const known = cache.get(path);
  if (known !== undefined) return known ?? undefined;
  const glob = picomatch(path, { dot: true });
  const folder = dirname(path);
  const found = caution.find((rule) => rule.rule.path !== undefined && samplesOf(rule.rule.path, scope.anchors, folder).some((sample) => glob(sample) || glob(`${sample}/x`)));
  if (cache.size >= 1024) cache.clear();
  cache.set(path, found ?? null);
  return found;
}

/**
 * What `couldName` found for a glob word, by the rules asked (one list per tool of a policy) and the
 * glob's path: the same glob (`*.ts`, `src/**`) comes back call after call, and compiling it and the
 * rules' samples is most of its cost. The answer depends on no file, only on the glob and the rules.
 */
const couldNameCache = new WeakMap<readonly CompiledRule[], Map<string, CompiledRule | null>>();
