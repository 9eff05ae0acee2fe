export { ConfigSchema, PluginEntrySchema, configJsonSchema, defineConfig, type PluginEntry, type ToolhostConfig } from "./_schema.js";
export { ConfigError, ConfigErrorCode, type ConfigErrorLocation } from "./_errors.js";
export { CONFIG_FILE_NAMES, findConfig, findConfigFile, validateConfig, type FindConfigOptions, type LoadedConfig } from "./_load.js";
export {
  createHost,
  type CreateHostOptions,
  type Host,
  type LoadedPlugin,
} from "./_host.js";
export { findPlugin, installedSchemaPath, type FindPluginOptions, type FoundPlugin } from "./_find-plugin.js";
export type { ConfigHints } from "./_hints.js";
export { closestName, type ResolvePlace } from "./_resolve.js";
