import { stat } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { ToolhostError, messageOf } from "../errors.js";
import { AgentHarness, type AgentHarnessOptions } from "../harness.js";
import { isPlugin, type ToolhostPlugin } from "../plugin.js";
import { ConfigError, ConfigErrorCode } from "./_errors.js";
import { findConfig } from "./_load.js";
import { editDistance, isPathSpecifier, resolvePackage, type ResolvePlace } from "./_resolve.js";
import type { PluginEntry, ToolhostConfig } from "./_schema.js";

/** The first-party plugins, for "Did you mean" and the default. */
export const FIRST_PARTY_PLUGINS = Object.freeze(["@toolhost/tool-fs", "@toolhost/tool-bash", "@toolhost/hooks-policy"]);

/** The plugins used when there is no config file, each where installed. */
export const DEFAULT_PLUGINS: readonly PluginEntry[] = Object.freeze([
  "@toolhost/tool-fs",
  "@toolhost/tool-bash",
  ["@toolhost/hooks-policy", { extends: ["recommended"] }],
] as PluginEntry[]);

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
}

/**
 * Finds the config, creates the harness and applies each plugin it names, in order, importing only
 * those. Every failure is a `ConfigError` (a `ToolhostError`) naming the plugin, the config file and
 * the fix; the harness is disposed before it is thrown.
 */
export async function createHost(options: CreateHostOptions = {}): Promise<Host> {
  const cwd = resolve(options.cwd ?? process.cwd());
  const loaded = await findConfig({ cwd, ...(options.configPath !== undefined ? { configPath: options.configPath } : {}) });
  const config = loaded?.config;
  const configPath = loaded?.path;
  const workspace = configPath ? dirname(configPath) : cwd;
  const extra: ResolvePlace[] = (options.resolveFrom ?? []).map((place) =>
    typeof place === "string" ? { dir: place, what: "the host's install location" } : place,
  );
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
  const missing: string[] = [];
  try {
    for (const entry of config?.plugins ?? DEFAULT_PLUGINS) {
      const [name, pluginOptions] = typeof entry === "string" ? [entry, undefined] : entry;
      const at = { configPath, plugin: name };
      const found = await locate(name, workspace, places);
      if ("tried" in found) {
        if (!configPath) {
          missing.push(name);
          continue;
        }
        throw notFound(name, configPath, found.tried);
      }
      if (options.onlyProviding !== undefined && !isPathSpecifier(name) && !("provides" in found && found.provides?.includes(options.onlyProviding))) {
        continue;
      }
      const plugin = await importPlugin(name, found.file, where, at);
      const before = new Set(harness.tools.map((tool) => tool.name));
      try {
        await harness.use(plugin, pluginOptions);
      } catch (error) {
        const code = error instanceof ToolhostError ? error.code : ConfigErrorCode.PLUGIN_APPLY_FAILED;
        throw new ConfigError(code, `${messageOf(error)}\n(plugin "${name}", ${where})`, at, { cause: error });
      }
      plugins.push({
        name: plugin.name,
        version: plugin.version ?? found.packageVersion,
        resolvedFrom: found.file,
        tools: harness.tools.map((tool) => tool.name).filter((tool) => !before.has(tool)),
      });
    }
  } catch (error) {
    await harness.dispose().catch(() => undefined);
    throw error;
  }
  return { harness, configPath, config, workspace, plugins, missing };
}

async function locate(
  name: string,
  configDir: string,
  places: readonly ResolvePlace[],
): Promise<{ file: string; packageVersion?: string | undefined; provides?: string[] | undefined } | { tried: string[] }> {
  if (!isPathSpecifier(name)) return resolvePackage(name, places);
  const file = resolve(configDir, name);
  try {
    if ((await stat(file)).isFile()) return { file };
  } catch {
    // reported below with the path tried
  }
  return { tried: [`${file} (relative to the config file's folder)`] };
}

function notFound(name: string, configPath: string, tried: string[]): ConfigError {
  const lines = [`Plugin "${name}" was not found (named in ${configPath}).`, "Looked in:", ...tried.map((place) => `  - ${place}`)];
  if (isPathSpecifier(name)) {
    lines.push(`Fix the path in ${configPath}: a relative path is relative to the config file's folder.`);
  } else {
    lines.push(`Install it next to the config: npm i -D ${name}`);
    const close = suggestion(name);
    if (close) lines.push(`Did you mean "${close}"?`);
  }
  return new ConfigError(ConfigErrorCode.PLUGIN_NOT_FOUND, lines.join("\n"), { configPath, plugin: name });
}

function suggestion(name: string): string | undefined {
  let best: { known: string; distance: number } | undefined;
  for (const known of FIRST_PARTY_PLUGINS) {
    if (known === name) continue;
    const distance = known.endsWith(`/${name}`) ? 0 : editDistance(name, known);
    if (distance <= 3 && (best === undefined || distance < best.distance)) best = { known, distance };
  }
  return best?.known;
}

async function importPlugin(
  name: string,
  file: string,
  where: string,
  at: { configPath: string | undefined; plugin: string },
): Promise<ToolhostPlugin> {
  let module: { default?: unknown };
  try {
    module = (await import(pathToFileURL(file).href)) as { default?: unknown };
  } catch (error) {
    throw new ConfigError(
      ConfigErrorCode.PLUGIN_LOAD_FAILED,
      `Plugin "${name}" (${file}) failed to load: ${messageOf(error)}\n(${where}) Reinstall the plugin, or fix its module.`,
      at,
      { cause: error },
    );
  }
  const candidate = isPlugin(module.default)
    ? module.default
    : isPlugin((module.default as { default?: unknown } | undefined)?.default)
      ? (module.default as { default: unknown }).default
      : undefined;
  if (candidate === undefined) {
    const got = module.default;
    const why =
      got === undefined
        ? "it has no default export"
        : typeof got === "object" && got !== null && typeof (got as { apply?: unknown }).apply === "function"
          ? "its default export has apply but was not made with definePlugin (no apiVersion)"
          : `its default export is ${got === null ? "null" : typeof got}, not a plugin`;
    throw new ConfigError(
      ConfigErrorCode.NOT_A_PLUGIN,
      `"${name}" (${file}) is not a toolhost plugin: ${why}.\n(${where}) A plugin's default export is made with definePlugin() from @toolhost/core; remove it from plugins if it is not a plugin.`,
      at,
    );
  }
  return candidate as ToolhostPlugin;
}
