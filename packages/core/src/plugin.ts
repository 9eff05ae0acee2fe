import type { Static, TObject, TSchema } from "@sinclair/typebox";
import { ErrorCode, ToolhostError } from "./errors.js";
import { PLUGIN_API_VERSION } from "./plugin-version.js";
import type { AgentHarness } from "./harness.js";
import type { PluginContext } from "./types/index.js";

export { PLUGIN_API_VERSION };

/** What `definePlugin` takes. */
export interface PluginDefinition<TOptions extends TSchema = TObject> {
  /** The package name (`@toolhost/tool-bash`); the name of every tap and tool the plugin adds. */
  name: string;
  /** The plugin's own version, shown by `toolhost config`. */
  version?: string;
  /** A TypeBox schema of the options; the host fills defaults and validates before `apply`. */
  options?: TOptions;
  /**
   * Called once at start-up with the harness and the validated options: register tools, tap
   * hooks, provide services. Never tap per call. `context` says which configs named the plugin
   * (by owner), for a plugin that composes them. May return a `PluginReport`: the settings the
   * plugin runs with, as `toolhost config` shows them.
   */
  apply(harness: AgentHarness, options: Static<TOptions>, context: PluginContext): void | PluginReport | Promise<void | PluginReport>;
}

/** One effective setting: a line of text, a number, a flag, or a list. */
export type PluginSetting = string | number | boolean | null | readonly string[];

/**
 * What a plugin's `apply` may return: its effective settings, after defaults and what it found at
 * load (`sandbox: "auto → bwrap 0.8.0"`), by name, in the order to show them. A host shows them
 * (`toolhost config`) after passing each text through the harness's `redact` hook; still, report
 * no secret (an environment variable's value, a token): name it instead.
 */
export interface PluginReport {
  settings?: Readonly<Record<string, PluginSetting>>;
  /**
   * The files `apply` read its settings from, beyond its options: absolute paths (a policy file its
   * options name, the package.json of a package it resolved). A long-lived host (`toolhost hook
   * serve`) makes a new host when one of them changes or disappears (`Host.sources`), so list
   * every file whose content decides what the plugin does; not the plugin's own modules (the host
   * knows those). A path that is not absolute is left out.
   */
  sources?: readonly string[];
}

/** A plugin as `definePlugin` returns it. */
export interface ToolhostPlugin<TOptions extends TSchema = TObject> extends Readonly<PluginDefinition<TOptions>> {
  /** The `PLUGIN_API_VERSION` of the `@toolhost/core` the plugin was defined with. */
  readonly apiVersion: number;
}

const KNOWN_KEYS = new Set(["name", "version", "options", "apply"]);

/** Makes a plugin: the default export of a toolhost plugin package. */
export function definePlugin<TOptions extends TSchema = TObject>(
  definition: PluginDefinition<TOptions>,
): ToolhostPlugin<TOptions> {
  const where = typeof definition?.name === "string" ? `plugin "${definition.name}"` : "definePlugin()";
  if (definition === null || typeof definition !== "object") {
    throw new ToolhostError(ErrorCode.INVALID_PLUGIN, `${where}: expected an object with name and apply.`);
  }
  if (typeof definition.name !== "string" || definition.name.length === 0) {
    throw new ToolhostError(ErrorCode.INVALID_PLUGIN, `${where}: "name" must be a non-empty string (the package name).`);
  }
  if (typeof definition.apply !== "function") {
    throw new ToolhostError(ErrorCode.INVALID_PLUGIN, `${where}: "apply" must be a function (harness, options) => void.`);
  }
  const unknown = Object.keys(definition).filter((key) => !KNOWN_KEYS.has(key));
  if (unknown.length > 0) {
    throw new ToolhostError(
      ErrorCode.INVALID_PLUGIN,
      `${where}: unknown key${unknown.length > 1 ? "s" : ""} ${unknown.map((k) => `"${k}"`).join(", ")}; a plugin has only ${[...KNOWN_KEYS].join(", ")}.`,
    );
  }
  return Object.freeze({ ...definition, apiVersion: PLUGIN_API_VERSION });
}

/** Whether a value looks like a plugin made with `definePlugin` (of any API version). */
export function isPlugin(value: unknown): value is ToolhostPlugin<TSchema> {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as ToolhostPlugin).name === "string" &&
    typeof (value as ToolhostPlugin).apply === "function" &&
    typeof (value as ToolhostPlugin).apiVersion === "number"
  );
}
