import { join, relative, sep } from "node:path";
import { messageOf } from "@toolhost/core";
import { createHost, installedSchemaPath, type Host } from "@toolhost/core/config";
import { cliHostOptions } from "../_defaults.js";
import { UsageError } from "../usage-error.js";
import type { HookScope } from "./install.js";

/** A hook that would refuse every call, or decide nothing, as installed: the install stops with the fix. */
export class HookConfigError extends UsageError {
  override name = "HookConfigError";
  override readonly code = "TOOLHOST_HOOK_CONFIG";
}

/** What `hook install` must add besides the hook: the project's config, when it has none. */
export interface HookConfigPlan {
  /** The config file to write (it does not exist), and its text. */
  create?: { file: string; text: string };
}

/** The plugin the hook needs: a policy, with its recommended preset. Nothing else is named (the hook applies only policies). */
const HOOK_CONFIG_PLUGINS = [["@toolhost/hooks-policy", { extends: ["recommended"] }]];

/**
 * Checks the config the hook will load from `cwd` (each call of the host runs it there), as the
 * hook loads it: only the plugins that provide a policy. A config that fails to load (a plugin not
 * installed, a syntax error), that was not loaded whole (untrusted code, a file another user can
 * change) or that provides no policy would make the hook refuse every call: a `HookConfigError`
 * with the fix. A project with no config of its own (project scope) gets one naming only the
 * policy, so that what the hook decides with is written down beside the hook.
 */
export async function planHookConfig(cwd: string, configPath: string | undefined, scope: HookScope): Promise<HookConfigPlan> {
  let host: Host;
  try {
    host = await createHost({ ...cliHostOptions(cwd, configPath), onlyProviding: "policy" });
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    throw new HookConfigError(`The hook would refuse every call from ${cwd}: ${messageOf(error)}${typeof code === "string" ? ` (${code})` : ""}\nFix that first; nothing was changed.`);
  }
  try {
    if (host.refused.length > 0) {
      throw new HookConfigError(`The hook would refuse every call from ${cwd}:\n${host.refused.map((refusal) => `- ${refusal.message}`).join("\n")}\nFix that first; nothing was changed.`);
    }
    if (host.harness.getService("policy") === undefined) throw new HookConfigError(noPolicy(host, cwd));
    if (host.configPath !== undefined || scope === "user") return {};
    const file = join(cwd, "toolhost.config.json");
    const schema = await schemaOf(cwd);
    const config = { ...(schema !== undefined && { $schema: schema }), plugins: HOOK_CONFIG_PLUGINS };
    return { create: { file, text: `${JSON.stringify(config, null, 2)}\n` } };
  } finally {
    await host.harness.dispose().catch(() => undefined);
  }
}

function noPolicy(host: Host, cwd: string): string {
  const where = host.configPath ?? `a toolhost.config.json in ${cwd}`;
  const missing = host.missing.includes("@toolhost/hooks-policy");
  return [
    `The hook would decide nothing from ${cwd}: no plugin of ${host.configPath ?? "the default config"} provides a policy${missing ? " (@toolhost/hooks-policy is not installed)" : ""}, so it would refuse every call.`,
    `Install the policy (npm i -D @toolhost/hooks-policy) and name it in the "plugins" of ${where}, then run this again; nothing was changed.`,
  ].join("\n");
}

/** `$schema` for the config: the copy installed with core in the project, relative to it; none without one. */
async function schemaOf(dir: string): Promise<string | undefined> {
  const installed = await installedSchemaPath(dir);
  if (installed === undefined) return undefined;
  const path = relative(dir, installed).split(sep).join("/");
  return path.startsWith("../") ? path : `./${path}`;
}
