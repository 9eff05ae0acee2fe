import { Ajv, type ErrorObject, type ValidateFunction } from "ajv";
import { Ajv2019 } from "ajv/dist/2019.js";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import type { ValidationProblem } from "@toolhost/core";

type AnyAjv = Ajv | Ajv2019 | Ajv2020;
// ajv-formats is CommonJS: its default export arrives as the module object under nodenext.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as unknown as (ajv: AnyAjv) => void;

const instances = new Map<string, AnyAjv>();

/** One Ajv per draft, made on first use: draft-07 (v1 servers, and drafts 04/06), 2019-09, 2020-12 (v2 servers, the default). */
function ajvFor(draft: "07" | "2019" | "2020"): AnyAjv {
  let ajv = instances.get(draft);
  if (!ajv) {
    const options = { strict: false, allErrors: true, validateFormats: true } as const;
    ajv = draft === "07" ? new Ajv(options) : draft === "2019" ? new Ajv2019(options) : new Ajv2020(options);
    addFormats(ajv);
    instances.set(draft, ajv);
  }
  return ajv;
}

/** The draft a schema says it is written in (`$schema`); none means 2020-12, as MCP specifies. */
export function draftOf(schema: Record<string, unknown>): "07" | "2019" | "2020" {
  const declared = typeof schema.$schema === "string" ? schema.$schema : "";
  if (/draft-0[467]/.test(declared)) return "07";
  if (declared.includes("2019-09")) return "2019";
  return "2020";
}

export type ArgumentCheck = (args: unknown) => ValidationProblem[] | undefined;

/**
 * The full JSON Schema check of a tool's input schema, compiled once with the right draft. A schema
 * that cannot be compiled gives a check that refuses every call, saying why: fail closed.
 */
export function compileInputSchema(schema: Record<string, unknown>): { check: ArgumentCheck; error?: string } {
  const { $schema: _ignored, ...body } = schema;
  let validate: ValidateFunction;
  try {
    validate = ajvFor(draftOf(schema)).compile(body);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return {
      error: reason,
      check: () => [{ path: "/", message: `the server's input schema cannot be checked (${reason}), so no call of this tool is let through` }],
    };
  }
  return {
    check: (args) => (validate(args) ? undefined : problemsOf(validate.errors ?? [])),
  };
}

function problemsOf(errors: ErrorObject[]): ValidationProblem[] {
  const problems = errors.slice(0, 20).map((error) => {
    const params = error.params as Record<string, unknown>;
    const field = params.missingProperty ?? params.additionalProperty;
    const path = typeof field === "string" ? `${error.instancePath}/${field}` : error.instancePath || "/";
    const detail = error.keyword === "enum" && Array.isArray(params.allowedValues) ? `: ${JSON.stringify(params.allowedValues)}` : "";
    return { path, message: `${error.message ?? "is invalid"}${detail}` };
  });
  return problems.length > 0 ? problems : [{ path: "/", message: "does not match the server's input schema" }];
}
