import { dirname, resolve } from "node:path";
import { Type } from "@sinclair/typebox";
import { AgentHarness, type AgentHarnessOptions, HarnessStage } from "../harness.js";
import type { ConfigOwner } from "../types/config.js";
import { type ApplyScope, applyPlanned, locatePlanned, reportedSettings } from "./_apply.js";
import { callerApplicationFolder } from "./_application.js";
import { type ConfigHints, hintText } from "./hints.js";
import { type ConfigLayer, readConfigLayers } from "./layers.js";
import type { LoadedPlugin } from "./loaded-plugin.js";
import { resolvePlaces } from "./_locate-plugin.js";
import { effectiveSettings, type PlannedPlugin, planPlugins } from "./_plan.js";
import type { Refusal } from "./refusal.js";
import type { ResolvePlace } from "./_resolve.js";
import type { PluginEntry, ToolhostConfig } from "./schema.js";

export type { LoadedPlugin };

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
   * (`"toolhost": { "provides": ["policy"] }`), e.g. a policy check that needs no tools; given a
   * list, the plugins that provide any of them (`["policy", "sandbox"]`). A plugin named by a path
   * has no package to read and is applied.
   */
  onlyProviding?: string | readonly string[];
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
  /**
   * Folders the host itself trusts to run code from (a JS/TS config, plugins by path, the packages
   * installed there), besides the user's trusted folders: e.g. an application that made the project.
   */
  trustedFolders?: readonly string[];
  /**
   * The folder of the application's own code, trusted as that code is (its JS/TS config, plugins
   * by path and the packages installed there load as the application's own imports do). Default:
   * the folder of the nearest package.json above the module that calls `createHost`, unless that
   * module is inside a `node_modules` folder (a dependency: a CLI, a library). `false` for a host
   * that runs in projects it did not make, such as a CLI: their code loads only from the folders
   * the user trusts.
   */
  application?: string | false;
  /** Where the owners' folders and the user's trusted folders are found. Default `process.env`. */
  env?: NodeJS.ProcessEnv;
}



/** A harness with the configured plugins applied. Call `harness.dispose()` when done. */
export interface Host {
  harness: AgentHarness;
  /** The project's config file found (named, or found upward from the working directory), or undefined; see `refused` for whether it was read. */
  configPath: string | undefined;
  /**
   * The config in force: each owner's settings combined (see `settingsFrom`), and every plugin
   * applied with the options it was given; undefined when no owner has a config file.
   */
  config: ToolhostConfig | undefined;
  /** Whose config each setting in force came from (`toolExecution`, `agent.maxTurns`, …). */
  settingsFrom: Record<string, ConfigOwner>;
  /** Each owner's config, highest first: managed, user, project (each listed, with or without a file). */
  layers: ConfigLayer[];
  /** The project folder: the project config file's folder, or the working directory without one. */
  workspace: string;
  plugins: LoadedPlugin[];
  /** Default plugins that are not installed (only without a project config file). */
  missing: string[];
  /**
   * What the configs would have read or run that was left out (code from a folder the user has not
   * trusted, a file another user can change, options of an untrusted project that widen what calls
   * reach). When it is not empty, every call is refused with these messages (`details.notLoaded`:
   * each with its `code`, `TOOLHOST_UNTRUSTED_CODE`, `TOOLHOST_UNSAFE_FILE` or `TOOLHOST_UNTRUSTED_WIDENING`),
   * by a `beforeToolCall` tap before any other, so the decision event records it.
   */
  refused: Refusal[];
  /** Config files beside the project's that were not read (a folder's first config file wins). */
  ignoredConfigs: string[];
  /**
   * The files this host was made from, absolute, each once: every owner's config file (the managed
   * and user config folders too, so a config created there shows, and the trusted-folders file),
   * the package.json of each package the configs name (applied, or left out by `onlyProviding`),
   * each applied plugin's module, and what each plugin reported in `PluginReport.sources`. A
   * long-lived host compares their state with what it was at load to know when to make a new host;
   * whether the config search would now find another project file, `findConfigFile` says. Not
   * listed: modules a config or plugin imports, and packages that were not found.
   */
  sources: string[];
}

/** The `beforeToolCall` tap that refuses every call of a host with a refusal; before every other tap. */
export const REFUSED_TAP = { name: "toolhost config", stage: -10_000_000 };

/**
 * Reads every owner's config (managed, user, project), creates the harness and applies each plugin
 * they name once, in order, importing only those; each plugin gets the options in force and every
 * owner's layer (`PluginContext.layers`). Code from a folder the user has not trusted, and files
 * another user can change, are left out and listed in `Host.refused` (and every call is refused).
 * Every other failure is a `ConfigError` (a `ToolhostError`) naming the plugin, the config file and
 * the fix; the harness is disposed before it is thrown.
 */
export async function createHost(options: CreateHostOptions = {}): Promise<Host> {
  const cwd = resolve(options.cwd ?? process.cwd());
  // Before anything awaits: the caller's frame is on the stack only now.
  const application = options.application === false ? undefined : (options.application ?? callerApplicationFolder());
  const trustedFolders = application === undefined ? options.trustedFolders : [...(options.trustedFolders ?? []), application];
  const read = await readConfigLayers({ ...options, cwd, ...(trustedFolders !== undefined && { trustedFolders }) });
  const project = read.layers.find((layer) => layer.owner === "project");
  const workspace = project?.file !== undefined ? dirname(project.file) : cwd;
  const settings = effectiveSettings(read.layers);
  const { toolExecution, maxConcurrency, toolTimeoutMs } = settings.config;
  const harness = new AgentHarness({
    cwd,
    workspace,
    ...(toolExecution !== undefined && { toolExecution }),
    ...(maxConcurrency !== undefined && { maxConcurrency }),
    ...(toolTimeoutMs !== undefined && { toolTimeoutMs }),
    ...options.harnessOptions,
  });
  const planned = planPlugins(read.layers, options.defaultPlugins ?? [], cwd, (folder) => hintText(options.hints).trustFolder(folder, read.trust.file));
  const scope: ApplyScope = {
    harness,
    cwd,
    places: resolvePlaces(options.resolveFrom),
    onlyProviding: typeof options.onlyProviding === "string" ? [options.onlyProviding] : options.onlyProviding,
    knownPlugins: options.knownPlugins ?? [],
    hints: options.hints,
    trust: read.trust,
  };
  const sources = new Set(read.layers.flatMap((layer) => (layer.file !== undefined ? [layer.file] : [])));
  const refused = [...read.refused];
  let applied: Applied;
  try {
    applied = await applyAll(planned, scope, refused, sources);
    for (const place of ownerPlaces(read.layers, read.trust.file)) sources.add(place);
    if (refused.length > 0) refuseEveryCall(harness, refused);
  } catch (error) {
    await harness.dispose().catch(() => undefined);
    throw error;
  }
  const anyConfig = read.layers.some((layer) => layer.config !== undefined);
  const config = anyConfig ? { ...settings.config, plugins: planned.filter((plan) => plan.home !== undefined).map(entryOf) } : undefined;
  const ignoredConfigs = project?.ignored ?? [];
  const { plugins, missing } = applied;
  return { harness, configPath: project?.file, config, settingsFrom: settings.from, layers: read.layers, workspace, plugins, missing, refused, ignoredConfigs, sources: [...sources] };
}

interface Applied {
  plugins: LoadedPlugin[];
  missing: string[];
}

/** Locates and applies each planned plugin in order; a refusal is recorded, and a plugin not found fails the load. */
async function applyAll(planned: readonly PlannedPlugin[], scope: ApplyScope, refused: Refusal[], sources: Set<string>): Promise<Applied> {
  const plugins: LoadedPlugin[] = [];
  const reports: unknown[] = [];
  const missing: string[] = [];
  for (const plan of planned) {
    const where = await locatePlanned(plan, scope);
    if ("missing" in where) missing.push(plan.name);
    if ("manifest" in where && where.manifest !== undefined) sources.add(where.manifest);
    if ("refusal" in where) refused.push(where.refusal);
    if (!("found" in where)) continue;
    if (where.found.manifest !== undefined) sources.add(where.found.manifest);
    sources.add(where.found.file);
    const applied = await applyPlanned(plan, where.found, scope);
    if ("refusal" in applied) {
      refused.push(applied.refusal);
      continue;
    }
    plugins.push(applied.loaded);
    reports.push(applied.report);
  }
  // Redacted once every plugin is applied: the redact taps may come from a plugin named later.
  plugins.forEach((plugin, index) => {
    plugin.settings = reportedSettings(reports[index], scope.harness);
    plugin.sources.forEach((source) => sources.add(source));
  });
  return { plugins, missing };
}

/**
 * A host with a refusal refuses every call, saying what was left out and how to fix it; a call of a
 * tool no plugin registered (the left-out code may have been its plugin) gets a stand-in, so that it
 * too is refused with the reason, not "not found", and its decision is recorded.
 */
function refuseEveryCall(harness: AgentHarness, refused: readonly Refusal[]): void {
  const first = refused[0];
  if (!first) return;
  const more = refused.length > 1 ? `\n(and ${refused.length - 1} more: ${refused.slice(1).map((each) => each.file).join(", ")})` : "";
  const reason = `the config in force is not whole, so every call is refused. ${first.message} (${first.code})${more}`;
  // Not `code`: the result's own code stays the kernel's (TOOLHOST_BLOCKED); each refusal has its
  // code. Not `refused` either: the kernel's `details.refused: true` marks a call its tool refused.
  const details = { notLoaded: refused.map(({ code, owner, kind, file, configPath, plugin, folder }) => ({ code, owner, kind, file, configPath, plugin, folder })) };
  harness.hooks.beforeToolCall.tap(REFUSED_TAP, () => ({ block: true, reason, details }));
  harness.hooks.resolveTool.tap({ name: REFUSED_TAP.name, stage: HarnessStage.BUILT_IN_LAST + 1 }, (call) => ({
    name: call.name,
    label: call.name,
    description: "a tool of a config that was not loaded whole",
    parameters: ANY_ARGUMENTS,
    execute: async () => {
      throw new Error(reason);
    },
  }));
}

const ANY_ARGUMENTS = Type.Object({}, { additionalProperties: true });

/** The managed and user config folders and the trusted-folders file: what a new config there, or new trust, changes. */
function ownerPlaces(layers: readonly ConfigLayer[], trustFile: string): string[] {
  return [...layers.filter((layer) => layer.owner !== "project").map((layer) => layer.dir), trustFile];
}

function entryOf(plan: PlannedPlugin): PluginEntry {
  return plan.options === undefined ? plan.name : [plan.name, plan.options as Record<string, unknown>];
}
