import { ErrorCode, ToolhostError } from "../errors.js";

/** Stable codes of the errors of config loading; kernel codes are reused where the kernel decides. */
export const ConfigErrorCode = Object.freeze({
  CONFIG_NOT_FOUND: "TOOLHOST_CONFIG_NOT_FOUND",
  CONFIG_SYNTAX: "TOOLHOST_CONFIG_SYNTAX",
  CONFIG_INVALID: "TOOLHOST_CONFIG_INVALID",
  PLUGIN_NOT_FOUND: "TOOLHOST_PLUGIN_NOT_FOUND",
  PLUGIN_LOAD_FAILED: "TOOLHOST_PLUGIN_LOAD_FAILED",
  NOT_A_PLUGIN: "TOOLHOST_NOT_A_PLUGIN",
  /** Code (a JS/TS config, a plugin by path, a package installed in the project) from a folder the user has not trusted. */
  UNTRUSTED_CODE: "TOOLHOST_UNTRUSTED_CODE",
  /** A config, plugin or trust list that another user can change or owns. */
  UNSAFE_FILE: "TOOLHOST_UNSAFE_FILE",
  /** An option of a project config the user has not trusted that reaches further than the value below it (schema keyword `reach`). */
  UNTRUSTED_WIDENING: "TOOLHOST_UNTRUSTED_WIDENING",
  /** `toolhost trust` given something that is not an existing folder. */
  TRUST_FOLDER: "TOOLHOST_TRUST_FOLDER",
  INCOMPATIBLE_PLUGIN: ErrorCode.INCOMPATIBLE_PLUGIN,
  INVALID_PLUGIN_OPTIONS: ErrorCode.INVALID_PLUGIN_OPTIONS,
  PLUGIN_APPLY_FAILED: ErrorCode.PLUGIN_APPLY_FAILED,
  DUPLICATE_TOOL: ErrorCode.DUPLICATE_TOOL,
} as const);

/** Where a config problem is: the file, the plugin entry, and for syntax errors the line and column (1-based). */
export interface ConfigErrorLocation {
  configPath?: string | undefined;
  plugin?: string | undefined;
  line?: number | undefined;
  column?: number | undefined;
}

/** A config or plugin that cannot be loaded. The command exits 2 before any tool runs. */
export class ConfigError extends ToolhostError {
  override name = "ConfigError";
  readonly configPath: string | undefined;
  readonly plugin: string | undefined;
  readonly line: number | undefined;
  readonly column: number | undefined;

  constructor(code: string, message: string, where: ConfigErrorLocation = {}, options?: { cause?: unknown }) {
    super(code, message, options);
    this.configPath = where.configPath;
    this.plugin = where.plugin;
    this.line = where.line;
    this.column = where.column;
  }
}
