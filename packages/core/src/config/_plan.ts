import { dirname, resolve } from "node:path";
import type { ConfigOwner, PluginLayer } from "../types/config.js";
import type { ConfigLayer } from "./layers.js";
import { isPathSpecifier } from "./_resolve.js";
import type { PluginEntry, ToolhostConfig } from "./schema.js";

// How the owners' configs combine into one host (docs/trust.md, "Layers"):
// - plugins: the union, each applied once, in the order the owners name them (managed's first);
// - a plugin's options: the managed config's when it names the plugin (an administrator's settings
//   hold), else the nearest owner's (the project's, then the user's); a plugin that composes every
//   owner (a policy) reads them all in `PluginContext.layers`, highest owner first;
// - the harness settings and `agent`: the same, key by key;
// - a host's default plugins stand in for a missing project config, each one no other owner names.

/** A plugin to apply, with every config that names it. */
export interface PlannedPlugin {
  /** The name the config that resolves it gives it (a package name, or a path relative to that config). */
  name: string;
  /** Every config that names it, highest owner first (`PluginContext.layers`). */
  layers: PluginLayer[];
  /** The options in force (see above) and whose they are. */
  options: unknown;
  optionsFrom: ConfigOwner;
  /** The config it is resolved from: the highest owner's that names it; undefined for a host default. */
  home: ConfigLayer | undefined;
}

/** The plugins of every layer, merged. `defaults` fill in for a project layer with no config file. */
export function planPlugins(layers: readonly ConfigLayer[], defaults: readonly PluginEntry[], cwd: string, trustHint: (folder: string) => string): PlannedPlugin[] {
  const planned = new Map<string, PlannedPlugin>();
  const add = (layer: ConfigLayer | undefined, owner: ConfigOwner, entry: PluginEntry): void => {
    const [name, options] = typeof entry === "string" ? [entry, undefined] : entry;
    const base = layer?.file !== undefined ? dirname(layer.file) : cwd;
    const key = isPathSpecifier(name) ? resolve(base, name) : name;
    const trusted = layer?.trusted ?? true;
    const pluginLayer: PluginLayer = {
      owner,
      ...(layer?.file !== undefined && { file: layer.file }),
      trusted,
      ...(!trusted && layer?.file !== undefined && { trust: trustHint(dirname(layer.file)) }),
      options,
    };
    const known = planned.get(key);
    if (!known) {
      planned.set(key, { name, layers: [pluginLayer], options, optionsFrom: owner, home: layer });
      return;
    }
    known.layers.push(pluginLayer);
    if (known.optionsFrom !== "managed") {
      known.options = options;
      known.optionsFrom = owner;
    }
  };
  for (const layer of layers) for (const entry of layer.config?.plugins ?? []) add(layer, layer.owner, entry);
  const project = layers.find((layer) => layer.owner === "project");
  if (project?.file === undefined) {
    for (const entry of defaults) {
      const name = typeof entry === "string" ? entry : entry[0];
      if (!planned.has(isPathSpecifier(name) ? resolve(cwd, name) : name)) add(undefined, "project", entry);
    }
  }
  return [...planned.values()];
}

/** The config's own settings (not its plugins) in force, each from the owner that decides it, and whose it is. */
export function effectiveSettings(layers: readonly ConfigLayer[]): { config: Omit<ToolhostConfig, "plugins">; from: Record<string, ConfigOwner> } {
  const config: Record<string, unknown> = {};
  const from: Record<string, ConfigOwner> = {};
  const agent: Record<string, unknown> = {};
  const set = (target: Record<string, unknown>, key: string, value: unknown, owner: ConfigOwner, shown: string): void => {
    if (value === undefined || from[shown] === "managed") return;
    target[key] = value;
    from[shown] = owner;
  };
  for (const layer of layers) {
    const { plugins: _plugins, $schema: _schema, agent: agentSettings, ...rest } = layer.config ?? { plugins: [] };
    for (const [key, value] of Object.entries(rest)) set(config, key, value, layer.owner, key);
    for (const [key, value] of Object.entries(agentSettings ?? {})) set(agent, key, value, layer.owner, `agent.${key}`);
  }
  if (Object.keys(agent).length > 0) config.agent = agent;
  return { config: config as Omit<ToolhostConfig, "plugins">, from };
}
