import { existsSync } from "node:fs";
import { readFile, stat } from "node:fs/promises";
import { homedir } from "node:os";
import { dirname, extname, isAbsolute, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { messageOf } from "../errors.js";
import { formatProblems, problemsOnce } from "../validate.js";
import { optionProblems } from "./_option-problems.js";
import { ConfigError, ConfigErrorCode } from "./errors.js";
import { type ConfigHints, hintText } from "./hints.js";
import { ConfigSchema, type ToolhostConfig } from "./schema.js";

/** The file names searched for, in each folder from the working directory upward, in this order. */
export const CONFIG_FILE_NAMES = Object.freeze([
  "toolhost.config.json",
  "toolhost.config.yaml",
  "toolhost.config.yml",
  "toolhost.config.js",
  "toolhost.config.mjs",
  "toolhost.config.ts",
]);

export interface FindConfigOptions {
  /** Where the upward search starts, and what a relative `configPath` is relative to. Default `process.cwd()`. */
  cwd?: string;
  /** A config file to load instead of searching; an error when it does not exist. */
  configPath?: string;
  /** The host's wording for its fixes (its config flag, its init command, how to trust a folder). */
  hints?: ConfigHints;
  /** Folders the host itself trusts to run code from, besides the user's trusted folders. */
  trustedFolders?: readonly string[];
}

/** A config file, read and checked against `ConfigSchema`. */
export interface LoadedConfig {
  /** The absolute path of the file. */
  path: string;
  config: ToolhostConfig;
  /**
   * Other config files found beside it, which are not read (only the first of `CONFIG_FILE_NAMES`
   * in a folder is). Empty when the file was named explicitly.
   */
  ignored: string[];
}

/**
 * The project's config file: the one `configPath` names (checked: it exists, is a file, has an
 * extension toolhost reads), else the first a search upward from `cwd` finds (`findConfigFile`).
 * Not read. Undefined when a search finds nothing; a `ConfigError` for a named file that cannot be one.
 */
export async function locateConfig(options: Pick<FindConfigOptions, "cwd" | "configPath" | "hints"> = {}): Promise<string | undefined> {
  const cwd = resolve(options.cwd ?? process.cwd());
  if (options.configPath === undefined) return findConfigFile(cwd);
  const hints = hintText(options.hints);
  const path = isAbsolute(options.configPath) ? options.configPath : resolve(cwd, options.configPath);
  let isFolder = false;
  try {
    isFolder = (await stat(path)).isDirectory();
  } catch {
    throw new ConfigError(
      ConfigErrorCode.CONFIG_NOT_FOUND,
      `Config file not found: ${path}. Check ${hints.configOption}, or ${hints.createConfig}.`,
      { configPath: path },
    );
  }
  if (isFolder) {
    throw new ConfigError(
      ConfigErrorCode.CONFIG_NOT_FOUND,
      `${hints.configNames} the folder ${path}; name the config file in it (e.g. ${join(path, "toolhost.config.json")}), or work from that folder.`,
      { configPath: path },
    );
  }
  if (!LOADERS[extname(path)]) {
    throw new ConfigError(
      ConfigErrorCode.CONFIG_INVALID,
      `Config file ${path} has an extension toolhost cannot read. Use one of: ${CONFIG_FILE_NAMES.map((n) => extname(n)).join(", ")}.`,
      { configPath: path },
    );
  }
  return path;
}

/**
 * The config file a search from `cwd` finds, by name only (not read): the first of
 * `CONFIG_FILE_NAMES` that exists in `cwd` and then each folder above it, up to the home folder
 * (or the root, outside it). A few synchronous existence checks, cheap enough for a long-lived host
 * to call per request to notice a config created nearer than the one it loaded. Given `known` (the
 * file a search found before), the search ends there and returns a file found nearer, or `known`
 * itself without checking that it still exists (a host checks that apart): no check at all when
 * the call's folder holds the config. A hand-written loop rather than a config-search library:
 * `toolhost hook` runs once per tool call of another agent, and loading one cost it ~10-20 ms.
 */
export function findConfigFile(cwd: string = process.cwd(), known?: string): string | undefined {
  const stop = resolve(homedir());
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    for (const name of CONFIG_FILE_NAMES) {
      const path = join(dir, name);
      if (path === known || existsSync(path)) return path;
    }
    if (dir === stop || dir === dirname(dir)) return undefined;
  }
}

/** The first of `CONFIG_FILE_NAMES` in `dir` (not above it), or undefined. */
export function firstConfigIn(dir: string): string | undefined {
  for (const name of CONFIG_FILE_NAMES) {
    const path = join(dir, name);
    if (existsSync(path)) return path;
  }
  return undefined;
}

/** Whether loading this config file runs it (`.js`, `.mjs`, `.ts`), rather than reading data. */
export function isCodeConfig(path: string): boolean {
  return CODE_EXTENSIONS.has(extname(path));
}

const CODE_EXTENSIONS = new Set([".js", ".mjs", ".ts"]);

/** A config file read and checked against `ConfigSchema`; a JS/TS config is run. Throws a `ConfigError` saying what is wrong. */
export async function readConfigFile(path: string, hints?: ConfigHints): Promise<ToolhostConfig> {
  return validateConfig(await loadConfigFile(path), path, hints);
}

/** A config file's value, read with the loader of its extension; undefined for an empty file. */
async function loadConfigFile(path: string): Promise<unknown> {
  const content = await readFile(path, "utf8");
  if (content.trim() === "") return undefined;
  return LOADERS[extname(path)]?.(path, content);
}

/** The other config files in the folder of `configPath`: a search reads only the first. */
export async function configsBeside(configPath: string): Promise<string[]> {
  const dir = dirname(configPath);
  const others = CONFIG_FILE_NAMES.map((name) => join(dir, name)).filter((path) => path !== configPath);
  const present = await Promise.all(others.map((path) => stat(path).then((info) => info.isFile(), () => false)));
  return others.filter((_path, i) => present[i]);
}


/** Checks a loaded value against `ConfigSchema`; throws CONFIG_INVALID listing each problem with its path. */
export function validateConfig(value: unknown, configPath: string, hints?: ConfigHints): ToolhostConfig {
  if (value === undefined || value === null) {
    throw new ConfigError(
      ConfigErrorCode.CONFIG_INVALID,
      `Config file ${configPath} is empty. It needs at least a "plugins" list of package names or paths, e.g. { "plugins": ["toolhost-plugin-weather", "./plugins/local.mjs"] }.`,
      { configPath },
    );
  }
  // A config is checked once per process: interpreting the schema is faster than compiling it
  // (~3 ms of a hook's start), and the compiled check lists the problems when there are some.
  const problems = problemsOnce(ConfigSchema, value);
  if (problems) {
    throw new ConfigError(
      ConfigErrorCode.CONFIG_INVALID,
      `Config file ${configPath} is invalid:\n${configProblems(value, problems)}\nFix these keys; ${hintText(hints).showConfigSchema}.`,
      { configPath },
    );
  }
  return value as ToolhostConfig;
}

/** Each problem once, in words: an unknown key names the likely one ("maxConcurency": Did you mean "maxConcurrency"?). */
function configProblems(value: unknown, problems: Parameters<typeof formatProblems>[0]): string {
  const described = optionProblems(ConfigSchema, value);
  return described.length > 0 ? described.join("\n") : formatProblems(problems);
}

function syntaxError(configPath: string, detail: string, line?: number, column?: number): ConfigError {
  const at = line === undefined ? "" : column === undefined ? ` at line ${line}` : ` at line ${line}, column ${column}`;
  return new ConfigError(
    ConfigErrorCode.CONFIG_SYNTAX,
    `Config file ${configPath} has a syntax error${at}: ${detail}\nFix the file and run again.`,
    { configPath, line, column },
  );
}

/** Line and column (1-based) of a character offset. */
function lineColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const line = before.split("\n").length;
  return { line, column: offset - before.lastIndexOf("\n") };
}

/** Turns a config file's text into its value (or a promise of it); throws a ConfigError saying where it is wrong. */
type Loader = (configPath: string, content: string) => unknown;

const loadJson: Loader = async (configPath, content) => {
  try {
    return JSON.parse(content);
  } catch (error) {
    const detail = messageOf(error)
      .replace(/,? ?(in JSON )?at position \d+.*$/s, "")
      .replace(/ \(line \d+ column \d+\)/, "")
      .replace(/, (\.\.\.)?".*" is not valid JSON$/s, "");
    // Node 20's message does not always say where: a strict scan finds the token at fault.
    const offset = await jsonErrorOffset(content);
    if (offset === undefined) throw syntaxError(configPath, detail);
    const { line, column } = lineColumn(content, offset);
    throw syntaxError(configPath, detail, line, column);
  }
};

/** Where the first error in text that `JSON.parse` refused is, as a strict JSON scanner finds it. */
async function jsonErrorOffset(text: string): Promise<number | undefined> {
  const { parse } = await import("jsonc-parser");
  const errors: import("jsonc-parser").ParseError[] = [];
  parse(text, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
  return errors[0]?.offset;
}

const loadYaml: Loader = async (configPath, content) => {
  const { parseDocument } = await import("yaml");
  const document = parseDocument(content);
  const first = document.errors[0];
  if (first) {
    const position = first.linePos?.[0];
    const detail = (first.message.split("\n")[0] ?? first.message).replace(/ at line \d+, column \d+:?$/, "");
    throw syntaxError(configPath, detail, position?.line, position?.col);
  }
  return document.toJS();
};

const loadModule: Loader = async (configPath) => {
  try {
    const module = (await import(pathToFileURL(configPath).href)) as { default?: unknown };
    return module.default;
  } catch (error) {
    throw await moduleError(configPath, error);
  }
};

const loadTypeScript: Loader = async (configPath) => {
  const { createJiti } = await import("jiti");
  const jiti = createJiti(import.meta.url, { moduleCache: false, fsCache: false });
  try {
    return await jiti.import(configPath, { default: true });
  } catch (error) {
    throw await moduleError(configPath, error);
  }
};

/** A config module that failed to load: a syntax error with its place, which `node --check` reports. */
async function moduleError(configPath: string, error: unknown): Promise<ConfigError> {
  const parseError = error instanceof Error && /^ParseError: /.test(error.message); // jiti's, for .ts
  if (error instanceof SyntaxError || parseError) {
    let line: number | undefined;
    let column: number | undefined;
    let detail = (error as Error).message;
    if (parseError) {
      const place = /:(\d+):(\d+)\s*$/.exec(detail.trim());
      if (place) [line, column] = [Number(place[1]), Number(place[2]) + 1];
      detail = detail.split("\n")[0]?.replace(/^ParseError: /, "").trim() ?? detail;
    } else {
      // Only on this error path: Node 20 puts no place in the error of a failed ESM import.
      const { spawnSync } = await import("node:child_process");
      const check = spawnSync(process.execPath, ["--check", configPath], { encoding: "utf8", timeout: 10_000 });
      const place = /:(\d+)\n(.*)\n(\s*)\^/.exec(check.stderr ?? "");
      if (place) [line, column] = [Number(place[1]), (place[3]?.length ?? 0) + 1];
    }
    return syntaxError(configPath, detail, line, column);
  }
  const missingCore = /Cannot find (module|package) '@toolhost\/core/.test(messageOf(error));
  return new ConfigError(
    ConfigErrorCode.CONFIG_INVALID,
    `Config file ${configPath} threw while loading: ${messageOf(error)}\n${
      missingCore
        ? "It imports @toolhost/core, which is not installed next to it: npm i -D @toolhost/core, or export the config object without defineConfig."
        : "Fix the file and run again."
    }`,
    { configPath },
    { cause: error },
  );
}

const LOADERS: Record<string, Loader> = {
  ".json": loadJson,
  ".yaml": loadYaml,
  ".yml": loadYaml,
  ".js": loadModule,
  ".mjs": loadModule,
  ".ts": loadTypeScript,
};
