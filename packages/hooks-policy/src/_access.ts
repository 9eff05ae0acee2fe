import { basename, dirname, isAbsolute, resolve, sep } from "node:path";
import type { CommandAccess, NetworkAccess, ToolAccess } from "@toolhost/core";
import { existingReal, isInside } from "./_paths.js";
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
  list("network", (item) => typeof item === "object" && item !== null && typeof (item as NetworkAccess).url === "string", "{ url, method? }");
  const confinement = record.confinement as Record<string, unknown> | undefined | null;
  if (confinement !== undefined) {
    const shaped =
      typeof confinement === "object" &&
      confinement !== null &&
      Array.isArray(confinement.writable) &&
      confinement.writable.every(isString) &&
      (typeof confinement.network === "boolean" || confinement.network === "off" || confinement.network === "proxy" || confinement.network === "host") &&
      (confinement.hidesDeniedReads === undefined || typeof confinement.hidesDeniedReads === "boolean");
    if (!shaped) throw new TypeError('the tool\'s access declaration has a "confinement" that is not { writable: paths, network: boolean, hidesDeniedReads?: boolean }');
  }
  return record as ToolAccess;
}

/**
 * Whether a call runs confined as a `sandboxed: true` rule means it: a confinement is declared,
 * the network is off, and every folder it can write is inside the workspace, as written and as the
 * system resolves it (symlinks). Anything else gets no trust.
 */
export function runsConfined(access: ToolAccess | undefined, workspace: string): boolean {
  const confinement = access?.confinement;
  // Core's confinement v2 names the network's mode; false is the first version's "off".
  if (!confinement || (confinement.network !== false && confinement.network !== "off")) return false;
  const lexical = resolve(workspace);
  const real = existingReal(lexical) ?? lexical;
  return confinement.writable.every((path) => {
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
  if (rule.command || rule.inline) return has(access?.commands) ? undefined : "the commands";
  if (rule.path) return has(access?.commands) || has(access?.reads) || has(access?.writes) || has(access?.readTrees) ? undefined : "the paths";
  return has(access?.network) ? undefined : "the network destinations";
}
