import type { TSchema } from "@sinclair/typebox";

/**
 * The schema keyword that marks a plugin option as one only a trusted config may set
 * (`Type.String({ trustedOnly: true })`): its value names a program to run, adds to what runs
 * (a command prefix, the environment of commands), or chooses where the user's environment or
 * data is sent (an endpoint with an API key from a variable the config names).
 */
export const TRUSTED_ONLY = "trustedOnly";

const MAX_DEPTH = 32;

/**
 * The paths (`servers.probe.command`) of the options set in `value` whose schema is marked
 * `trustedOnly`, walking objects, records, arrays and unions of `schema` beside the value.
 */
export function trustedOnlyPaths(schema: TSchema | undefined, value: unknown, path = "", depth = 0): string[] {
  if (schema === undefined || value === undefined || depth > MAX_DEPTH) return [];
  if ((schema as Record<string, unknown>)[TRUSTED_ONLY] === true) return [path || "(the options)"];
  const found = new Set<string>();
  for (const member of (schema.anyOf ?? schema.oneOf ?? schema.allOf ?? []) as TSchema[]) {
    for (const each of trustedOnlyPaths(member, value, path, depth + 1)) found.add(each);
  }
  const at = (key: string): string => (path === "" ? key : `${path}.${key}`);
  if (Array.isArray(value) && schema.items !== undefined && !Array.isArray(schema.items)) {
    value.forEach((item, index) => {
      for (const each of trustedOnlyPaths(schema.items as TSchema, item, `${path}[${index}]`, depth + 1)) found.add(each);
    });
  }
  if (typeof value === "object" && value !== null && !Array.isArray(value)) {
    const properties = (schema.properties ?? {}) as Record<string, TSchema>;
    const patterns = Object.values((schema.patternProperties ?? {}) as Record<string, TSchema>);
    const rest = typeof schema.additionalProperties === "object" ? [schema.additionalProperties as TSchema] : [];
    for (const [key, item] of Object.entries(value)) {
      const schemas = Object.hasOwn(properties, key) ? [properties[key] as TSchema] : [...patterns, ...rest];
      for (const each of schemas) for (const hit of trustedOnlyPaths(each, item, at(key), depth + 1)) found.add(hit);
    }
  }
  return [...found];
}
