import { readFile, stat } from "node:fs/promises";
import { basename, dirname, isAbsolute, join, resolve } from "node:path";

/** A folder plugins are resolved from, and what it is, for error messages. */
export interface ResolvePlace {
  dir: string;
  what: string;
}

/** Where a plugin's module is. */
export interface ResolvedModule {
  /** The absolute path of the module to import. */
  file: string;
  /** The version in its package.json, when it is a package. */
  packageVersion?: string | undefined;
  /** The services the package says it provides (`"toolhost": { "provides": ["policy"] }` in its package.json). */
  provides?: string[] | undefined;
  /** Its package.json, reached the way the search found it (through a link, not the link's target). */
  manifest?: string | undefined;
}

const CONDITIONS = new Set(["import", "node", "default"]);

/** Whether a plugin entry is a path (relative to the config file) rather than a package name. */
export function isPathSpecifier(name: string): boolean {
  return name.startsWith("./") || name.startsWith("../") || name === "." || name === ".." || isAbsolute(name);
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

/**
 * Resolves a package name the way Node resolves an `import` of it, from each place in turn (each
 * `node_modules` from that folder upward). `tried` lists the places looked in when nothing was found.
 */
export async function resolvePackage(
  name: string,
  places: readonly ResolvePlace[],
): Promise<ResolvedModule | { tried: string[] }> {
  const parts = name.split("/");
  const scoped = name.startsWith("@");
  const packageName = parts.slice(0, scoped ? 2 : 1).join("/");
  const subpath = parts.slice(scoped ? 2 : 1).join("/");
  const tried: string[] = [];
  for (const place of places) {
    tried.push(`${join(place.dir, "node_modules", packageName)} (${place.what}), and each node_modules above it`);
    let dir = resolve(place.dir);
    for (;;) {
      if (basename(dir) !== "node_modules") {
        const packageDir = join(dir, "node_modules", packageName);
        const found = await packageEntry(packageDir, subpath);
        if (found) return found;
      }
      const parent = dirname(dir);
      if (parent === dir) break;
      dir = parent;
    }
  }
  return { tried };
}

/** The module a package folder gives for `subpath` (its `exports`, `main` or `index.js`), as Node's import resolves it; undefined when it has no package.json or no such file. */
export async function packageEntry(packageDir: string, subpath: string): Promise<ResolvedModule | undefined> {
  let manifest: { version?: unknown; exports?: unknown; main?: unknown; toolhost?: { provides?: unknown } };
  try {
    manifest = JSON.parse(await readFile(join(packageDir, "package.json"), "utf8"));
  } catch {
    return undefined;
  }
  const version = typeof manifest.version === "string" ? manifest.version : undefined;
  let target: string | undefined;
  if (manifest.exports !== undefined && manifest.exports !== null) {
    target = exportTarget(manifest.exports, subpath === "" ? "." : `./${subpath}`);
  } else if (subpath !== "") {
    target = subpath;
  } else {
    target = typeof manifest.main === "string" ? manifest.main : "index.js";
  }
  if (target === undefined) return undefined;
  const file = resolve(packageDir, target);
  const provides = manifest.toolhost?.provides;
  const services = Array.isArray(provides) ? provides.filter((item): item is string => typeof item === "string") : undefined;
  return (await isFile(file)) ? { file, packageVersion: version, provides: services, manifest: join(packageDir, "package.json") } : undefined;
}

/** The file an `exports` map gives for a subpath under the conditions of an ESM import in Node. */
function exportTarget(exports: unknown, subpath: string): string | undefined {
  const isSubpathMap =
    typeof exports === "object" && exports !== null && !Array.isArray(exports) && Object.keys(exports).some((k) => k.startsWith("."));
  if (isSubpathMap) return conditional((exports as Record<string, unknown>)[subpath]);
  return subpath === "." ? conditional(exports) : undefined;
}

function conditional(target: unknown): string | undefined {
  if (typeof target === "string") return target;
  if (Array.isArray(target)) {
    for (const each of target) {
      const found = conditional(each);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (typeof target === "object" && target !== null) {
    for (const [condition, value] of Object.entries(target)) {
      if (CONDITIONS.has(condition)) {
        const found = conditional(value);
        if (found !== undefined) return found;
      }
    }
  }
  return undefined;
}

export { closestName, editDistance } from "../suggest.js";
