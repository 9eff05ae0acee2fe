import { existsSync, realpathSync } from "node:fs";
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { isDeepStrictEqual } from "node:util";
import type { TSchema } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";

/**
 * The schema keyword that says how two values of a plugin option compare in what a call can
 * reach (read, write, send, spend), so that a config the user has not trusted may narrow the
 * option but never widen it. Judged against the value the configs below give (the plugin's
 * default, the schema's `default`, when none does):
 *
 * - `"list"`: an array that may hold only items the value below holds (a subset);
 * - `"max"`: a number that may only be as high (unset, with no default, means no bound);
 * - `"order"`: one of the schema's `order` values, narrowest first, that may only come as early
 *   (an entry that is an array holds values that reach as far as each other);
 * - `"folders"`: a folder or a list of them, each of which must lie in one below (after `~`,
 *   `${workspace}` and symlinks are resolved; relative ones against the workspace), the
 *   workspace when none is given below.
 *
 * Equal values never widen; a value of a kind core does not know widens unless equal.
 */
export const REACH = "reach";

/** The values of a `reach: "order"` option, narrowest first (`order: ["off", "proxy", ["host", "on"]]`: an array for equals). */
export const REACH_ORDER = "order";

/** How an option compares (see `REACH`). */
export type ReachKind = "list" | "max" | "order" | "folders";

/** An option set wider than the value below it. */
export interface Widening {
  /** Where, in the options (`limits.memoryBytes`). */
  path: string;
  /** The value in force, its default filled (undefined: not set, no default). */
  value: unknown;
  /** The value below it that it would widen (undefined: not set, no default). */
  below: unknown;
}

/** What resolving a `"folders"` option needs. */
export interface ReachPlaces {
  /** The project folder: `${workspace}`, the base of relative folders, and the folders' default. */
  workspace: string;
  /** The home folder, for `~`. */
  home: string | undefined;
}

const MAX_DEPTH = 32;

/**
 * The options of `value` marked with `reach` in `schema` that reach further than the same
 * options of `below`, walking objects, records and unions of the schema beside both values, with
 * the schema's defaults filled on both sides.
 */
export function wideningsOf(schema: TSchema | undefined, value: unknown, below: unknown, places: ReachPlaces): Widening[] {
  const found: Widening[] = [];
  walk(schema, value, below, "", 0, { places, found });
  return found;
}

interface Walk {
  places: ReachPlaces;
  found: Widening[];
}

function walk(schema: TSchema | undefined, value: unknown, below: unknown, path: string, depth: number, into: Walk): void {
  if (schema === undefined || depth > MAX_DEPTH) return;
  const given = value === undefined ? schema.default : value;
  let base = below === undefined ? schema.default : below;
  const kind: unknown = (schema as Record<string, unknown>)[REACH];
  if (kind !== undefined) {
    // A lower config's options are not in force, so nothing validated them: a value of the wrong shape gives no baseline.
    if (base !== undefined && !Value.Check(schema, base)) base = schema.default;
    if (kind === "folders" && base === undefined) base = ["${workspace}"];
    if (widens(schema, kind, given, base, into.places)) into.found.push({ path: path || "(the options)", value: given, below: base });
    return;
  }
  for (const member of (schema.anyOf ?? schema.oneOf ?? schema.allOf ?? []) as TSchema[]) {
    if (given === undefined || Value.Check(member, given)) walk(member, given, base, path, depth + 1, into);
  }
  // A value of the wrong shape is refused by the options' own check; a lower one of the wrong shape gives the defaults.
  if (!isRecord(given ?? {})) return;
  const mine = (given ?? {}) as Record<string, unknown>;
  const theirs = (isRecord(base) ? base : {}) as Record<string, unknown>;
  const properties = (schema.properties ?? {}) as Record<string, TSchema>;
  const others = [...Object.values((schema.patternProperties ?? {}) as Record<string, TSchema>), ...(typeof schema.additionalProperties === "object" ? [schema.additionalProperties as TSchema] : [])];
  const keys = new Set([...Object.keys(properties), ...(others.length > 0 ? [...Object.keys(mine), ...Object.keys(theirs)] : [])]);
  for (const key of keys) {
    const schemas = Object.hasOwn(properties, key) ? [properties[key] as TSchema] : others;
    for (const each of schemas) walk(each, mine[key], theirs[key], path === "" ? key : `${path}.${key}`, depth + 1, into);
  }
}

function widens(schema: TSchema, kind: unknown, value: unknown, below: unknown, places: ReachPlaces): boolean {
  if (isDeepStrictEqual(value, below)) return false;
  switch (kind) {
    case "list":
      // A value of the wrong shape is refused by the options' own check, with its own message.
      if (!Array.isArray(value)) return false;
      return value.some((item) => !(Array.isArray(below) ? below : []).some((other) => isDeepStrictEqual(item, other)));
    case "max":
      if (below === undefined) return false;
      if (value === undefined) return true;
      return typeof value === "number" && typeof below === "number" && value > below;
    case "order": {
      const order = (schema as Record<string, unknown>)[REACH_ORDER];
      if (!Array.isArray(order)) return true;
      const rank = (each: unknown): number => {
        const at = order.findIndex((item) => isDeepStrictEqual(item, each) || (Array.isArray(item) && item.some((one) => isDeepStrictEqual(one, each))));
        return at === -1 ? Number.POSITIVE_INFINITY : at;
      };
      // Nothing below and no default: only the narrowest value is surely no wider.
      return rank(value) > (below === undefined ? 0 : rank(below));
    }
    case "folders": {
      const folders = (given: unknown): string[] | undefined =>
        typeof given === "string" ? [given] : Array.isArray(given) && given.every((item) => typeof item === "string") ? given : undefined;
      const mine = folders(value);
      if (mine === undefined) return false;
      const theirs = (folders(below) ?? []).map((each) => reachedFolder(each, places));
      return mine.some((each) => {
        const real = reachedFolder(each, places);
        return !theirs.some((other) => real === other || isInside(real, other));
      });
    }
    default:
      return true;
  }
}

/** A folder option's entry as an absolute path with every symlink of its existing part resolved. */
function reachedFolder(entry: string, places: ReachPlaces): string {
  const named = entry.replaceAll("${workspace}", places.workspace);
  const homed = named === "~" ? (places.home ?? named) : named.startsWith("~/") && places.home !== undefined ? join(places.home, named.slice(2)) : named;
  const absolute = isAbsolute(homed) ? resolve(homed) : resolve(places.workspace, homed);
  // The nearest part that exists, its links resolved; what does not exist yet is below it as written.
  let existing = absolute;
  const rest: string[] = [];
  while (!existsSync(existing) && dirname(existing) !== existing) {
    rest.unshift(basename(existing));
    existing = dirname(existing);
  }
  try {
    return join(realpathSync(existing), ...rest);
  } catch {
    return absolute;
  }
}

function isInside(path: string, folder: string): boolean {
  const between = relative(folder, path);
  return between !== "" && between !== ".." && !between.startsWith(`..${sep}`) && !isAbsolute(between);
}

function isRecord(value: unknown): boolean {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
