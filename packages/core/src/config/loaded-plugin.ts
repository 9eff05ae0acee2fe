import type { PluginSetting } from "../plugin.js";
import type { ConfigOwner } from "../types/config.js";

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
  /** The owners whose configs name it, highest first (its `PluginContext.layers`); `["project"]` for a host's default plugin. */
  namedBy: ConfigOwner[];
  /** Whose options it was given: the managed config's when it names the plugin, else the nearest owner's. */
  optionsFrom: ConfigOwner;
}
