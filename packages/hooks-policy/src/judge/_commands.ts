import { resolve } from "node:path";
import type { CommandAccess, PolicyMatch, PolicyPart } from "@toolhost/core";
import type { CommandPattern } from "../rules/_command-pattern.js";
import { clip, decideLayered, finish } from "../explain/_explanation.js";
import { folderOf } from "../paths/_paths.js";
import { type CompiledRule, matchOf } from "../rules/_rules.js";
import { type ParsedCommand, parseCommand, type ShellCommandPart } from "../shell/_parse.js";
import { type ShellWord, showWord } from "../shell/_words.js";
import { kindMatches } from "../inventory/_kinds.js";
import { readsOfCommand } from "./_command-reads.js";
import { type CommandKnowledge, knowledgeOf } from "./_knowledge.js";
import { foldedOperands } from "./_spellings.js";
import { changesMetadataOnly, judgeFile, judgePath } from "./_files.js";
import { type JudgeScope, LIFTED } from "./_scope.js";
import { lifts, type ToolRules } from "./_tool-rules.js";

/*
 * Parts that are commands: a declared shell command is parsed into every simple command it runs
 * and every file its redirects and writers touch; each is judged by its rules.
 */

/** Judges a declared shell command: each of its parts goes into `parts`. */
export function judgeShell(scope: JudgeScope, command: CommandAccess, rules: ToolRules, cwd: string, parts: PolicyPart[]): void {
  const where = command.cwd ? resolve(cwd, command.cwd) : cwd;
  const parsed = parseCommand(command.command, scope.knowledge);
  const cwds = cwdsOf(parsed, where);
  const before = parts.length;
  const written = new Set<string>();
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
      const planted = plantedProgram(part, cwds, written);
      if (planted !== undefined) parts.push(judgeUnknown(scope, showWord(part.words[0] as ShellWord), `it runs ${planted}, which this command writes first: code the call wrote, not the project's own file`, rules));
    } else if (part.kind === "unknown") parts.push(judgeUnknown(scope, part.subject, part.reason, rules));
    else if (part.kind === "write") {
      // Where no path rule judges writes, a command's writes are its own: its rules judge them (`*` allowed: `rm -r /tmp/x`); so
      // is a change of mode or owner, which no path rule of the policy's own judges (`chmod 777 /etc/hosts` under `/etc/** deny`).
      const fallback = part.by === undefined || (rules.judgesWrites && !changesMetadataOnly(part.via)) ? undefined : named.get(part.by);
      parts.push(judgeFile(scope, part, rules.write, rules.writeWhole, cwds, rules.lifting, fallback && fallback.length > 0 ? fallback : undefined));
      const cwd = cwds[Math.min(part.cdCount, cwds.length - 1)];
      if (part.path.value !== undefined && cwd !== undefined) written.add(resolve(cwd, part.path.value));
    } else parts.push(judgeFile(scope, part, rules.read, rules.readWhole, cwds));
  }
  if (parts.length === before) {
    // Only redirects of descriptors (`exec 2>&1`), or nothing at all: nothing runs, nothing is touched.
    const matched = rules.whole.map((rule) => matchOf(rule, rule.decision));
    parts.push({ kind: "command", subject: command.command.trim() || "(empty)", decision: matched.length > 0 ? decideLayered(matched, scope.layering) : "allow", matched, note: "runs no program and touches no file" });
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
function cwdsOf(parsed: ParsedCommand, cwd: string): Array<string | undefined> {
  const cwds: Array<string | undefined> = [cwd];
  let current = cwd;
  for (const target of parsed.cds) {
    const where = target.value === undefined ? undefined : folderOf(target.value, current, target.tilde);
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
  const kinded = rules.kinds.filter((rule) => (rule.kinds as readonly string[]).some((entry) => kindMatches(entry, knowledge.kind)));
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
function judgeUnknown(scope: JudgeScope, subject: string, reason: string, rules: ToolRules): PolicyPart {
  const matched: PolicyMatch[] = rules.whole.map((rule) => matchOf(rule, rule.decision));
  for (const rule of rules.anyProgram) {
    if (rule.decision === "deny" && (rule.command as CommandPattern).source.trim() === "*") matched.push(matchOf(rule, "deny"));
  }
  const lifted = lifts(rules, matched);
  return finish({ kind: "command", subject, decision: "allow", matched }, scope.layering, lifted ? [reason, LIFTED] : [reason], !lifted);
}
