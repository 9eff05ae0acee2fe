/**
 * How the host names its own ways to fix a config, for the messages of config loading. Core knows
 * no command and no flag: a CLI passes its wording (`--config`, `toolhost init`), another host its
 * own; without hints the messages name files and keys only.
 */
export interface ConfigHints {
  /** How the user named the config file, e.g. `"--config"`. */
  configOption?: string;
  /** How to create a config, e.g. `'run "toolhost init" in your project'`. */
  createConfig?: string;
  /** How to see every key a config takes, e.g. `'"toolhost schema" prints every key the config takes'`. */
  showConfigSchema?: string;
  /** How to see the options a plugin takes, e.g. `(name) => \`"toolhost schema ${name}" shows them\``. */
  showPluginSchema?: (plugin: string) => string;
  /** How to trust a folder to run code from, e.g. `(folder) => \`run "toolhost trust ${folder}"\`` (a sentence's end). */
  trustFolder?: (folder: string) => string;
}

/** The wording of each hint, with the neutral default when the host gave none. */
export function hintText(hints: ConfigHints | undefined) {
  return {
    configOption: hints?.configOption ? `the path given with ${hints.configOption}` : "the config path given",
    configNames: hints?.configOption ? `${hints.configOption} names` : "The config path names",
    createConfig: hints?.createConfig ?? "create a toolhost.config.json in your project",
    showConfigSchema: hints?.showConfigSchema ?? "the JSON Schema @toolhost/core/config/schema.json lists every key the config takes",
    showPluginSchema: (plugin: string) => hints?.showPluginSchema?.(plugin) ?? "the plugin's options schema lists what it takes",
    trustFolder: (folder: string, file: string) => hints?.trustFolder?.(folder) ?? `add ${JSON.stringify(folder)} to the "folders" of ${file}`,
  };
}
