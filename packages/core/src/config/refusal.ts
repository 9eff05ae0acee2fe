import { dirname, extname } from "node:path";
import type { ConfigOwner } from "../types/config.js";
import { ConfigError, ConfigErrorCode } from "./errors.js";
import { type ConfigHints, hintText } from "./hints.js";
import type { Widening } from "./reach.js";
import type { TrustedFolders } from "./trust.js";

/**
 * Something a config would have read or run that the host left out: code from a folder the user
 * has not trusted (`TOOLHOST_UNTRUSTED_CODE`), or a config or plugin that another user can change
 * (`TOOLHOST_UNSAFE_FILE`), or options of an untrusted project that reach further than the configs below
 * it (`TOOLHOST_UNTRUSTED_WIDENING`). A host with a refusal refuses every call (fail closed: what was left out
 * may have been a rule), saying what and how to fix it, until a new host is made.
 */
export interface Refusal {
  code: typeof ConfigErrorCode.UNTRUSTED_CODE | typeof ConfigErrorCode.UNSAFE_FILE | typeof ConfigErrorCode.UNTRUSTED_WIDENING;
  /** Whose config it was, or named it. */
  owner: ConfigOwner;
  /** A whole config file, or a plugin a config names. */
  kind: "config" | "plugin";
  /** The config file: the one refused, or the one that names the plugin. */
  configPath: string | undefined;
  /** The plugin as the config names it (kind "plugin"). */
  plugin?: string;
  /** The file that would have been read or run. */
  file: string;
  /** For untrusted code: the folder whose trust would let it load. */
  folder?: string;
  /** What was refused, why, and the fix, in one message. */
  message: string;
}

/** A JS/TS config in a folder the user has not trusted. */
export function untrustedConfig(owner: ConfigOwner, file: string, folder: string, trust: TrustedFolders, hints: ConfigHints | undefined): Refusal {
  const message =
    `${file} was not loaded: a ${extname(file)} config runs code, and ${folder} is not a folder you trust.${trustProblem(trust)} ` +
    `If you trust this project, ${hintText(hints).trustFolder(folder, trust.file)}; or write the config as toolhost.config.json, which is read, not run.`;
  return { code: ConfigErrorCode.UNTRUSTED_CODE, owner, kind: "config", configPath: file, file, folder, message };
}

/** A plugin named by a config of a folder the user has not trusted, that would run code of that folder. */
export function untrustedPlugin(
  at: { owner: ConfigOwner; configPath: string; plugin: string; file: string; installedInProject: boolean },
  trust: TrustedFolders,
  hints: ConfigHints | undefined,
): Refusal {
  const folder = dirname(at.configPath);
  const what = at.installedInProject
    ? `it is installed only in ${folder} (${at.file}), and an untrusted project's config may name only packages installed with toolhost itself`
    : `it is code (${at.file}) named by a config in ${folder}`;
  const message =
    `Plugin "${at.plugin}" (named in ${at.configPath}) was not loaded: ${what}, and ${folder} is not a folder you trust.${trustProblem(trust)} ` +
    `If you trust this project, ${hintText(hints).trustFolder(folder, trust.file)}.`;
  return { code: ConfigErrorCode.UNTRUSTED_CODE, owner: at.owner, kind: "plugin", configPath: at.configPath, plugin: at.plugin, file: at.file, folder, message };
}

/** Options of a config the user has not trusted that the plugin's schema says only a trusted config may set. */
export function untrustedOption(
  at: { owner: ConfigOwner; configPath: string; plugin: string; paths: readonly string[] },
  trust: TrustedFolders,
  hints: ConfigHints | undefined,
): Refusal {
  const folder = dirname(at.configPath);
  const which = at.paths.length === 1 ? `its option ${at.paths[0]}` : `its options ${at.paths.join(", ")}`;
  const message =
    `Plugin "${at.plugin}" was not applied: ${which} (set in ${at.configPath}) can run code or send your environment where the config says, ` +
    `and ${folder} is not a folder you trust.${trustProblem(trust)} If you trust this project, ${hintText(hints).trustFolder(folder, trust.file)}; or remove ${at.paths.length === 1 ? "it" : "them"} from the project's config.`;
  return { code: ConfigErrorCode.UNTRUSTED_CODE, owner: at.owner, kind: "plugin", configPath: at.configPath, plugin: at.plugin, file: at.configPath, folder, message };
}

/** Where the value an untrusted option would widen comes from: a lower config, or the plugin's default. */
export interface WideningBase {
  owner: ConfigOwner;
  file: string;
}

/** Options of a config the user has not trusted that reach further than the value below them (the schema's `reach`). */
export function untrustedWidening(
  at: { owner: ConfigOwner; configPath: string; plugin: string; widenings: readonly Widening[]; base: WideningBase | undefined },
  trust: TrustedFolders,
  hints: ConfigHints | undefined,
): Refusal {
  const folder = dirname(at.configPath);
  const whose = at.base === undefined ? "the plugin's default" : `${at.base.owner === "user" ? "your user config" : `the ${at.base.owner} config`} ${at.base.file}`;
  const each = at.widenings.map((widening) => `${widening.path} ${shown(widening.value)} (wider than ${shown(widening.below)})`);
  const which = each.length === 1 ? `its option ${each[0]}` : `its options ${each.join(", ")}`;
  const message =
    `Plugin "${at.plugin}" was not applied: ${which}, set in ${at.configPath}, would let calls reach more than ${whose} allows, ` +
    `and ${folder} is not a folder you trust: a project you have not trusted may only narrow ${each.length === 1 ? "it" : "them"}.${trustProblem(trust)} ` +
    `If you trust this project, ${hintText(hints).trustFolder(folder, trust.file)}; or narrow or remove ${each.length === 1 ? "it" : "them"} in the project's config.`;
  return { code: ConfigErrorCode.UNTRUSTED_WIDENING, owner: at.owner, kind: "plugin", configPath: at.configPath, plugin: at.plugin, file: at.configPath, folder, message };
}

function shown(value: unknown): string {
  return value === undefined ? "not set" : JSON.stringify(value);
}

/** A config or plugin that another user can change or owns (`reason` says which and how). */
export function unsafeFile(at: { owner: ConfigOwner; kind: "config" | "plugin"; configPath: string | undefined; plugin?: string; file: string }, reason: string): Refusal {
  const what = at.kind === "config" ? `The config ${at.file}` : `Plugin "${at.plugin}" (${at.file}${at.configPath ? `, named in ${at.configPath}` : ""})`;
  const message =
    `${what} was not loaded: ${reason}. toolhost reads no config and runs no plugin that another user can change, whoever trusts it. ` +
    "Make it yours and writable by you alone (chown, chmod go-w), or remove it.";
  return { code: ConfigErrorCode.UNSAFE_FILE, ...at, message };
}

/** A refusal as an error, for functions that load one thing and cannot leave it out (`findConfig`). */
export function refusalError(refusal: Refusal): ConfigError {
  return new ConfigError(refusal.code, refusal.message, { configPath: refusal.configPath, plugin: refusal.plugin });
}

function trustProblem(trust: TrustedFolders): string {
  return trust.problem === undefined ? "" : ` (Your trusted folders were not read: ${trust.problem}.)`;
}
