export { ConfigSchema, PluginEntrySchema, configJsonSchema, defineConfig, type PluginEntry, type ToolhostConfig } from "./_schema.js";
export { ConfigError, ConfigErrorCode, type ConfigErrorLocation } from "./_errors.js";
export { CONFIG_FILE_NAMES, findConfig, validateConfig, type FindConfigOptions, type LoadedConfig } from "./_load.js";
export {
  DEFAULT_PLUGINS,
  FIRST_PARTY_PLUGINS,
  createHost,
  type CreateHostOptions,
  type Host,
  type LoadedPlugin,
} from "./_host.js";
export type { ResolvePlace } from "./_resolve.js";
