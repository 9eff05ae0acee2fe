import { dirname } from "node:path";
import { checkValue, type ConfigOwner, type PluginContext, type PluginLayer, resolvePluginOptions, ToolhostError } from "@toolhost/core";
import { DEFAULT_REDACT_ENV, type PolicyOptions, PolicyOptionsSchema, type RedactRule } from "../options.js";
import { PolicyErrorCode } from "../types.js";

/*
 * The plugin's options as every owner wrote them (core's `PluginContext.layers`: managed, user,
 * project, highest first), and how the options that are not rules combine. The rules compose as
 * layers, in that order (`policy.ts`); what protects a higher owner is a union a lower owner can
 * add to and never take away from: every owner's redaction, every owner's audit file.
 */

/** One owner's options, checked, and where they came from. */
export interface OwnedOptions {
  /** Whose config they are; undefined when the plugin was applied from code without layers. */
  owner: ConfigOwner | undefined;
  /** The config file (absolute), when there is one. */
  file: string | undefined;
  /** Whether code may come from its folder: a policy package whose main file is CommonJS runs code. */
  trusted: boolean;
  /** How the user trusts the folder, in the host's words (`run "toolhost trust /p"`), for the refusal. */
  trust: string | undefined;
  /** Where its relative paths (`extends` files and packages, `audit`) resolve: its config's folder, the workspace without one. */
  folder: string;
  options: PolicyOptions;
}

/**
 * Every owner's options, highest owner first. Applied from code (no layers), the options given are
 * one layer of no owner, trusted: the application chose them. Each layer's options are checked
 * against the schema here (the host checked only those it passed to `apply`); a problem is an
 * error naming the owner's file.
 */
export function ownedOptionsOf(options: PolicyOptions, context: PluginContext | undefined, workspace: string): OwnedOptions[] {
  const layers = context?.layers ?? [];
  if (layers.length === 0) return [{ owner: undefined, file: undefined, trusted: true, trust: undefined, folder: workspace, options }];
  return layers.map((layer) => ({
    owner: layer.owner,
    file: layer.file,
    trusted: layer.trusted === true,
    trust: trustHintOf(layer),
    folder: layer.file !== undefined ? dirname(layer.file) : workspace,
    options: checkedOptions(layer),
  }));
}

/** `PluginLayer.trust` (the host's words for trusting the folder), read as what it may be. */
function trustHintOf(layer: PluginLayer): string | undefined {
  const hint = (layer as { trust?: unknown }).trust;
  return typeof hint === "string" && hint !== "" ? hint : undefined;
}

/** The plugin's schema as `resolvePluginOptions` takes it: checked by interpreting it, the compiled check only for a value it refuses. */
const SCHEMA = { name: "@toolhost/hooks-policy", options: PolicyOptionsSchema };

function checkedOptions(layer: PluginLayer): PolicyOptions {
  const value = layer.options ?? {};
  try {
    return resolvePluginOptions(SCHEMA, value);
  } catch {
    // Said below with the owner's file.
  }
  const problems = checkValue(PolicyOptionsSchema, value) ?? [{ path: "/", message: "Does not match the schema" }];
  const lines = problems.slice(0, 10).map((problem) => `  ${problem.path}: ${problem.message}`);
  throw new ToolhostError(
    PolicyErrorCode.INVALID_OPTIONS,
    `Invalid options for @toolhost/hooks-policy in ${whose(layer.owner, layer.file)}:\n${lines.join("\n")}\nFix them there (see the package README for the rule format).`,
  );
}

/** `the user's config /home/u/.config/toolhost/toolhost.config.json`, in messages. */
export function whose(owner: ConfigOwner | undefined, file: string | undefined): string {
  const config = owner === undefined ? "the options given" : `the ${owner === "managed" ? "administrator's (managed)" : `${owner}'s`} config`;
  return file === undefined ? config : `${config} ${file}`;
}

/** How the redaction options of every owner combine: each adds, none takes away what another asked for. */
export interface ComposedRedaction {
  /** Every owner's patterns. */
  redact: RedactRule[];
  /** On unless every owner turns the built-ins off. */
  builtins: boolean;
  /** Every owner's globs (the default ones for an owner that names none). */
  env: string[];
}

export function composedRedaction(owned: readonly OwnedOptions[]): ComposedRedaction {
  const redact = owned.flatMap((each) => each.options.redact ?? []);
  const builtins = owned.some((each) => each.options.redactBuiltins !== false);
  const env = [...new Set(owned.flatMap((each) => each.options.redactEnv ?? DEFAULT_REDACT_ENV))];
  return { redact, builtins, env };
}
