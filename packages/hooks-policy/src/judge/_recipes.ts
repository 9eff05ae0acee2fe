import type { RecipeFormat } from "../inventory/_runner-files.js";

/*
 * The commands a runner's recipe file gives (issue 39: trust means the project's files): make's
 * and just's recipe lines, the scripts of package.json and composer.json, deno's tasks. Each is a
 * bash command line the policy judges as if it were given. What the policy cannot read for sure
 * (make's variables and functions, just's interpolations and settings, a shebang recipe, a file
 * that does not parse) makes the whole file unreadable: the caller asks.
 */

/** The commands of a recipe file, or why they cannot be read. */
export type Recipes = { commands: string[] } | { unreadable: string };

/** The commands `text` gives in `format`. */
export function recipesOf(format: RecipeFormat, text: string): Recipes {
  switch (format) {
    case "make":
      return makeRecipes(text);
    case "just":
      return justRecipes(text);
    case "npm":
      return jsonScripts(text, "scripts", (value) => (typeof value === "string" ? [value] : undefined));
    case "composer":
      return jsonScripts(text, "scripts", composerScript);
    case "deno":
      return jsonScripts(text, "tasks", (value) => (typeof value === "string" ? [value] : typeof value === "object" && value !== null && typeof (value as { command?: unknown }).command === "string" ? [(value as { command: string }).command] : undefined));
  }
}

/** The commands of `after` that `before` does not give (the recipes a write adds or changes); `before` undefined: all of them. */
export function newRecipes(format: RecipeFormat, before: string | undefined, after: string): Recipes {
  const now = recipesOf(format, after);
  if (!("commands" in now) || before === undefined) return now;
  const was = recipesOf(format, before);
  // The file as it was is the project's; one the policy could not read then is judged whole now.
  if (!("commands" in was)) return now;
  const old = new Set(was.commands);
  return { commands: now.commands.filter((command) => !old.has(command)) };
}

/** make's automatic variables: in a recipe they name the target and its prerequisites, which are words of the file. */
const AUTOMATIC = /\$(?:[@<^?*|+]|\([@<^?*|+][DF]\)|\{[@<^?*|+][DF]\})/g;
/** A rule's first line: targets, `:` or `::`, prerequisites, perhaps `; recipe`; nothing make expands. */
const RULE = /^([A-Za-z0-9_.%/+-]+(?:[ \t]+[A-Za-z0-9_.%/+-]+)*)[ \t]*::?(?!=)([ \t]+[A-Za-z0-9_.%/+-]+)*[ \t]*(?:;(.*))?$/;
/** Special targets that change how recipes run (another shell, flags, prefix, expansion): not read. */
const SPECIAL = /(^|\s)\.(SHELLFLAGS|RECIPEPREFIX|SECONDEXPANSION|EXPORT_ALL_VARIABLES|POSIX|DEFAULT|INCLUDE_DIRS|LIBPATTERNS|EXTRA_PREREQS)\b/;

/** make's recipes: each line a command line run by the shell; variables, functions, includes and directives are not read. */
function makeRecipes(text: string): Recipes {
  const commands: string[] = [];
  const lines = joinContinued(text.replace(/\r\n/g, "\n").split("\n"));
  let inRule = false;
  for (const line of lines) {
    if (line.startsWith("\t")) {
      if (!inRule) return { unreadable: `a line starting with a tab outside a rule: ${clip(line)}` };
      const command = makeLine(line.slice(1));
      if (typeof command !== "string") return command;
      if (command !== "") commands.push(command);
      continue;
    }
    if (/^\s*(#.*)?$/.test(line)) continue;
    if (SPECIAL.test(line)) return { unreadable: `${clip(line)} changes how make runs its recipes` };
    const rule = RULE.exec(line);
    if (!rule) return { unreadable: `${clip(line)} is make code the policy does not read (a variable, a function, an include or a directive)` };
    inRule = true;
    if (rule[3] !== undefined) {
      const command = makeLine(rule[3]);
      if (typeof command !== "string") return command;
      if (command !== "") commands.push(command);
    }
  }
  return { commands };
}

/** One recipe line as the shell gets it: its prefixes (`@`, `-`, `+`) off, `$$` a `$`, automatic variables a word. */
function makeLine(line: string): string | { unreadable: string } {
  const bare = line.replace(/^[\s@+-]+/, "");
  const words = bare.replace(AUTOMATIC, "target").replace(/\$\$/g, "\u0000");
  if (words.includes("$")) return { unreadable: `the recipe ${clip(bare)} uses make's variables or functions, whose value the policy does not read` };
  return words.replace(/\u0000/g, "$").trim();
}

/** Lines ending in a backslash continue on the next one: the shell gets them as one. */
function joinContinued(lines: string[]): string[] {
  const joined: string[] = [];
  let current: string | undefined;
  for (const line of lines) {
    const piece = current === undefined ? line : `${current}\n${line}`;
    if (/(^|[^\\])(\\\\)*\\$/.test(line)) current = piece;
    else {
      joined.push(piece);
      current = undefined;
    }
  }
  if (current !== undefined) joined.push(current);
  return joined;
}

/** just's attributes that change nothing of what a recipe runs, or where. */
const JUST_ATTRIBUTES = /^\[\s*((private|no-cd|no-exit-message|no-quiet|linux|macos|unix|windows|openbsd|confirm|positional-arguments|(group|doc|confirm)\(\s*("[^"]*"|'[^']*')\s*\))\s*,?\s*)+\]$/;
/** A recipe's first line: its name, parameters (perhaps with literal defaults) and dependencies. */
const JUST_RECIPE = /^@?[A-Za-z_][\w-]*((?:\s+[+*$]?[A-Za-z_][\w-]*(?:=(?:"[^"{}`]*"|'[^'{}`]*'|[\w.-]+))?)*)\s*:(?!=)((?:\s+[A-Za-z_][\w-]*)*)\s*(#.*)?$/;

/** just's recipes: each body line a command line; interpolations other than a parameter, settings, assignments and shebang recipes are not read. */
function justRecipes(text: string): Recipes {
  const commands: string[] = [];
  let params: Set<string> | undefined;
  let first = false;
  for (const line of joinContinued(text.replace(/\r\n/g, "\n").split("\n"))) {
    if (/^[ \t]+\S/.test(line) && params !== undefined) {
      const body = line.trim();
      if (first && body.startsWith("#!")) return { unreadable: `a recipe runs the script ${clip(body)}, which the policy does not read` };
      first = false;
      if (body.startsWith("#")) continue;
      const known = params;
      const command = body.replace(/^[@-]+/, "").replace(/\{\{\s*([A-Za-z_][\w-]*)\s*\}\}/g, (whole, name: string) => (known.has(name) ? "arg" : whole));
      if (command.includes("{{")) return { unreadable: `the recipe ${clip(body)} interpolates what the policy does not read` };
      commands.push(command);
      continue;
    }
    if (/^\s*(#.*)?$/.test(line)) continue;
    if (JUST_ATTRIBUTES.test(line.trim())) continue;
    if (/^alias\s+[\w-]+\s*:=\s*[\w-]+\s*$/.test(line)) continue;
    const recipe = JUST_RECIPE.exec(line);
    if (!recipe) return { unreadable: `${clip(line)} is just code the policy does not read (a setting, an assignment, an import)` };
    params = new Set([...(recipe[1] ?? "").matchAll(/[+*$]?([A-Za-z_][\w-]*)/g)].map((each) => each[1] as string));
    first = true;
  }
  return { commands };
}

/** composer's scripts: a command line, a list of them, `@php …` and `@composer …`; a PHP callback or `@putenv` is not read. */
function composerScript(value: unknown): string[] | undefined {
  const list = typeof value === "string" ? [value] : Array.isArray(value) && value.every((each) => typeof each === "string") ? (value as string[]) : undefined;
  if (list === undefined) return undefined;
  const commands: string[] = [];
  for (const each of list) {
    const command = each.trim();
    if (/^@(php|composer)\s/.test(command)) commands.push(command.slice(1));
    else if (/^@[\w:-]+$/.test(command)) continue;
    else if (command.startsWith("@") || /^[A-Za-z_\\][\w\\]*::[A-Za-z_]\w*$/.test(command)) return undefined;
    else commands.push(command);
  }
  return commands;
}

/** The command lines under `key` of a JSON file (package.json's scripts); a value `read` cannot take makes it unreadable. */
function jsonScripts(text: string, key: string, read: (value: unknown) => string[] | undefined): Recipes {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { unreadable: "it is not JSON the policy can read" };
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return { unreadable: "it is not a JSON object" };
  const scripts = (parsed as Record<string, unknown>)[key];
  if (scripts === undefined) return { commands: [] };
  if (typeof scripts !== "object" || scripts === null || Array.isArray(scripts)) return { unreadable: `its "${key}" is not an object of commands` };
  const commands: string[] = [];
  for (const [name, value] of Object.entries(scripts)) {
    const read_ = read(value);
    if (read_ === undefined) return { unreadable: `its ${key}.${name} is not a command the policy reads` };
    commands.push(...read_);
  }
  return { commands };
}

function clip(text: string): string {
  const flat = text.trim().replace(/\s+/g, " ");
  return JSON.stringify(flat.length > 60 ? `${flat.slice(0, 57)}...` : flat);
}
