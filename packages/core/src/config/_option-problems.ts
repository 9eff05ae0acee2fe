import type { TSchema } from "@sinclair/typebox";
import { Errors, type ValueError, ValueErrorType } from "@sinclair/typebox/errors";
import { Clone, Default } from "@sinclair/typebox/value";
import { closestName } from "./_resolve.js";

const MAX_PROBLEMS = 20;

interface Problem {
  path: string;
  text: string;
}

/**
 * The problems of a plugin's options, each once and in words: a union of literals lists its
 * allowed values, an unknown key names the likely one ("Did you mean"), and the errors a typo
 * causes at the key it misspelled are folded into that one line. One line a problem: `  - /path: …`.
 * None when the options match the schema (the plugin refused them for a reason of its own).
 */
export function optionProblems(schema: TSchema, options: unknown): string[] {
  let value: unknown;
  try {
    value = Default(schema, Clone(options ?? {}));
  } catch {
    value = options ?? {};
  }
  const errors = [...Errors(schema, value)];
  const explained = new Set<string>();
  const problems: Problem[] = [];
  for (const error of errors) {
    if (error.type !== ValueErrorType.ObjectAdditionalProperties) continue;
    const [parent, key] = splitPath(error.path);
    const known = Object.keys((error.schema as { properties?: Record<string, unknown> }).properties ?? {});
    const close = closestName(key, known);
    if (close !== undefined) explained.add(`${parent}/${close}`);
    const hint = close !== undefined ? ` Did you mean "${close}"?` : known.length > 0 ? ` It takes: ${known.join(", ")}.` : "";
    problems.push({ path: error.path, text: `unknown key "${key}".${hint}` });
  }
  for (const error of errors) {
    if (error.type === ValueErrorType.ObjectAdditionalProperties || explained.has(error.path)) continue;
    if (problems.some((problem) => problem.path === error.path)) continue;
    problems.push({ path: error.path || "/", text: describe(error) });
  }
  return problems.slice(0, MAX_PROBLEMS).map((problem) => `  - ${problem.path}: ${problem.text}`);
}

function describe(error: ValueError): string {
  const literals = literalsOf(error.schema);
  if (error.type === ValueErrorType.ObjectRequiredProperty) {
    return literals ? `missing; give one of ${literals.map((v) => JSON.stringify(v)).join(", ")}.` : "missing; it is required.";
  }
  if (literals) {
    const close = typeof error.value === "string" ? closestName(error.value, literals.filter((v): v is string => typeof v === "string")) : undefined;
    const list = literals.map((v) => JSON.stringify(v)).join(", ");
    return `${JSON.stringify(error.value)} is not one of ${list}.${close !== undefined ? ` Did you mean "${close}"?` : ""}`;
  }
  const description = (error.schema as { description?: unknown }).description;
  const got = error.value === undefined ? "" : ` (got ${preview(error.value)})`;
  return `${error.message}${got}${typeof description === "string" ? `: ${description}` : ""}.`.replace(/\.\.$/, ".");
}

/** The constants of a union of literals (or an `enum`), or undefined for any other schema. */
function literalsOf(schema: unknown): unknown[] | undefined {
  const { anyOf, enum: values } = schema as { anyOf?: Array<{ const?: unknown }>; enum?: unknown[] };
  if (Array.isArray(values)) return values;
  if (Array.isArray(anyOf) && anyOf.length > 0 && anyOf.every((member) => member.const !== undefined)) {
    return anyOf.map((member) => member.const);
  }
  return undefined;
}

function splitPath(path: string): [string, string] {
  const at = path.lastIndexOf("/");
  return [path.slice(0, at), path.slice(at + 1).replace(/~1/g, "/").replace(/~0/g, "~")];
}


function preview(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 79)}…` : text;
}
