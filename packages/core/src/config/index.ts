export { ConfigSchema, PluginEntrySchema, configJsonSchema, defineConfig, type PluginEntry, type ToolhostConfig } from "./schema.js";
export { ConfigError, ConfigErrorCode, type ConfigErrorLocation } from "./errors.js";
export { CONFIG_FILE_NAMES, findConfig, findConfigFile, validateConfig, type FindConfigOptions, type LoadedConfig } from "./load.js";
export { createHost, type CreateHostOptions, type Host, type LoadedPlugin } from "./host.js";
export { findPlugin, installedSchemaPath, type FindPluginOptions, type FoundPlugin, type ResolvePlace } from "./find-plugin.js";
export type { ConfigHints } from "./hints.js";
export { closestName } from "../suggest.js";
