import type { CommandAccess, NetworkAccess, ToolAccess } from "@toolhost/core";
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
  return record as ToolAccess;
}

/** What a rule judges that the call does not declare (`"commands"`), or undefined when it declares it. */
export function undeclared(rule: CompiledRule, access: ToolAccess | undefined): string | undefined {
  const has = (list: unknown[] | undefined) => (list?.length ?? 0) > 0;
  if (rule.command || rule.inline) return has(access?.commands) ? undefined : "the commands";
  if (rule.path) return has(access?.commands) || has(access?.reads) || has(access?.writes) || has(access?.readTrees) ? undefined : "the paths";
  return has(access?.network) ? undefined : "the network destinations";
}
