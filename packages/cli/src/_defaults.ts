import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import type { ConfigHints, CreateHostOptions, PluginEntry } from "@toolhost/core/config";

/**
 * The plugins used when there is no config file, each where installed, and what `toolhost init`
 * writes. Named here, not in core: core knows no tool and no policy; the CLI still imports none of
 * them (the host resolves each by name, where installed).
 */
export const DEFAULT_PLUGINS: readonly PluginEntry[] = Object.freeze([
  "@toolhost/tool-fs",
  "@toolhost/tool-bash",
  ["@toolhost/hooks-policy", { extends: ["recommended"] }],
] as PluginEntry[]);

/** The policy plugin of the defaults: a config "don't ask again" creates (the user's) names it. */
export const DEFAULT_POLICY_PLUGIN = "@toolhost/hooks-policy";

/** The first-party plugins, for "Did you mean" when a named package is not installed. */
export const KNOWN_PLUGINS: readonly string[] = Object.freeze([
  "@toolhost/tool-fs",
  "@toolhost/tool-bash",
  "@toolhost/hooks-policy",
  "@toolhost/provider-openai",
]);

/** The CLI's wording in config messages. */
export const CONFIG_HINTS: ConfigHints = Object.freeze({
  configOption: "--config",
  createConfig: 'run "toolhost init" in your project to create one',
  showConfigSchema: '"toolhost schema" prints every key the config takes',
  showPluginSchema: (plugin: string) => `"toolhost schema ${plugin}" shows the options it takes`,
  trustFolder: (folder: string) => `run "toolhost trust ${shellWord(folder)}"`,
});

/** A word the shell reads as itself: as is when it holds nothing the shell treats specially, else single-quoted. */
export function shellWord(text: string): string {
  return /^[\w.~:/@%+=,-]+$/.test(text) ? text : `'${text.replace(/'/g, "'\\''")}'`;
}

/** The names of the plugins of a list, for an `npm i -D` line. */
export function pluginNames(entries: readonly PluginEntry[]): string[] {
  return entries.map((entry) => (typeof entry === "string" ? entry : entry[0]));
}

/** The CLI's own folder: plugins are resolved from here after the config file's folder. */
export const CLI_DIR = dirname(dirname(fileURLToPath(import.meta.url)));

/** What every host the CLI creates is made with: where plugins resolve, the defaults, the wording. */
export function cliHostOptions(cwd: string, configPath: string | undefined): CreateHostOptions {
  return {
    cwd,
    ...(configPath !== undefined ? { configPath } : {}),
    resolveFrom: [{ dir: CLI_DIR, what: "the toolhost CLI's install location" }],
    // The CLI runs in projects it did not make: their code loads only from folders the user trusts.
    application: false,
    defaultPlugins: DEFAULT_PLUGINS,
    knownPlugins: KNOWN_PLUGINS,
    hints: CONFIG_HINTS,
  };
}
