import type { CommandAccess, PolicyMatch, PolicyPart } from "@toolhost/core";
import type { CommandPattern } from "../rules/_command-pattern.js";
import { clip, decideLayered, finish } from "../explain/_explanation.js";
import { folderOf, gitTopOf, resolvePath as resolve } from "../paths/_paths.js";
import { type CompiledRule, matchOf } from "../rules/_rules.js";
import { type ParsedCommand, parseCommand, type ShellCommandPart } from "../shell/_parse.js";
import { type ShellWord, showWord } from "../shell/_words.js";
import { kindMatches } from "../inventory/_kinds.js";
import { readsOfCommand } from "./_command-reads.js";
import { type CommandKnowledge, knowledgeOf } from "./_knowledge.js";
import { type Planted, plantedBy, pkgScripts, subjectOf, unreadablePlant } from "./_planted.js";
import { foldedOperands } from "./_spellings.js";
import { changesMetadataOnly, judgeFile, judgePath } from "./_files.js";
import { type JudgeScope, LIFTED } from "./_scope.js";
import { lifts, type ToolRules } from "./_tool-rules.js";

/*
 * Parts that are commands: a declared shell command is parsed into every simple command it runs
 * and every file its redirects and writers touch; each is judged by its rules.
 */

/** Recipes planted in recipes are judged this deep; deeper, they ask. */
const MAX_PLANTED_DEPTH = 2;

/**
 * Judges a declared shell command: each of its parts goes into `parts`. `depth` counts recipes
 * judged inside recipes; `limited`: the call is confined with limits on processes, memory and file
 * size, so what would fill the process table ends at them (a sandboxed rule may decide it).
 */
export function judgeShell(scope: JudgeScope, command: CommandAccess, rules: ToolRules, cwd: string, parts: PolicyPart[], depth = 0, limited = false): void {
  const where = command.cwd ? resolve(cwd, command.cwd) : cwd;
  const parsed = parseCommand(command.command, scope.knowledge);
  const cwds = cwdsOf(parsed, where);
  const before = parts.length;
  const written = new Set<string>();
  const planted: Planted[] = [];
  /** By a command part's index: the rules of the policy's own layers (not a preset's) whose pattern matched it. */
  const named = new Map<number, PolicyMatch[]>();
  for (const [index, part] of parsed.parts.entries()) {
    if (part.kind === "command") {
      const placed: string[] = [];
      const own: PolicyMatch[] = [];
      parts.push(judgeCommand(scope, part, rules, cwds, placed, own));
      named.set(index, own);
      // What it reads outside the workspace, where a place rule judges: a read of its own, by the read rules.
      for (const path of placed) parts.push(judgePath(scope, "read", path, rules.read, rules.readWhole, where));
      const plantedHere = plantedProgram(part, cwds, written);
      if (plantedHere !== undefined) parts.push(judgeUnknown(scope, showWord(part.words[0] as ShellWord), `it runs ${plantedHere}, which this command writes first: code the call wrote, not the project's own file`, rules));
      if (planted.length > 0 && runsRecipes(scope, part, cwds)) judgePlanted(scope, part, planted, rules, where, parts, depth);
      const scripts = pkgScripts(part);
      if (scripts) planted.push(scripts);
    } else if (part.kind === "unknown") parts.push(judgeUnknown(scope, part.subject, part.reason, rules, part.exhausts === "disk" || (part.exhausts === "processes" && !limited)));
    else if (part.kind === "write") {
      // Where no path rule judges writes, a command's writes are its own: its rules judge them (`*` allowed: `rm -r /tmp/x`); so
      // is a change of mode or owner, which no path rule of the policy's own judges (`chmod 777 /etc/hosts` under `/etc/** deny`).
      const fallback = part.by === undefined || (rules.judgesWrites && !changesMetadataOnly(part.via)) ? undefined : named.get(part.by);
      parts.push(judgeFile(scope, part, rules.write, rules.writeWhole, cwds, rules.lifting, fallback && fallback.length > 0 ? fallback : undefined));
      const cwd = cwds[Math.min(part.cdCount, cwds.length - 1)];
      if (part.path.value !== undefined && cwd !== undefined) written.add(resolve(cwd, part.path.value));
      const plant = plantedBy(part);
      if (plant) planted.push(plant);
    } else parts.push(judgeFile(scope, part, rules.read, rules.readWhole, cwds));
  }
  // Recipes written for a later call's build: judged as the commands they are, as a file tool's write of them is.
  const later = planted.filter((plant) => "commands" in plant.recipes && plant.file.format !== undefined);
  if (later.length > 0 && depth < MAX_PLANTED_DEPTH) judgePlanted(scope, undefined, later, rules, where, parts, depth);
  if (parts.length === before) {
    // Only redirects of descriptors (`exec 2>&1`), or nothing at all: nothing runs, nothing is touched.
    const matched = rules.whole.map((rule) => matchOf(rule, rule.decision));
    parts.push({ kind: "command", subject: command.command.trim() || "(empty)", decision: matched.length > 0 ? decideLayered(matched, scope.layering) : "allow", matched, note: "runs no program and touches no file" });
  }
}

/** Whether a command runs the project's recipes: its build, tests and scripts, or an install (which runs package.json's scripts too). */
function runsRecipes(scope: JudgeScope, part: ShellCommandPart, cwds: Array<string | undefined>): boolean {
  const cwd = cwds[Math.min(part.cdCount, cwds.length - 1)];
  const knowledge = knowledgeOf(scope.knowledge.inventory, part, cwd, scope.environment.workspace);
  return knowledge === undefined || knowledge.kind.role === "build" || knowledge.kind.kind === "installs" || knowledge.kind.kind === "unknown";
}

/**
 * A runner run after the same command line wrote a runner's file: the recipes written are judged
 * as the commands they are, with these rules, once each; a file the policy cannot read asks.
 */
function judgePlanted(scope: JudgeScope, runner: ShellCommandPart | undefined, planted: Planted[], rules: ToolRules, cwd: string, parts: PolicyPart[], depth: number): void {
  for (const plant of planted.splice(0)) {
    const recipes = plant.recipes;
    if (runner && !("commands" in recipes)) {
      parts.push(unreadablePlant(runner, plant, recipes.unreadable));
      continue;
    }
    if (runner && depth >= MAX_PLANTED_DEPTH) {
      parts.push(unreadablePlant(runner, plant, "its recipes write recipes again"));
      continue;
    }
    if (!("commands" in recipes)) continue;
    for (const recipe of recipes.commands) {
      const judged: PolicyPart[] = [];
      judgeShell(scope, { command: recipe, cwd }, rules, cwd, judged, depth + 1);
      const said = runner
        ? `a recipe this command writes into ${plant.path} (${plant.via}), which ${subjectOf(runner)} then runs instead of the project's own`
        : `a recipe this command writes into ${plant.path} (${plant.via}), which ${plant.file.runner} runs when the project is next built or tested`;
      for (const part of judged) if (part.decision !== "allow") part.note = part.note ? `${part.note}; ${said}` : said;
      parts.push(...judged);
    }
  }
}

/** The program or script a command runs by a path that an earlier part of the same command wrote (`printf … > run.sh && ./run.sh`). */
function plantedProgram(part: ShellCommandPart, cwds: Array<string | undefined>, written: Set<string>): string | undefined {
  if (written.size === 0) return undefined;
  const cwd = cwds[Math.min(part.cdCount, cwds.length - 1)];
  if (cwd === undefined) return undefined;
  const program = part.words[0]?.value;
  for (const path of [program?.includes("/") ? program : undefined, part.script?.value]) {
    if (path !== undefined && written.has(resolve(cwd, path))) return path;
  }
  return undefined;
}

/** The folders relative paths may be relative to: the call's, and each literal `cd` target. */
/** `cd "$(git rev-parse --show-toplevel)"`, the idiom for the repository's top: a folder the policy finds as git does. */
const SHOW_TOPLEVEL = /^"?(\$\(\s*|`\s*)git\s+rev-parse\s+--show-toplevel\s*(\)|`)"?$/;

function cwdsOf(parsed: ParsedCommand, cwd: string): Array<string | undefined> {
  const cwds: Array<string | undefined> = [cwd];
  let current = cwd;
  for (const target of parsed.cds) {
    const where = target.value !== undefined ? folderOf(target.value, current, target.tilde) : SHOW_TOPLEVEL.test(target.text) ? gitTopOf(current) : undefined;
    if (where !== undefined) current = where;
    cwds.push(where);
  }
  return cwds;
}

/** The command rules that may judge a command: its program's, or every command rule when its name is known only at run time. */
function candidatesOf(name: ShellWord, rules: ToolRules): { candidates: CompiledRule[]; program: string } {
  if (name.value === undefined) return { candidates: rules.allCommand, program: "" };
  const program = name.value.slice(name.value.lastIndexOf("/") + 1);
  return { candidates: rules.forProgram.get(program) ?? rules.anyProgram, program };
}

function judgeCommand(scope: JudgeScope, part: ShellCommandPart, rules: ToolRules, cwds: Array<string | undefined>, placed: string[], own: PolicyMatch[]): PolicyPart {
  const words = part.words;
  const subject = words.map(showWord).join(" ") + (part.tail ? " …" : "");
  const { candidates, program } = candidatesOf(words[0] as ShellWord, rules);
  const matched: PolicyMatch[] = rules.whole.map((rule) => matchOf(rule, rule.decision));
  const notes: string[] = [];
  let atLeastAsk = part.uncertain !== undefined;
  if (part.uncertain) notes.push(part.uncertain);
  const maybes: string[] = [];
  let named = false;
  const folded = foldedOperands(part, cwds, scope.anchors);
  for (const rule of candidates) {
    const pattern = rule.command as CommandPattern;
    let match = pattern.match(words, part.tail, rule.decision === "allow", part.args);
    // A deny or ask of the root or the home folder holds however they are spelled (`//`, `"$HOME"`, `cd / && rm -rf .`).
    if (match !== "yes" && folded && rule.decision !== "allow" && pattern.match(folded, part.tail, false) === "yes") match = "yes";
    if (match === "yes") {
      matched.push(matchOf(rule, rule.decision));
      if (scope.layering.layerOf(rule.id)?.preset !== true) own.push(matchOf(rule, rule.decision));
      if (pattern.namesOperand) named = true;
    } else if (match === "maybe" && rule.decision !== "allow") {
      matched.push(matchOf(rule, "ask"));
      maybes.push(`${rule.id} (${rule.decision})`);
    }
  }
  if (part.inline !== undefined) {
    for (const rule of rules.inline) matched.push(matchOf(rule, rule.decision));
    notes.push(`runs an inline program: ${clip(part.inline, 80)}`);
  }
  const cwd = cwds[Math.min(part.cdCount, cwds.length - 1)];
  const knowledge = knowledgeOf(scope.knowledge.inventory, part, cwd, scope.environment.workspace);
  if (part.script && !named) {
    atLeastAsk = true;
    notes.push(`runs the script ${showWord(part.script)}, which the policy cannot read (a rule naming it decides)`);
  }
  if (rules.readCaution.length > 0 || rules.readPlaces.length > 0) placed.push(...readsOfCommand(scope, part, program, rules, cwds, matched, notes, knowledge?.entry));
  if (knowledge) atLeastAsk = judgeKind(knowledge, rules, matched, notes) || atLeastAsk;
  if (part.via) notes.push(`judged as ${part.via}`);
  if (maybes.length > 0) notes.push(`words known only at run time may match ${maybes.join(", ")}`);
  // An inline program is unreadable too, though rules (not the parser) ask for it.
  if ((atLeastAsk || part.inline !== undefined) && lifts(rules, matched)) {
    atLeastAsk = false;
    notes.push(LIFTED);
  }
  return finish({ kind: "command", subject, decision: "allow", matched }, scope.layering, notes, atLeastAsk);
}

/** The kind rules that match what the inventory says of the command; true when it is at least ask whatever they say. */
function judgeKind(knowledge: CommandKnowledge, rules: ToolRules, matched: PolicyMatch[], notes: string[]): boolean {
  const kinded = kindRules(rules.kinds, knowledge.kind);
  const others = matched.filter((entry) => !rules.whole.some((rule) => rule.id === entry.id)).length;
  const confined = rules.lifting.size > 0;
  const understood = ["read-only", "writes", "runner"].includes(knowledge.kind.kind);
  for (const rule of kinded) matched.push(matchOf(rule, rule.decision));
  // The inventory's word is said where it decides: a kind rule that asks or denies, or one that is alone.
  const decides = kinded.some((rule) => rule.decision !== "allow") || (kinded.length > 0 && others === 0);
  if (decides || knowledge.atLeastAsk !== undefined || (confined && !understood)) notes.push(knowledge.note);
  // What toolhost does not understand runs because the call is confined: the note says what of the confinement that relies on.
  if (confined && !understood && !kinded.some((rule) => rule.decision !== "allow")) notes.push(LIFTED);
  return knowledge.atLeastAsk !== undefined;
}

/** What the parser could not follow: at least ask, unless a sandboxed rule lifts it in a confined call. */
/** The rules of `kinds` whose `kind:` names this kind, by the list and the kind: a command's kind is one of a few dozen. */
function kindRules(kinds: readonly CompiledRule[], kind: CommandKnowledge["kind"]): readonly CompiledRule[] {
  let byKind = kindRulesOf.get(kinds);
  if (byKind === undefined) kindRulesOf.set(kinds, (byKind = new Map()));
  const key = kind.role === undefined ? kind.kind : `${kind.kind}:${kind.role}`;
  let found = byKind.get(key);
  if (found === undefined) {
    found = kinds.filter((rule) => (rule.kinds as readonly string[]).some((entry) => kindMatches(entry, kind)));
    byKind.set(key, found);
  }
  return found;
}

const kindRulesOf = new WeakMap<readonly CompiledRule[], Map<string, readonly CompiledRule[]>>();

function judgeUnknown(scope: JudgeScope, subject: string, reason: string, rules: ToolRules, confinedToo = false): PolicyPart {
  const matched: PolicyMatch[] = rules.whole.map((rule) => matchOf(rule, rule.decision));
  for (const rule of rules.anyProgram) {
    if (rule.decision === "deny" && (rule.command as CommandPattern).source.trim() === "*") matched.push(matchOf(rule, "deny"));
  }
  const lifted = !confinedToo && lifts(rules, matched);
  return finish({ kind: "command", subject, decision: "allow", matched }, scope.layering, lifted ? [reason, LIFTED] : [reason], !lifted);
}
