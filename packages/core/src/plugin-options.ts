import type { Static, TSchema } from "@sinclair/typebox";
import { Default } from "@sinclair/typebox/value";
import { ErrorCode, ToolhostError } from "./errors.js";
import { preview } from "./preview.js";
import { formatProblems, problemsOnce } from "./validate.js";

/**
 * Fills a plugin's option defaults and validates them against its schema, as `harness.use` does.
 * Takes only the plugin's name and schema, so a tool factory can check its options alike.
 */
export function resolvePluginOptions<TOptions extends TSchema>(
  plugin: { readonly name: string; readonly options?: TOptions },
  options: unknown,
): Static<TOptions> {
  if (!plugin.options) {
    if (options !== undefined && !(typeof options === "object" && options !== null && Object.keys(options).length === 0)) {
      throw new ToolhostError(
        ErrorCode.INVALID_PLUGIN_OPTIONS,
        `Plugin "${plugin.name}" takes no options, but was given ${preview(options, 200)}. Remove them.`,
      );
    }
    return {} as Static<TOptions>;
  }
  const value = Default(plugin.options, copyOptions(options ?? {}));
  const problems = problemsOnce(plugin.options, value);
  if (problems) {
    throw new ToolhostError(
      ErrorCode.INVALID_PLUGIN_OPTIONS,
      `Invalid options for plugin "${plugin.name}":\n${formatProblems(problems)}\nFix them in the plugin's options; its schema lists what it takes.`,
    );
  }
  return value as Static<TOptions>;
}

/**
 * A copy of plain objects and arrays, so that filling defaults never changes the caller's config;
 * anything else (a function of a code config, e.g. tool-fs's imageProcessor) is kept as it is,
 * where structuredClone would throw.
 */
function copyOptions(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(copyOptions);
  if (value !== null && typeof value === "object" && Object.getPrototypeOf(value) === Object.prototype) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, copyOptions(item)]));
  }
  return value;
}
