import { homedir } from "node:os";
import { dirname, isAbsolute, resolve } from "node:path";
import { ToolhostError, messageOf } from "../errors.js";
import type { AgentHarness } from "../harness.js";
import type { PluginReport, PluginSetting, ToolhostPlugin } from "../plugin.js";
import { ConfigError, ConfigErrorCode } from "./errors.js";
import { type ConfigHints, hintText } from "./hints.js";
import type { LoadedPlugin } from "./loaded-plugin.js";
import { importPlugin, locate, notFound } from "./_locate-plugin.js";
import { optionProblems } from "./_option-problems.js";
import type { PlannedPlugin } from "./_plan.js";
import { wideningsOf } from "./reach.js";
import { type Refusal, unsafeFile, untrustedOption, untrustedPlugin, untrustedWidening } from "./refusal.js";
import { trustedOnlyPaths } from "./trusted-options.js";
import { isPathSpecifier, resolvePackage, type ResolvedModule, type ResolvePlace } from "./_resolve.js";
import { unsafeFileReason } from "./safety.js";
import type { TrustedFolders } from "./trust.js";

/** What applying the planned plugins needs from `createHost`. */
export interface ApplyScope {
  harness: AgentHarness;
  cwd: string;
  /** The host's own places (its install location): trusted by the host, searched for every owner. */
  places: readonly ResolvePlace[];
  /** Apply only the plugins that provide one of these services (none: every plugin). */
  onlyProviding: readonly string[] | undefined;
  knownPlugins: readonly string[];
  hints: ConfigHints | undefined;
  trust: TrustedFolders;
}

/** Where a planned plugin is: found, left out (refused, or a default that is not installed, or not providing what is asked). */
export type Located = { found: ResolvedModule } | { refusal: Refusal; manifest?: string } | { missing: true } | { skipped: true; manifest?: string };

/**
 * Finds a planned plugin as its highest owner's config names it: a path from that config's folder,
 * a package from that folder's `node_modules` and then the host's places. Code of a folder the user
 * has not trusted is refused, and so is any module another user can change. A configured plugin
 * found nowhere is a `ConfigError` listing where it was looked for.
 */
export async function locatePlanned(planned: PlannedPlugin, scope: ApplyScope): Promise<Located> {
  const configPath = planned.home?.file;
  const trusted = planned.home === undefined || planned.home.trusted;
  const owner = planned.home?.owner ?? "project";
  const base = configPath !== undefined ? dirname(configPath) : scope.cwd;
  const configPlace = configPath !== undefined ? [{ dir: base, what: "the config file's folder" }] : [];
  let found: ResolvedModule | { tried: string[] };
  if (isPathSpecifier(planned.name)) {
    found = await locate(planned.name, base, []);
    if (!("tried" in found) && !trusted && configPath !== undefined) {
      return { refusal: untrustedPlugin({ owner, configPath, plugin: planned.name, file: found.file, installedInProject: false }, scope.trust, scope.hints) };
    }
  } else {
    found = await resolvePackage(planned.name, trusted ? [...configPlace, ...scope.places] : scope.places);
    if ("tried" in found && !trusted && configPath !== undefined) {
      // Not installed with toolhost: if the untrusted project has it, say so and how to trust it.
      const inProject = await resolvePackage(planned.name, configPlace);
      if (!("tried" in inProject)) {
        if (!providesAny(inProject.provides, scope.onlyProviding)) return { skipped: true };
        const refusal = untrustedPlugin({ owner, configPath, plugin: planned.name, file: inProject.file, installedInProject: true }, scope.trust, scope.hints);
        return { refusal, ...(inProject.manifest !== undefined && { manifest: inProject.manifest }) };
      }
      found = { tried: [...inProject.tried, ...found.tried] };
    }
  }
  if ("tried" in found) {
    if (configPath === undefined) return { missing: true };
    // "Did you mean" among what is installed where it was looked for (never an install hint for an unknown name).
    throw notFound(planned.name, configPath, found.tried, scope.knownPlugins, trusted ? [...configPlace, ...scope.places] : scope.places);
  }
  if (!isPathSpecifier(planned.name) && !providesAny(found.provides, scope.onlyProviding)) {
    return { skipped: true, ...(found.manifest !== undefined && { manifest: found.manifest }) };
  }
  const unsafe = unsafeFileReason(found.file);
  if (unsafe) return { refusal: unsafeFile({ owner, kind: "plugin", configPath, plugin: planned.name, file: found.file }, unsafe) };
  return { found };
}

/**
 * Imports a located plugin and applies it with its options and layers; what it registered and
 * reported. Refused, not applied, when the options in force come from a config that is not trusted
 * and set an option the plugin's schema marks `trustedOnly`.
 */
export async function applyPlanned(planned: PlannedPlugin, found: ResolvedModule, scope: ApplyScope): Promise<{ loaded: LoadedPlugin; report: unknown } | { refusal: Refusal }> {
  const { harness } = scope;
  const configPath = planned.home?.file;
  const where = configPath ? `named in ${configPath}` : "a default plugin: no toolhost config file was found";
  const at = { configPath, plugin: planned.name };
  const plugin = await importPlugin(planned.name, found.file, where, at);
  const refusal = untrustedOptions(planned, plugin, scope);
  if (refusal) return { refusal };
  const before = new Set(harness.tools.map((tool) => tool.name));
  let report: void | PluginReport = undefined;
  // The plugin as given, its `apply`'s report kept: the harness itself has no use for it.
  const reporting: ToolhostPlugin = {
    ...plugin,
    apply: async (target, value, context) => {
      report = await plugin.apply(target, value, context);
    },
  };
  try {
    await harness.use(reporting, planned.options, { layers: planned.layers });
  } catch (error) {
    // Named by the config whose options the plugin got (the nearest owner's, or the managed one's), not the first to name it.
    const optionsFile = planned.layers.find((layer) => layer.owner === planned.optionsFrom)?.file ?? configPath;
    const named = optionsFile ? `named in ${optionsFile}` : where;
    throw applyError(error, plugin, planned.options, { name: planned.name, where: named, at: { configPath: optionsFile, plugin: planned.name }, hints: scope.hints });
  }
  const loaded: LoadedPlugin = {
    name: plugin.name,
    version: plugin.version ?? found.packageVersion,
    resolvedFrom: found.file,
    tools: harness.tools.map((tool) => tool.name).filter((tool) => !before.has(tool)),
    settings: {},
    sources: reportedSources(report),
    namedBy: planned.layers.map((layer) => layer.owner),
    optionsFrom: planned.optionsFrom,
  };
  return { loaded, report };
}

/**
 * The refusal of options in force from an untrusted config: one the schema marks `trustedOnly`,
 * or one marked `reach` set wider than the nearest trusted config below it (the user's) gives it
 * (the plugin's default when none names the plugin); undefined when there is none.
 */
function untrustedOptions(planned: PlannedPlugin, plugin: ToolhostPlugin, scope: ApplyScope): Refusal | undefined {
  const layer = planned.layers.find((each) => each.owner === planned.optionsFrom && each.options === planned.options);
  if (layer === undefined || layer.trusted || layer.file === undefined) return undefined;
  const paths = trustedOnlyPaths(plugin.options, planned.options);
  if (paths.length > 0) return untrustedOption({ owner: layer.owner, configPath: layer.file, plugin: planned.name, paths }, scope.trust, scope.hints);
  // The layers come managed, user, project: the ones before this one hold what it would replace.
  const below = planned.layers.slice(0, planned.layers.indexOf(layer)).reverse().find((each) => each.trusted);
  const widenings = wideningsOf(plugin.options, planned.options, below?.options, { workspace: scope.harness.workspace, home: process.env.HOME || homedir() });
  if (widenings.length === 0) return undefined;
  const base = below?.file !== undefined ? { owner: below.owner, file: below.file } : undefined;
  return untrustedWidening({ owner: layer.owner, configPath: layer.file, plugin: planned.name, widenings, base }, scope.trust, scope.hints);
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
export function reportedSettings(report: unknown, harness: AgentHarness): Record<string, PluginSetting> {
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

/** Whether a package providing `provides` is applied when only `wanted` services are (every package when no list is given). */
function providesAny(provides: readonly string[] | undefined, wanted: readonly string[] | undefined): boolean {
  return wanted === undefined || wanted.some((service) => provides?.includes(service) === true);
}
