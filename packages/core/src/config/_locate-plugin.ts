import { readdirSync, realpathSync, statSync } from "node:fs";
import { stat } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { messageOf } from "../errors.js";
import { isPlugin, type ToolhostPlugin } from "../plugin.js";
import { ConfigError, ConfigErrorCode } from "./errors.js";
import { editDistance, isPathSpecifier, packageEntry, resolvePackage, type ResolvedModule, type ResolvePlace } from "./_resolve.js";

/** The folders to resolve plugins from, each with what it is (for messages). */
export function resolvePlaces(resolveFrom: ReadonlyArray<string | ResolvePlace> | undefined): ResolvePlace[] {
  return (resolveFrom ?? []).map((place) => (typeof place === "string" ? { dir: place, what: "the host's install location" } : place));
}

/** Where a plugin named in a config is: a package from the places in turn, or a path from the config's folder. */
export async function locate(
  name: string,
  configDir: string,
  places: readonly ResolvePlace[],
): Promise<ResolvedModule | { tried: string[] }> {
  if (!isPathSpecifier(name)) return resolvePackage(name, places);
  const file = resolve(configDir, name);
  try {
    const info = await stat(file);
    if (info.isFile()) return { file };
    // A folder is a package, as npm's `file:` installs it: its package.json says the entry.
    if (info.isDirectory()) {
      const entry = await packageEntry(file, "");
      if (entry) return entry;
      return { tried: [`${file} (a folder: it needs a package.json whose "exports" or "main" names an existing module, or an index.js)`] };
    }
  } catch {
    // reported below with the path tried
  }
  return { tried: [`${file} (relative to the config file's folder)`] };
}

/**
 * A plugin that was not found: where it was looked for, and the fix. Only a name the host knows is
 * given an install command: installing a misspelled name is how typo-squatted packages get in, so
 * another name gets the closest known or installed one (from `places`) instead, or a word to check it.
 */
export function notFound(name: string, configPath: string, tried: string[], known: readonly string[], places: readonly ResolvePlace[] = []): ConfigError {
  const lines = [`Plugin "${name}" was not found (named in ${configPath}).`, "Looked in:", ...tried.map((place) => `  - ${place}`)];
  if (isPathSpecifier(name)) {
    lines.push(`Fix the path in ${configPath}: a relative path is relative to the config file's folder.`);
  } else if (known.includes(name)) {
    lines.push(`Install it next to the config: npm i -D ${name}`);
  } else {
    const close = suggestion(name, [...known, ...installedPlugins(places)]);
    lines.push(
      close
        ? `Did you mean "${close}"? Fix the name in ${configPath}.`
        : `No plugin toolhost knows or finds installed is named like it: check the name in ${configPath}; if it is a plugin package you trust, install it next to the config first.`,
    );
  }
  return new ConfigError(ConfigErrorCode.PLUGIN_NOT_FOUND, lines.join("\n"), { configPath, plugin: name });
}

/** The toolhost packages installed where plugins resolve from (`@toolhost/*` and `*toolhost*` in each node_modules up the tree). */
function installedPlugins(places: readonly ResolvePlace[]): string[] {
  const names = new Set<string>();
  for (const { dir } of places) {
    for (let current = resolve(dir); ; current = dirname(current)) {
      const modules = join(current, "node_modules");
      for (const entry of entries(join(modules, "@toolhost"))) names.add(`@toolhost/${entry}`);
      for (const entry of entries(modules)) if (entry.includes("toolhost") && !entry.startsWith("@")) names.add(entry);
      if (dirname(current) === current) break;
    }
  }
  return [...names];
}

function entries(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

function suggestion(name: string, knownPlugins: readonly string[]): string | undefined {
  let best: { known: string; distance: number } | undefined;
  for (const known of knownPlugins) {
    if (known === name) continue;
    const distance = known.endsWith(`/${name}`) ? 0 : editDistance(name, known);
    if (distance <= 3 && (best === undefined || distance < best.distance)) best = { known, distance };
  }
  return best?.known;
}

/** Each plugin file's state when this process first imported it (see `moduleUrl`). */
const firstImported = new Map<string, string>();

/**
 * The URL to import a plugin's file from. Node keeps a module once imported, so a long-lived host
 * would apply the old code of a plugin upgraded since it started. The file is imported by its real
 * path, looked up anew (Node's own lookup keeps where a link pointed, and pnpm installs a version
 * by re-pointing the package's link); a file whose state (times, size, inode) differs from when
 * this process first imported it is imported afresh, its state as the URL's query. Only that
 * module: what it imports are Node's cached modules, so a plugin bundled into one file (as
 * hooks-policy is) reloads whole, and one of several modules only its entry.
 */
function moduleUrl(file: string): string {
  let real = file;
  let state = "missing";
  try {
    real = realpathSync.native(file);
    const info = statSync(real);
    state = `${info.mtimeMs}-${info.ctimeMs}-${info.size}-${info.ino}`;
  } catch {
    // imported as it is: the import says what is wrong
  }
  const url = pathToFileURL(real).href;
  const first = firstImported.get(real);
  if (first === undefined) firstImported.set(real, state);
  return first === undefined || first === state ? url : `${url}?state=${encodeURIComponent(state)}`;
}

export async function importPlugin(
  name: string,
  file: string,
  where: string,
  at: { configPath: string | undefined; plugin: string },
): Promise<ToolhostPlugin> {
  let module: { default?: unknown };
  try {
    module = (await import(moduleUrl(file))) as { default?: unknown };
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
