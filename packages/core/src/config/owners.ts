import { homedir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";
import { firstConfigIn } from "./load.js";

/** The managed (administrator's) config folder on this system: `/etc/toolhost`, or `%ProgramData%\toolhost` on Windows. */
export const SYSTEM_MANAGED_DIR = process.platform === "win32" ? join(process.env.ProgramData ?? "C:\\ProgramData", "toolhost") : "/etc/toolhost";

/**
 * The environment variable that puts the managed config elsewhere (tests, an install with its own
 * layout). It is honoured only while the system folder holds no config, so that it can never take
 * away an administrator's config; no config file can set it.
 */
export const MANAGED_DIR_ENV = "TOOLHOST_MANAGED_CONFIG_DIR";

/** The folder of the managed config: `TOOLHOST_MANAGED_CONFIG_DIR` (absolute) while the system folder holds no config, else the system folder. */
export function managedConfigDir(env: NodeJS.ProcessEnv = process.env): string {
  const given = env[MANAGED_DIR_ENV];
  if (given === undefined || given === "" || !isAbsolute(given)) return SYSTEM_MANAGED_DIR;
  return firstConfigIn(SYSTEM_MANAGED_DIR) === undefined ? resolve(given) : SYSTEM_MANAGED_DIR;
}

/**
 * The folder of the user's config, trusted folders and tokens: `$XDG_CONFIG_HOME/toolhost` (when
 * absolute), else `~/.config/toolhost` (`%APPDATA%\toolhost` on Windows).
 */
export function userConfigDir(env: NodeJS.ProcessEnv = process.env): string {
  const xdg = env.XDG_CONFIG_HOME;
  if (xdg !== undefined && isAbsolute(xdg)) return join(xdg, "toolhost");
  if (process.platform === "win32" && env.APPDATA) return join(env.APPDATA, "toolhost");
  return join(homedir(), ".config", "toolhost");
}
