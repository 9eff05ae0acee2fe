/**
 * Whose config a setting came from, highest precedence first: an administrator's (`managed`, a
 * system path the user cannot write), the user's, the project's (found from the working folder).
 * A locked policy layer of a higher owner is a floor that no lower owner can loosen.
 */
export type ConfigOwner = "managed" | "user" | "project";

/** One config that names a plugin, as the plugin's `apply` sees it in `PluginContext.layers`. */
export interface PluginLayer {
  owner: ConfigOwner;
  /** The config file (absolute); absent for a host's default plugins, used without a config file. */
  file?: string;
  /**
   * Whether that config's folder is trusted to run code (a JS/TS config, a plugin by path, a server
   * command): managed and user configs are, by where they are; a project's only once the user
   * trusts its folder. A plugin must not start a program an untrusted layer names.
   */
  trusted: boolean;
  /**
   * For a layer that is not trusted: how the user trusts its folder, in the host's words (the end
   * of a sentence, e.g. `run "toolhost trust /p"`), for the refusal of what it would have run.
   */
  trust?: string;
  /** The plugin's options in that config, as written (defaults not filled, not validated). */
  options: unknown;
}

/**
 * What a plugin's `apply` learns of where it was configured (its third argument). A plugin that
 * composes what several owners say (a policy: the administrator's locked floor, the user's rules,
 * the project's) reads `layers`; any other takes its `options`, validated: those of the managed
 * layer when there is one (an administrator's settings hold), else of the last layer (the nearest
 * owner's). Whatever the plugin starts or loads from its options must follow `trusted` of the
 * layer they came from.
 */
export interface PluginContext {
  /** Every config that names the plugin, highest owner first; empty when it was applied from code. */
  readonly layers: readonly PluginLayer[];
}
