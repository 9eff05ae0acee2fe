import { existsSync, readFileSync, realpathSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, isAbsolute, join, resolve, sep } from "node:path";
import { checkValue, closestName, type ConfigOwner, ErrorCode, messageOf, type Static, ToolhostError, Type } from "@toolhost/core";
import { DecisionSchema, type PolicyLayer, type PolicyOptions, ProgramsSchema, RuleSchema } from "../options.js";
import { PRESETS } from "../presets.js";
import { PolicyErrorCode } from "../types.js";

/** What a policy package or file holds: its rules, and what it extends (resolved from where it is). */
export const PolicyFileSchema = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1 })),
    rules: Type.Array(RuleSchema),
    programs: Type.Optional(ProgramsSchema),
    default: Type.Optional(DecisionSchema),
    extends: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
    locked: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

export type PolicyFile = Static<typeof PolicyFileSchema>;

/**
 * A layer, with where it came from: the file that holds it (for `toolhost policy rules`), and for
 * a package its package.json as the search reached it (an upgrade or reinstall replaces it); whose
 * config named it (`owner`), and whether it is that config's own rules (`own`).
 */
export type SourcedLayer = PolicyLayer & { source?: string; manifest?: string; owner?: ConfigOwner; own?: true; /** A preset (`recommended`, …). */ preset?: true };

/** Where an owner's `extends` are read from, and whether code may run from there. */
export interface ExtendsScope {
  /** The folder relative files and packages resolve from: the config's folder (the workspace for the project's). */
  folder: string;
  /** False for an untrusted project: a policy package whose main file is code is refused. */
  trusted: boolean;
  /** How the user trusts the folder, in the host's words, for that refusal. */
  trust: string | undefined;
  /** The config file that names the entries, for messages. */
  file: string | undefined;
}

/** The files the layers were read from: what a long-lived host watches to reload the policy. */
export function layerSources(layers: readonly SourcedLayer[]): string[] {
  return [...new Set(layers.flatMap((layer) => [layer.manifest, layer.source].filter((file): file is string => file !== undefined)))];
}

/**
 * The layers of `extends`, in order: presets by name, npm packages resolved from the scope's
 * folder, JSON / YAML files relative to it. A package's or file's own `extends` come before it; a
 * locked one locks what it extends too. Throws a `ToolhostError` naming the entry that is missing,
 * invalid, part of a cycle, or code an untrusted scope may not run, with the fix.
 */
export function layersOf(options: PolicyOptions, scope: ExtendsScope): SourcedLayer[] {
  const layers: SourcedLayer[] = [];
  for (const entry of options.extends ?? []) {
    if (typeof entry === "string") layers.push(...resolveEntry(entry, scope.folder, [], false, scope));
    else layers.push(entry);
  }
  return layers;
}

function resolveEntry(entry: string, from: string, chain: string[], locked: boolean, scope: ExtendsScope): SourcedLayer[] {
  const preset = Object.hasOwn(PRESETS, entry) ? PRESETS[entry as keyof typeof PRESETS] : undefined;
  if (preset) return [{ name: entry, rules: preset.rules, default: preset.default, preset: true, ...(locked ? { locked } : {}) }];
  const { file, manifest } = locate(entry, from, chain);
  if (chain.includes(file)) {
    throw failure(entry, chain, `extends itself (${[...chain, file].join(" → ")})`, "Remove one of the `extends` entries that close the cycle.");
  }
  if (!scope.trusted && !DATA_FILE.test(file)) throw untrustedCode(entry, file, chain, scope);
  const policy = readPolicy(entry, file, chain);
  const lock = locked || policy.locked === true;
  const name = policy.name ?? entry;
  const inner = (policy.extends ?? []).flatMap((each) => resolveEntry(each, dirname(file), [...chain, file], lock, scope));
  const own: SourcedLayer = { name, rules: policy.rules, source: file };
  if (manifest) own.manifest = manifest;
  if (policy.default) own.default = policy.default;
  if (policy.programs) own.programs = policy.programs;
  if (lock) own.locked = true;
  return [...inner, own];
}

/** A policy file that is read, not run. */
const DATA_FILE = /\.(json|ya?ml)$/i;

/** A policy package of an untrusted folder whose main file is code: refused, with how to trust the folder. */
function untrustedCode(entry: string, file: string, chain: string[], scope: ExtendsScope): ToolhostError {
  const folder = scope.file !== undefined ? dirname(scope.file) : scope.folder;
  const via = chain.length > 0 ? ` (extended by ${chain.at(-1)})` : "";
  const named = scope.file !== undefined ? ` named in ${scope.file}` : "";
  const trust = scope.trust ?? `run "toolhost trust ${folder}"`;
  return new ToolhostError(
    PolicyErrorCode.UNTRUSTED_CODE,
    `The policy "${entry}"${via} in extends of @toolhost/hooks-policy${named} was not loaded: its main file ${file} is code, which a policy runs when it is read, and ${folder} is not a folder you trust. An untrusted project's config may extend presets and JSON or YAML policies only. If you trust this project, ${trust}; or publish the policy as JSON or YAML.`,
  );
}

function isPath(entry: string): boolean {
  return entry.startsWith(".") || isAbsolute(entry);
}

/** The package.json of the package `entry` names, where Node's search from `from` finds it (through a link, not its target). */
function manifestOf(entry: string, from: string): string | undefined {
  const name = entry.split("/").slice(0, entry.startsWith("@") ? 2 : 1).join("/");
  for (let dir = from; ; dir = dirname(dir)) {
    const path = join(dir, "node_modules", name, "package.json");
    if (existsSync(path)) return path;
    if (dir === dirname(dir)) return undefined;
  }
}

/**
 * Node keeps how it resolved a package, and the links on the way, for the life of the process; a
 * package manager that installs a new version by re-pointing the package's link (pnpm) leaves the
 * old folder in place, so a long-lived host would read the old policy again. This is the same file
 * in the folder the link points to now.
 */
function throughCurrentLink(resolved: string, entry: string, manifest: string | undefined): string {
  if (manifest === undefined) return resolved;
  let now: string;
  try {
    now = realpathSync.native(dirname(manifest));
  } catch {
    return resolved;
  }
  if (resolved.startsWith(`${now}${sep}`)) return resolved;
  const name = entry.split("/").slice(0, entry.startsWith("@") ? 2 : 1).join(sep);
  const marker = `${sep}node_modules${sep}${name}${sep}`;
  const at = resolved.lastIndexOf(marker);
  const file = at < 0 ? resolved : join(now, resolved.slice(at + marker.length));
  return existsSync(file) ? file : resolved;
}

/** A policy file, or a package's main file and its package.json. */
function locate(entry: string, from: string, chain: string[]): { file: string; manifest?: string | undefined } {
  if (isPath(entry)) {
    if (!DATA_FILE.test(entry)) {
      throw failure(entry, chain, "is a path but not a .json, .yaml or .yml file", "Name a JSON or YAML policy file, or an npm package.");
    }
    return { file: resolve(from, entry) };
  }
  try {
    const manifest = manifestOf(entry, from);
    return { file: throughCurrentLink(createRequire(join(from, "package.json")).resolve(entry), entry, manifest), manifest };
  } catch {
    // "Did you mean" first: installing a misspelled name is how typo-squatted packages get in.
    const close = closestName(entry, Object.keys(PRESETS));
    throw failure(
      entry,
      chain,
      `is neither a preset (${Object.keys(PRESETS).join(", ")}) nor an npm package installed where ${from} can find it`,
      close ? `Did you mean "${close}"? If you meant a package, install it (npm i -D ${entry}) in ${from}.` : `Install it (npm i -D ${entry}) in ${from}, or fix the name.`,
    );
  }
}

function readPolicy(entry: string, file: string, chain: string[]): PolicyFile {
  let value: unknown;
  try {
    const text = readFileSync(file, "utf8");
    if (/\.ya?ml$/i.test(file)) value = parseYaml(text);
    else if (/\.json$/i.test(file)) value = JSON.parse(text);
    else value = freshRequire(file);
  } catch (error) {
    throw failure(entry, chain, `could not be read from ${file} (${messageOf(error)})`, "Fix the file; a policy is JSON, YAML or CommonJS exporting { rules, default?, extends?, locked? }.");
  }
  if (typeof value === "object" && value !== null && "default" in value && typeof (value as { default: unknown }).default === "object") {
    value = (value as { default: unknown }).default;
  }
  const problems = checkValue(PolicyFileSchema, value);
  if (problems) {
    const lines = problems.slice(0, 10).map((problem) => `  ${problem.path}: ${problem.message}`);
    throw failure(entry, chain, `in ${file} is not a policy:\n${lines.join("\n")}\n`, "A policy exports { rules, default?, extends?, locked? } (see the @toolhost/hooks-policy README).");
  }
  return value as PolicyFile;
}

/** A CommonJS policy, read anew: a long-lived host reloads the policy after the file changed. */
function freshRequire(file: string): unknown {
  const load = createRequire(file);
  delete load.cache[file];
  return load(file);
}

/** YAML is read only for a YAML policy file: loading the parser costs every hook call ~100 ms. */
function parseYaml(text: string): unknown {
  return (createRequire(import.meta.url)("yaml") as typeof import("yaml")).parse(text);
}

function failure(entry: string, chain: string[], what: string, fix: string): ToolhostError {
  const via = chain.length > 0 ? ` (extended by ${chain.at(-1)})` : "";
  return new ToolhostError(ErrorCode.INVALID_PLUGIN_OPTIONS, `The policy "${entry}"${via} in extends of @toolhost/hooks-policy ${what}. ${fix}`);
}
