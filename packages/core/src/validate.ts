import { FormatRegistry, TypeRegistry, type TSchema } from "@sinclair/typebox";
import { TypeCompiler, type TypeCheck } from "@sinclair/typebox/compiler";
import { ValueErrorType } from "@sinclair/typebox/errors";
import { Check } from "@sinclair/typebox/value";
import type { ValidationProblem } from "./types/index.js";

const compiled = new WeakMap<TSchema, TypeCheck<TSchema>>();
const MAX_PROBLEMS = 20;

// JSON Schema formats that tool schemas commonly use (the seed's `make_api_call` has `format: "uri"`).
// TypeBox knows none by default and fails every value of an unknown format, so the common ones are
// registered once, unless the application registered its own.
const FORMATS: Record<string, (value: string) => boolean> = {
  uri: (value) => URL.canParse(value),
  url: (value) => URL.canParse(value),
  email: (value) => /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value),
  uuid: (value) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value),
  "date-time": (value) => !Number.isNaN(Date.parse(value)) && /^\d{4}-\d{2}-\d{2}T/.test(value),
  date: (value) => /^\d{4}-\d{2}-\d{2}$/.test(value) && !Number.isNaN(Date.parse(value)),
};
let formatsRegistered = false;

// `Type.Unsafe` carries plain JSON Schema (tools use it for string enums, which some model APIs
// need instead of unions of literals). TypeBox checks it only through a registered kind; this one
// checks what such schemas say in practice (`enum`, `const`, `type`) and lets other keywords pass.
const JSON_TYPES: Record<string, (value: unknown) => boolean> = {
  string: (value) => typeof value === "string",
  number: (value) => typeof value === "number" && Number.isFinite(value),
  integer: (value) => Number.isInteger(value),
  boolean: (value) => typeof value === "boolean",
  object: (value) => typeof value === "object" && value !== null && !Array.isArray(value),
  array: (value) => Array.isArray(value),
  null: (value) => value === null,
};

function checkUnsafe(schema: Record<string, unknown>, value: unknown): boolean {
  if (Array.isArray(schema.enum) && !schema.enum.some((option) => Object.is(option, value))) return false;
  if ("const" in schema && !Object.is(schema.const, value)) return false;
  const types = schema.type === undefined ? [] : Array.isArray(schema.type) ? schema.type : [schema.type];
  return types.length === 0 || types.some((type) => JSON_TYPES[String(type)]?.(value) ?? true);
}

function registerFormats(): void {
  formatsRegistered = true;
  for (const [name, check] of Object.entries(FORMATS)) {
    if (!FormatRegistry.Has(name)) FormatRegistry.Set(name, check);
  }
  if (!TypeRegistry.Has("Unsafe")) TypeRegistry.Set("Unsafe", checkUnsafe);
}

/** The compiled check of a schema, compiled on first use and kept as long as the schema lives. */
export function compiledCheck(schema: TSchema): TypeCheck<TSchema> {
  let check = compiled.get(schema);
  if (check === undefined) {
    if (!formatsRegistered) registerFormats();
    check = TypeCompiler.Compile(schema);
    compiled.set(schema, check);
  }
  return check;
}

/**
 * Every problem of `value` against a TypeBox `schema` (up to 20), each with its path, or undefined
 * when it is valid. The check is compiled once per schema.
 */
export function problemsOf(schema: TSchema, value: unknown): ValidationProblem[] | undefined {
  const check = compiledCheck(schema);
  if (check.Check(value)) return undefined;
  const problems: ValidationProblem[] = [];
  // A missing property is one problem: TypeBox also says the undefined there is not of its type.
  const missing = new Set<string>();
  for (const error of check.Errors(value)) {
    const path = error.path === "" ? "/" : error.path;
    if (missing.has(path)) continue;
    if (error.type === ValueErrorType.ObjectRequiredProperty) missing.add(path);
    problems.push({ path, message: error.message });
    if (problems.length >= MAX_PROBLEMS) break;
  }
  if (problems.length === 0) problems.push({ path: "/", message: "Does not match the schema" });
  return problems;
}

/**
 * `problemsOf` for a value checked once (a plugin's options, a config at start-up): a valid value is
 * checked by interpreting the schema, which costs less than compiling it (the compile of the policy
 * plugin's options schema was ~6 ms of a hook's start); an invalid one, or a schema the interpreter
 * cannot check (a kind nobody registered), goes to `problemsOf`, so the problems and errors are the
 * compiled check's. A schema already compiled uses its compiled check.
 */
export function problemsOnce(schema: TSchema, value: unknown): ValidationProblem[] | undefined {
  if (!formatsRegistered) registerFormats();
  if (!compiled.has(schema)) {
    try {
      if (Check(schema, value)) return undefined;
    } catch {
      // Unknown to the interpreter: the compiler says what it says about such a schema.
    }
  }
  return problemsOf(schema, value);
}

const checkedOnce = new WeakSet<TSchema>();

/**
 * `problemsOf` for the arguments of a tool's calls: the first valid value of a schema is checked by
 * interpreting it (a process that makes one call, as a hook does, never pays for a compile), and
 * the schema is compiled from its second check on, so a long-lived host checks each call with the
 * compiled code. Problems are always the compiled check's.
 */
export function callProblems(schema: TSchema, value: unknown): ValidationProblem[] | undefined {
  if (!compiled.has(schema) && !checkedOnce.has(schema)) {
    checkedOnce.add(schema);
    return problemsOnce(schema, value);
  }
  return problemsOf(schema, value);
}

/** One problem a line: `  - /path: message`. */
export function formatProblems(problems: readonly ValidationProblem[]): string {
  return problems.map((problem) => `  - ${problem.path}: ${problem.message}`).join("\n");
}
