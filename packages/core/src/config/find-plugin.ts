import { realpathSync } from "node:fs";
import { stat } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import type { ConfigHints } from "./hints.js";
import { findConfigFile } from "./load.js";
import { importPlugin, locate, notFound, resolvePlaces } from "./_locate-plugin.js";
import { refusalError, unsafeFile, untrustedPlugin } from "./refusal.js";
import { isPathSpecifier, resolvePackage, type ResolvePlace } from "./_resolve.js";
import { unsafeFileReason } from "./safety.js";
import { readTrustedFolders, trustedFolderOf } from "./trust.js";

export type { ResolvePlace };
import type { ToolhostPlugin } from "../plugin.js";

export interface FindPluginOptions {
  /** Where the search for a config file starts; its folder is looked in first. Default `process.cwd()`. */
  cwd?: string;
  /** Folders to look in after the config file's folder, as for `createHost`. */
  resolveFrom?: ReadonlyArray<string | ResolvePlace>;
  /** Package names the host knows, for "Did you mean". */
  knownPlugins?: readonly string[];
  /** Folders the host itself trusts to run code from, besides the user's trusted folders. */
  trustedFolders?: readonly string[];
  /** The host's wording for its fixes (how to trust a folder). */
  hints?: ConfigHints;
}

function realpathOr(folder: string): string {
  try {
    return realpathSync.native(resolve(folder));
  } catch {
    return resolve(folder);
  }
}

/** A plugin found and imported, not applied: for showing its options. */
export interface FoundPlugin {
  plugin: ToolhostPlugin;
  /** The file it was imported from. */
  file: string;
  version: string | undefined;
}

/**
 * Finds a plugin as `createHost` would (from the nearest config file's folder, then `resolveFrom`)
 * and imports it without applying it, so its options can be shown even when the config is wrong.
 */
export async function findPlugin(name: string, options: FindPluginOptions = {}): Promise<FoundPlugin> {
  const cwd = resolve(options.cwd ?? process.cwd());
  const configPath = findConfigFile(cwd);
  const base = configPath ? dirname(configPath) : cwd;
  // Importing runs the plugin: from the project's folder only when the user trusts it, as createHost.
  const trust = readTrustedFolders();
  const trusted = trustedFolderOf(realpathOr(base), [...trust.folders, ...(options.trustedFolders ?? []).map(realpathOr)]) !== undefined;
  const projectPlace = configPath && trusted ? [{ dir: base, what: "the config file's folder" }] : [];
  const places = [...projectPlace, ...resolvePlaces(options.resolveFrom)];
  const found = await locate(name, base, places);
  const where = configPath ? `looked up from ${configPath}` : "looked up without a config file";
  if ("tried" in found && !trusted && configPath && !isPathSpecifier(name)) {
    const inProject = await resolvePackage(name, [{ dir: base, what: "the config file's folder" }]);
    if (!("tried" in inProject)) throw refusalError(untrustedPlugin({ owner: "project", configPath, plugin: name, file: inProject.file, installedInProject: true }, trust, options.hints));
  }
  if ("tried" in found) throw notFound(name, configPath ?? cwd, found.tried, options.knownPlugins ?? [], places);
  if (isPathSpecifier(name) && !trusted) {
    throw refusalError(untrustedPlugin({ owner: "project", configPath: configPath ?? join(base, "toolhost.config.json"), plugin: name, file: found.file, installedInProject: false }, trust, options.hints));
  }
  const unsafe = unsafeFileReason(found.file);
  if (unsafe) throw refusalError(unsafeFile({ owner: "project", kind: "plugin", configPath, plugin: name, file: found.file }, unsafe));
  const plugin = await importPlugin(name, found.file, where, { configPath, plugin: name });
  return { plugin, file: found.file, version: plugin.version ?? found.packageVersion };
}

/**
 * The installed copy of the config's JSON Schema as seen from `dir`, for a config's `$schema`:
 * editors then find it offline, at the installed version. Looked for in the `node_modules` of `dir`
 * and of each folder above it up to the project's root (the nearest folder with a package.json),
 * so that a stray install above the project is never named.
 */
export async function installedSchemaPath(dir: string): Promise<string | undefined> {
  const start = resolve(dir);
  const root = (await nearestWith(start, "package.json")) ?? start;
  for (let current = start; ; current = dirname(current)) {
    if (await isFile(join(current, "node_modules", "@toolhost", "core", "package.json"))) {
      const found = await resolvePackage("@toolhost/core/config/schema.json", [{ dir: current, what: "the project" }]);
      return "file" in found ? found.file : undefined;
    }
    if (current === root || dirname(current) === current) return undefined;
  }
}

/** The nearest folder upward from `dir` (itself included) that holds `name`. */
async function nearestWith(dir: string, name: string): Promise<string | undefined> {
  for (let current = dir; ; current = dirname(current)) {
    if (await isFile(join(current, name))) return current;
    if (dirname(current) === current) return undefined;
  }
}

function isFile(path: string): Promise<boolean> {
  return stat(path).then(
    (info) => info.isFile(),
    () => false,
  );
}
