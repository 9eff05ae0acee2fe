import { basename, dirname, isAbsolute, resolve, sep } from "node:path";
import { type CommandAccess, isInside, type NetworkAccess, type ToolAccess } from "@toolhost/core";
import { existingReal } from "../paths/_paths.js";
import type { CompiledRule } from "./_rules.js";

/** Checks the shape of a declaration (it comes from any tool): a malformed one is an error, so the call is denied. */
export function checkAccess(access: unknown): ToolAccess | undefined {
  if (access === undefined || access === null) return undefined;
  if (typeof access !== "object" || Array.isArray(access)) throw new TypeError("the tool's access declaration is not an object");
  const record = access as Record<string, unknown>;
  const list = (key: string, check: (item: unknown) => boolean, what: string): void => {
    const value = record[key];
    if (value === undefined) return;
    if (!Array.isArray(value) || !value.every(check)) throw new TypeError(`the tool's access declaration has "${key}" that is not a list of ${what}`);
  };
  const isString = (item: unknown) => typeof item === "string";
  list("reads", isString, "paths");
  list("writes", isString, "paths");
  list("readTrees", isString, "paths");
  list("commands", (item) => typeof item === "object" && item !== null && typeof (item as CommandAccess).command === "string", "{ command, cwd }");
  const destination = (item: unknown) => {
    const each = item as NetworkAccess | null;
    return typeof each === "object" && each !== null && typeof each.url === "string" && (each.address === undefined || typeof each.address === "string");
  };
  list("network", destination, "{ url, method?, address? }");
  if (record.confinement !== undefined) checkConfinement(record.confinement);
  return record as ToolAccess;
}

const NETWORK_MODES = new Set(["off", "proxy", "host"]);
const ROOTS = new Set(["minimal", "host"]);

/**
 * The shape of core's `ToolConfinement` (its first version, `{ writable, network: boolean,
 * hidesDeniedReads? }`, and the second, with `root`, `readable`, `network` modes, `destinations`
 * and `limits`): a known field of another type is malformed (the call is denied); a field the
 * policy does not know is not (the confinement then gets no trust).
 */
function checkConfinement(value: unknown): void {
  const confinement = value as Record<string, unknown> | null;
  const strings = (field: unknown, optional: boolean) => (optional && field === undefined) || (Array.isArray(field) && field.every((item) => typeof item === "string"));
  const shaped =
    typeof confinement === "object" &&
    confinement !== null &&
    !Array.isArray(confinement) &&
    strings(confinement.writable, false) &&
    (typeof confinement.network === "boolean" || NETWORK_MODES.has(confinement.network as string)) &&
    (confinement.hidesDeniedReads === undefined || typeof confinement.hidesDeniedReads === "boolean") &&
    (confinement.root === undefined || ROOTS.has(confinement.root as string)) &&
    strings(confinement.readable, true) &&
    strings(confinement.destinations, true) &&
    (confinement.limits === undefined || limitsShaped(confinement.limits));
  if (!shaped) {
    throw new TypeError(
      'the tool\'s access declaration has a "confinement" that is not { writable: paths, network: boolean, hidesDeniedReads?: boolean } (or, in its second version, { root?: "minimal" | "host", writable, readable?, network: "off" | "proxy" | "host", destinations?, limits?, hidesDeniedReads? })',
    );
  }
}

function limitsShaped(limits: unknown): boolean {
  if (typeof limits !== "object" || limits === null || Array.isArray(limits)) return false;
  return Object.values(limits).every((each) => each === undefined || (typeof each === "number" && Number.isFinite(each) && each >= 0));
}

/**
 * Whether a call's confinement keeps its writes in the workspace: every folder it can write is an
 * absolute path inside the workspace, as written and as the system resolves it (symlinks).
 */
export function writesInside(writable: readonly string[], workspace: string): boolean {
  const lexical = resolve(workspace);
  const real = existingReal(lexical) ?? lexical;
  return writable.every((path) => {
    if (typeof path !== "string" || path.includes("\0") || !isAbsolute(path)) return false;
    const where = resolve(path);
    return (isInside(where, lexical) || isInside(where, real)) && isInside(realThroughAncestors(where), real);
  });
}

/** Where a path leads: its real path, or its nearest existing ancestor's real path with the rest appended. */
function realThroughAncestors(path: string): string {
  let rest = "";
  let at = path;
  for (;;) {
    const real = existingReal(at);
    if (real !== undefined) return rest === "" ? real : `${real}${sep}${rest}`;
    const parent = dirname(at);
    if (parent === at) return path;
    rest = rest === "" ? basename(at) : `${basename(at)}${sep}${rest}`;
    at = parent;
  }
}

/** What a rule judges that the call does not declare (`"commands"`), or undefined when it declares it. */
export function undeclared(rule: CompiledRule, access: ToolAccess | undefined): string | undefined {
  const has = (list: unknown[] | undefined) => (list?.length ?? 0) > 0;
  if (rule.command || rule.inline || rule.kinds) return has(access?.commands) ? undefined : "the commands";
  if (rule.path) return has(access?.commands) || has(access?.reads) || has(access?.writes) || has(access?.readTrees) ? undefined : "the paths";
  return has(access?.network) ? undefined : "the network destinations";
}
