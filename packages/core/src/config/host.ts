import { dirname, isAbsolute, resolve } from "node:path";
import { ToolhostError, messageOf } from "../errors.js";
import { AgentHarness, type AgentHarnessOptions } from "../harness.js";
import type { PluginReport, PluginSetting, ToolhostPlugin } from "../plugin.js";
import { ConfigError, ConfigErrorCode } from "./errors.js";
import { type ConfigHints, hintText } from "./hints.js";
import { findConfig } from "./load.js";
import { importPlugin, locate, notFound, resolvePlaces } from "./_locate-plugin.js";
import { optionProblems } from "./_option-problems.js";
import { isPathSpecifier, type ResolvePlace } from "./_resolve.js";
import type { PluginEntry, ToolhostConfig } from "./schema.js";

export interface CreateHostOptions {
  /** The working directory: where the config search starts and what tools resolve paths against. Default `process.cwd()`. */
  cwd?: string;
  /** A config file to use instead of searching (relative to `cwd`). */
  configPath?: string;
  /**
   * Folders plugins are resolved from after the config file's folder, e.g. the CLI's own install
   * location (a string, or the folder with what it is, for error messages). Without a config file,
   * the default plugins are resolved from these only. Never the working directory.
   */
  resolveFrom?: ReadonlyArray<string | ResolvePlace>;
  /**
   * Apply only the plugins that provide this service, as their package.json says
   * (`"toolhost": { "provides": ["policy"] }`), e.g. a policy check that needs no tools. A plugin
   * named by a path has no package to read and is applied.
   */
  onlyProviding?: string;
  /** More options of the `AgentHarness`; they win over the config's. */
  harnessOptions?: AgentHarnessOptions;
  /**
   * The plugins to apply when no config file is found, each where installed (those not installed
   * are listed in `Host.missing`). Default none: core names no plugin; a host chooses its own.
   */
  defaultPlugins?: readonly PluginEntry[];
  /** Package names the host knows, for "Did you mean" when a named package is not found. */
  knownPlugins?: readonly string[];
  /** The host's wording for its fixes (its config flag, its commands). */
  hints?: ConfigHints;
}

/** A plugin the host applied. */
export interface LoadedPlugin {
  /** The plugin's name (its `definePlugin` name). */
  name: string;
  /** Its version: the plugin's own, or its package's. */
  version: string | undefined;
  /** The file it was imported from. */
  resolvedFrom: string;
  /** The tools it registered, in order. */
  tools: string[];
  /**
   * The settings it reported it runs with (its `apply`'s `PluginReport`), each text passed through
   * the harness's `redact` hook (a text the hook fails on is withheld); `{}` when it reported none.
   */
  settings: Record<string, PluginSetting>;
  /** The files it reported it read its settings from (its `PluginReport.sources`, absolute paths only). */
  sources: string[];
}

/** A harness with the configured plugins applied. Call `harness.dispose()` when done. */
export interface Host {
  harness: AgentHarness;
  /** The config file in use, or undefined when the default was used. */
  configPath: string | undefined;
  /** The config as loaded, or undefined when the default was used. */
  config: ToolhostConfig | undefined;
  /** The project folder: the config file's folder, or the working directory without one. */
  workspace: string;
  plugins: LoadedPlugin[];
  /** Default plugins that are not installed (only without a config file). */
  missing: string[];
  /** Config files beside the one in use that were not read (a folder's first config file wins). */
  ignoredConfigs: string[];
  /**
   * The files this host was made from, absolute, each once: the config file, the package.json of
   * each package the config names (applied, or left out by `onlyProviding`), each applied plugin's
   * module, and what each plugin reported in `PluginReport.sources`. A long-lived host compares
   * their state with what it was at load to know when to make a new host; whether the config search
   * would now find another file, `findConfigFile` says. Not listed: modules a config or plugin
   * imports, and packages that were not found.
   */
  sources: string[];
}

/**
 * Finds the config, creates the harness and applies each plugin it names, in order, importing only
 * those. Every failure is a `ConfigError` (a `ToolhostError`) naming the plugin, the config file and
 * the fix; the harness is disposed before it is thrown.
 */
export async function createHost(options: CreateHostOptions = {}): Promise<Host> {
  const cwd = resolve(options.cwd ?? process.cwd());
  const loaded = await findConfig({
    cwd,
    ...(options.configPath !== undefined ? { configPath: options.configPath } : {}),
    ...(options.hints !== undefined ? { hints: options.hints } : {}),
  });
  const config = loaded?.config;
  const configPath = loaded?.path;
  const workspace = configPath ? dirname(configPath) : cwd;
  const extra = resolvePlaces(options.resolveFrom);
  const places = configPath ? [{ dir: workspace, what: "the config file's folder" }, ...extra] : extra;
  const where = configPath ? `named in ${configPath}` : "a default plugin: no toolhost config file was found";

  const harness = new AgentHarness({
    cwd,
    workspace,
    ...(config?.toolExecution !== undefined ? { toolExecution: config.toolExecution } : {}),
    ...(config?.maxConcurrency !== undefined ? { maxConcurrency: config.maxConcurrency } : {}),
    ...(config?.toolTimeoutMs !== undefined ? { toolTimeoutMs: config.toolTimeoutMs } : {}),
    ...options.harnessOptions,
  });
  const plugins: LoadedPlugin[] = [];
  const reports: unknown[] = [];
  const missing: string[] = [];
  const sources = new Set(configPath ? [configPath] : []);
  try {
    for (const entry of config?.plugins ?? options.defaultPlugins ?? []) {
      const [name, pluginOptions] = typeof entry === "string" ? [entry, undefined] : entry;
      const at = { configPath, plugin: name };
      const found = await locate(name, workspace, places);
      if ("tried" in found) {
        if (!configPath) {
          missing.push(name);
          continue;
        }
        throw notFound(name, configPath, found.tried, options.knownPlugins ?? [], places);
      }
      if (found.manifest !== undefined) sources.add(found.manifest);
      if (options.onlyProviding !== undefined && !isPathSpecifier(name) && !("provides" in found && found.provides?.includes(options.onlyProviding))) {
        continue;
      }
      sources.add(found.file);
      const plugin = await importPlugin(name, found.file, where, at);
      const before = new Set(harness.tools.map((tool) => tool.name));
      let report: void | PluginReport = undefined;
      // The plugin as given, its `apply`'s report kept: the harness itself has no use for it.
      const reporting: ToolhostPlugin = {
        ...plugin,
        apply: async (target, value, context) => {
          report = await plugin.apply(target, value, context);
        },
      };
      // One owner for now: the config that was found (a project's), or the host's defaults.
      const context = { layers: [{ owner: "project" as const, ...(configPath && { file: configPath }), trusted: true, options: pluginOptions }] };
      try {
        await harness.use(reporting, pluginOptions, context);
      } catch (error) {
        throw applyError(error, plugin, pluginOptions, { name, where, at, hints: options.hints });
      }
      plugins.push({
        name: plugin.name,
        version: plugin.version ?? found.packageVersion,
        resolvedFrom: found.file,
        tools: harness.tools.map((tool) => tool.name).filter((tool) => !before.has(tool)),
        settings: {},
        sources: reportedSources(report),
      });
      reports.push(report);
    }
  } catch (error) {
    await harness.dispose().catch(() => undefined);
    throw error;
  }
  // Redacted once every plugin is applied: the redact taps may come from a plugin named later.
  plugins.forEach((plugin, index) => {
    plugin.settings = reportedSettings(reports[index], harness);
    plugin.sources.forEach((source) => sources.add(source));
  });
  return { harness, configPath, config, workspace, plugins, missing, ignoredConfigs: loaded?.ignored ?? [], sources: [...sources] };
}


/** A plugin whose `apply` (or options check) failed; wrong options get each problem once, in words. */
function applyError(
  error: unknown,
  plugin: ToolhostPlugin,
  options: unknown,
  context: { name: string; where: string; at: { configPath: string | undefined; plugin: string }; hints: ConfigHints | undefined },
): ConfigError {
  const code = error instanceof ToolhostError ? error.code : ConfigErrorCode.PLUGIN_APPLY_FAILED;
  const problems = code === ConfigErrorCode.INVALID_PLUGIN_OPTIONS && plugin.options !== undefined ? optionProblems(plugin.options, options) : [];
  if (problems.length > 0) {
    const entry = context.name === plugin.name ? "" : `${context.name}, `;
    const lines = [
      `Invalid options for plugin "${plugin.name}" (${entry}${context.where}):`,
      ...problems,
      `Fix them in the plugin's options; ${hintText(context.hints).showPluginSchema(context.name)}.`,
    ];
    return new ConfigError(code, lines.join("\n"), context.at, { cause: error });
  }
  return new ConfigError(code, `${messageOf(error)}\n(plugin "${context.name}", ${context.where})`, context.at, { cause: error });
}

/** The absolute paths of a plugin's reported sources, each once; what is not one is left out. */
function reportedSources(report: unknown): string[] {
  const given = (report as PluginReport | undefined)?.sources;
  if (!Array.isArray(given)) return [];
  return [...new Set(given.filter((source): source is string => typeof source === "string" && isAbsolute(source)).map((source) => resolve(source)))];
}

const WITHHELD = "[withheld: redaction failed]";

/** A plugin's reported settings, checked (what is not a setting is left out) and redacted. */
function reportedSettings(report: unknown, harness: AgentHarness): Record<string, PluginSetting> {
  const given = (report as PluginReport | undefined)?.settings;
  if (typeof given !== "object" || given === null) return {};
  const redact = (text: string): string => {
    if (!harness.hooks.redact.isUsed()) return text;
    try {
      const redacted: unknown = harness.hooks.redact.call(text);
      return typeof redacted === "string" ? redacted : WITHHELD;
    } catch {
      return WITHHELD;
    }
  };
  const settings: Record<string, PluginSetting> = {};
  for (const [name, value] of Object.entries(given)) {
    if (typeof value === "string") settings[name] = redact(value);
    else if (typeof value === "number" || typeof value === "boolean" || value === null) settings[name] = value;
    else if (Array.isArray(value) && value.every((item) => typeof item === "string")) settings[name] = value.map(redact);
  }
  return settings;
}
