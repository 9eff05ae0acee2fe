/** A JSON Schema (as TypeBox makes it), written the way a person reads a type. */
interface Schema {
  type?: string | string[];
  const?: unknown;
  enum?: unknown[];
  anyOf?: Schema[];
  oneOf?: Schema[];
  items?: Schema | Schema[];
  properties?: Record<string, Schema>;
  patternProperties?: Record<string, Schema>;
  required?: string[];
  format?: string;
  default?: unknown;
  description?: string;
  /** A plugin option that runs code or sends the environment somewhere: set only from a trusted config. */
  trustedOnly?: boolean;
  /** How the option compares in what calls reach (core's `reach`): a project not trusted may only narrow it. */
  reach?: string;
}

/** What `parameterLines` writes after an option that only a trusted config may set. */
export const TRUSTED_ONLY_MARK = "[trusted configs only]";

/** What `parameterLines` writes after an option that an untrusted project may narrow but not widen. */
export const NARROW_ONLY_MARK = "[narrow only from an untrusted project]";

export function typeText(schema: Schema): string {
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  if (schema.enum) return schema.enum.map((value) => JSON.stringify(value)).join(" | ");
  const union = schema.anyOf ?? schema.oneOf;
  if (union) return union.map(typeText).join(" | ");
  if (schema.type === "array") {
    if (Array.isArray(schema.items)) return `[${schema.items.map(typeText).join(", ")}]`;
    const item = typeText(schema.items ?? {});
    return item.includes(" ") ? `(${item})[]` : `${item}[]`;
  }
  if (schema.type === "object" && schema.patternProperties) {
    const [value] = Object.values(schema.patternProperties);
    return `{ [key: string]: ${typeText(value ?? {})} }`;
  }
  const type = Array.isArray(schema.type) ? schema.type.join(" | ") : (schema.type ?? "any");
  return schema.format ? `${type} (${schema.format})` : type;
}

/** One line per parameter: `name?: type = default  description`. */
export function parameterLines(parameters: Schema): string[] {
  const required = new Set(parameters.required ?? []);
  return Object.entries(parameters.properties ?? {}).map(([name, schema]) => {
    const optional = required.has(name) ? "" : "?";
    const fallback = schema.default !== undefined ? ` = ${JSON.stringify(schema.default)}` : "";
    const description = schema.description ? `  ${schema.description}` : "";
    const trusted = schema.trustedOnly === true ? ` ${TRUSTED_ONLY_MARK}` : schema.reach !== undefined ? ` ${NARROW_ONLY_MARK}` : "";
    return `${name}${optional}: ${typeText(schema)}${fallback}${trusted}${description}`;
  });
}

/** Like `parameterLines`, with the fields of nested objects (and of arrays of objects) indented below. */
export function nestedParameterLines(parameters: Schema, depth = 0): string[] {
  const lines: string[] = [];
  const entries = Object.entries(parameters.properties ?? {});
  const own = parameterLines(parameters);
  entries.forEach(([, schema], i) => {
    lines.push(`${"  ".repeat(depth)}${own[i]}`);
    const inner = schema.type === "array" && !Array.isArray(schema.items) ? schema.items : schema;
    if (inner?.properties && depth < 3) lines.push(...nestedParameterLines(inner, depth + 1));
  });
  return lines;
}
