import { existsSync, readFileSync, statSync } from "node:fs";
import type { PolicyPart } from "@toolhost/core";
import { type RunnerFile, runnerFileOf } from "../inventory/_runner-files.js";
import type { ShellCommandPart, ShellFilePart } from "../shell/_parse.js";
import { showWord } from "../shell/_words.js";
import { newRecipes, type Recipes, recipesOf } from "./_recipes.js";

/*
 * Trust means the project's files (issue 39): a trusted project's runners run its own recipes. A
 * command that first writes a runner's file (a Makefile by printf, package.json's scripts by `npm
 * pkg set`, a file moved, copied or linked over one) and then runs a runner runs what the command
 * wrote: the recipes it wrote are judged as the commands they are, and a file whose content the
 * policy cannot read asks. A file tool's write of a runner's recipe file is judged the same way:
 * the recipes it adds are what the next build runs.
 */

/** A runner's file that an earlier part of the same command line writes. */
export interface Planted {
  /** As written in the command (relative to its folder). */
  path: string;
  file: RunnerFile;
  /** How it is written: `>`, `mv`, `npm pkg set`. */
  via: string;
  /** The commands it gets, when the policy can read them; else why not. */
  recipes: Recipes;
}

/** What a write part of a command line plants in a runner's file; undefined for other files. */
export function plantedBy(part: ShellFilePart): Planted | undefined {
  const path = part.path.value;
  if (path === undefined) return undefined;
  const file = runnerFileOf(path);
  if (!file) return undefined;
  return { path, file, via: part.via, recipes: recipesWritten(file, part) };
}

function recipesWritten(file: RunnerFile, part: ShellFilePart): Recipes {
  if (part.content === undefined) return { unreadable: `it is written by ${part.via}, with what is known only at run time` };
  if (!file.format) return { unreadable: `${file.runner} reads it as code or settings the policy does not read` };
  // An append adds to what is there: read alone, recipe lines without their rule are not read.
  return recipesOf(file.format, part.content);
}

/**
 * `npm pkg set scripts.test='…'` (and `pnpm pkg set`, `npm set-script NAME CMD`): package.json's
 * scripts set by a command, not by a write the parser sees. Other keys set a value no runner runs.
 */
export function pkgScripts(part: ShellCommandPart): Planted | undefined {
  const values = part.words.map((word) => word.value);
  const program = (values[0] ?? "").replace(/^.*\//, "");
  if (program !== "npm" && program !== "pnpm") return undefined;
  const operands = values.slice(1).filter((value) => value === undefined || !value.startsWith("-"));
  const via = `${program} ${operands.slice(0, 2).join(" ")}`;
  const file: RunnerFile = { runner: "npm", format: "npm" };
  if (operands[0] === "set-script") {
    const command = operands[2];
    return { path: "package.json", file, via, recipes: command === undefined ? { unreadable: "the script is known only at run time" } : { commands: [command] } };
  }
  if (operands[0] !== "pkg" || operands[1] !== "set") return undefined;
  const json = values.includes("--json");
  const commands: string[] = [];
  for (const each of operands.slice(2)) {
    if (each === undefined) return { path: "package.json", file, via, recipes: { unreadable: "what it sets is known only at run time" } };
    const eq = each.indexOf("=");
    const key = eq === -1 ? each : each.slice(0, eq);
    const value = each.slice(eq + 1);
    if (!/^scripts(\.|\[|$)/.test(key)) continue;
    if (!json || key.startsWith("scripts.")) {
      commands.push(json ? String(parsedOr(value, value)) : value);
      continue;
    }
    const parsed = parsedOr(value, undefined);
    if (typeof parsed !== "object" || parsed === null || !Object.values(parsed).every((script) => typeof script === "string")) {
      return { path: "package.json", file, via, recipes: { unreadable: "the scripts it sets are not read" } };
    }
    commands.push(...(Object.values(parsed) as string[]));
  }
  return commands.length === 0 ? undefined : { path: "package.json", file, via, recipes: { commands } };
}

function parsedOr(text: string, fallback: unknown): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return fallback;
  }
}

/** The subject of a runner's command part, for explanations. */
export function subjectOf(part: ShellCommandPart): string {
  return part.words.map(showWord).join(" ");
}

/** A part saying the runner runs a planted file the policy cannot read: at least ask. */
export function unreadablePlant(runner: ShellCommandPart, planted: Planted, why: string): PolicyPart {
  return {
    kind: "command",
    subject: subjectOf(runner),
    decision: "ask",
    matched: [],
    note: `it runs ${planted.path}, which this command writes first (${planted.via}), not the project's own file; ${why}, so the policy cannot tell what runs: write the file in a call of its own and run ${showWord(runner.words[0] as never)} in another`,
  };
}

/** The recipe commands a file tool's write adds to a runner's recipe file; undefined for other files. */
export function writtenRecipes(path: string, args: Record<string, unknown>): { file: RunnerFile; recipes: Recipes } | undefined {
  const file = runnerFileOf(path);
  if (!file?.format) return undefined;
  const before = currentText(path);
  const after = newText(args, before);
  if (after === undefined) return { file, recipes: { unreadable: "the policy cannot tell from the call's arguments what the file will hold" } };
  return { file, recipes: newRecipes(file.format, before, after) };
}

function currentText(path: string): string | undefined {
  try {
    return existsSync(path) && statSync(path).isFile() ? readFileSync(path, "utf8") : undefined;
  } catch {
    return undefined;
  }
}

const text = (value: unknown): value is string => typeof value === "string";

/**
 * What the file holds after the call, from a file tool's arguments: `content` (write; edit's lines
 * form with `startLine`), `oldText`/`newText` or `old_string`/`new_string` (with `replaceAll`), or
 * `edits` applied in order; undefined when the arguments say otherwise or an edit does not apply.
 */
function newText(args: Record<string, unknown>, before: string | undefined): string | undefined {
  const edits = Array.isArray(args.edits) ? (args.edits as unknown[]) : [args];
  if (!Array.isArray(args.edits) && typeof args.startLine !== "number" && text(args.content) && args.oldText === undefined && args.old_string === undefined) return args.content;
  let current = before ?? "";
  if (typeof args.startLine === "number") {
    if (!text(args.content) || before === undefined) return undefined;
    const lines = current.split("\n");
    const end = typeof args.endLine === "number" ? args.endLine : args.startLine;
    lines.splice(args.startLine - 1, Math.max(0, end - args.startLine + 1), ...(args.content === "" ? [] : args.content.replace(/\n$/, "").split("\n")));
    return lines.join("\n");
  }
  for (const edit of edits) {
    if (typeof edit !== "object" || edit === null) return undefined;
    const one = edit as Record<string, unknown>;
    const old = one.oldText ?? one.old_string;
    const replacement = one.newText ?? one.new_string;
    if (!text(old) || !text(replacement) || old === "" || !current.includes(old)) return undefined;
    current = one.replaceAll === true || one.replace_all === true ? current.split(old).join(replacement) : current.replace(old, () => replacement);
  }
  return current;
}
