import { realpathSync } from "node:fs";
import { dirname, resolve } from "node:path";
import type { ConfigOwner } from "../types/config.js";
import type { ConfigHints } from "./hints.js";
import { configsBeside, type FindConfigOptions, firstConfigIn, isCodeConfig, type LoadedConfig, locateConfig, readConfigFile } from "./load.js";
import { managedConfigDir, userConfigDir } from "./owners.js";
import { type Refusal, refusalError, unsafeFile, untrustedConfig } from "./refusal.js";
import { unsafeFileReason } from "./safety.js";
import type { ToolhostConfig } from "./schema.js";
import { readTrustedFolders, trustedFolderOf, type TrustedFolders } from "./trust.js";

/** One owner's config, as a host read it (`Host.layers`: managed, user, project, in that order). */
export interface ConfigLayer {
  owner: ConfigOwner;
  /**
   * Where this owner's config is looked for: the managed or the user's config folder; for the
   * project, the folder of its config file, or the working directory when none was found.
   */
  dir: string;
  /** The config file found there, if any (also when it was refused). */
  file: string | undefined;
  /** The config as read; undefined when there is none or it was refused. */
  config: ToolhostConfig | undefined;
  /**
   * Whether code may come from this config's folder: managed and user configs by where they are;
   * the project's when its folder lies in a folder the user trusts (or the host trusts).
   */
  trusted: boolean;
  /** The trusted folder that makes it trusted (the project's only). */
  trustedBy?: string;
  /** Whether the file was left out (`Host.refused` says why). */
  refused: boolean;
  /** Other config files beside it that were not read (only a folder's first config file is). */
  ignored: string[];
}

/** What `readConfigLayers` reads with. */
export interface ReadLayersOptions extends FindConfigOptions {
  /** Where the owners' folders and the trusted folders are found. Default `process.env`. */
  env?: NodeJS.ProcessEnv;
}

/** Every owner's config, and what was refused of them. */
export interface ReadLayers {
  /** Managed, user, project, in that order (each present, with or without a file). */
  layers: ConfigLayer[];
  refused: Refusal[];
  /** The user's trusted folders, as read. */
  trust: TrustedFolders;
}

/**
 * Reads the three owners' configs: the managed one (`managedConfigDir`), the user's
 * (`userConfigDir`), the project's (named, or searched upward from `cwd`). A config that another
 * user can change, and a JS/TS project config outside the folders the user trusts, are not read:
 * they are refused (listed in `refused`, their layer marked). Throws a `ConfigError` for a config
 * that cannot be read (syntax, schema), as `findConfig` does.
 */
export async function readConfigLayers(options: ReadLayersOptions = {}): Promise<ReadLayers> {
  const env = options.env ?? process.env;
  const cwd = resolve(options.cwd ?? process.cwd());
  const trust = readTrustedFolders(env);
  const refused: Refusal[] = [];
  const read = async (owner: ConfigOwner, dir: string, file: string | undefined, trusted: boolean, trustedBy?: string): Promise<ConfigLayer> => {
    const layer: ConfigLayer = { owner, dir, file, config: undefined, trusted, ...(trustedBy !== undefined && { trustedBy }), refused: false, ignored: [] };
    if (file === undefined) return layer;
    const refusal = gate(owner, file, trusted, trust, options.hints);
    if (refusal) {
      refused.push(refusal);
      return { ...layer, refused: true };
    }
    const explicit = owner === "project" && options.configPath !== undefined;
    return { ...layer, config: await readConfigFile(file, options.hints), ignored: explicit ? [] : await configsBeside(file) };
  };
  const managedDir = managedConfigDir(env);
  const userDir = userConfigDir(env);
  const managedFile = firstConfigIn(managedDir);
  const userFile = firstConfigIn(userDir);
  let projectFile = await locateConfig(options);
  // Working in the user's config folder: its config is the user's, not also a project's.
  if (projectFile !== undefined && (projectFile === managedFile || projectFile === userFile)) projectFile = undefined;
  const projectDir = projectFile === undefined ? cwd : dirname(projectFile);
  const trustedBy = trustedFolderOf(realOf(projectDir), [...trust.folders, ...(options.trustedFolders ?? []).map(realOf)]);
  const layers = [
    await read("managed", managedDir, managedFile, true),
    await read("user", userDir, userFile, true),
    await read("project", projectDir, projectFile, trustedBy !== undefined, trustedBy),
  ];
  return { layers, refused, trust };
}

/**
 * Finds the project's config (upward from `cwd`, or the file `configPath` names), loads and
 * validates it. Resolves to undefined when a search finds nothing; throws a `ConfigError` for
 * everything else, including a config that another user can change (`TOOLHOST_UNSAFE_FILE`) and a
 * JS/TS config outside the folders the user trusts (`TOOLHOST_UNTRUSTED_CODE`), which it does not run.
 */
export async function findConfig(options: FindConfigOptions = {}): Promise<LoadedConfig | undefined> {
  const found = await locateConfig(options);
  if (found === undefined) return undefined;
  const trust = readTrustedFolders();
  const trusted = trustedFolderOf(realOf(dirname(found)), [...trust.folders, ...(options.trustedFolders ?? []).map(realOf)]) !== undefined;
  const refusal = gate("project", found, trusted, trust, options.hints);
  if (refusal) throw refusalError(refusal);
  const ignored = options.configPath === undefined ? await configsBeside(found) : [];
  return { path: found, config: await readConfigFile(found, options.hints), ignored };
}

/** Why a config file must not be read: another user can change it, or it is code outside the trusted folders. */
function gate(owner: ConfigOwner, file: string, trusted: boolean, trust: TrustedFolders, hints: ConfigHints | undefined): Refusal | undefined {
  const unsafe = unsafeFileReason(file);
  if (unsafe) return unsafeFile({ owner, kind: "config", configPath: file, file }, unsafe);
  if (isCodeConfig(file) && !trusted) return untrustedConfig(owner, file, dirname(file), trust, hints);
  return undefined;
}

/** A folder's real path (the trusted folders are kept real), or the path itself when it cannot be resolved. */
function realOf(folder: string): string {
  try {
    return realpathSync.native(resolve(folder));
  } catch {
    return resolve(folder);
  }
}
