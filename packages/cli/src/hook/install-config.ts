import { join, relative, sep } from "node:path";
import { messageOf } from "@toolhost/core";
import { createHost, installedSchemaPath, type Host } from "@toolhost/core/config";
import { cliHostOptions } from "../_defaults.js";
import { HOOK_SERVICES } from "./decide.js";
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
  /** What the user should know of the config as the hook will load it (shell calls that will run unconfined, and why). */
  notes: string[];
}

/** The plugins the hook needs: a policy, with its recommended preset; and the sandbox shell calls run in, where installed. */
const HOOK_POLICY = ["@toolhost/hooks-policy", { extends: ["recommended"] }];
const HOOK_SANDBOX = "@toolhost/tool-bash";

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
    host = await createHost({ ...cliHostOptions(cwd, configPath), onlyProviding: HOOK_SERVICES });
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    throw new HookConfigError(`The hook would refuse every call from ${cwd}: ${messageOf(error)}${typeof code === "string" ? ` (${code})` : ""}\nFix that first; nothing was changed.`);
  }
  try {
    if (host.refused.length > 0) {
      throw new HookConfigError(`The hook would refuse every call from ${cwd}:\n${host.refused.map((refusal) => `- ${refusal.message}`).join("\n")}\nFix that first; nothing was changed.`);
    }
    if (host.harness.getService("policy") === undefined) throw new HookConfigError(noPolicy(host, cwd));
    const sandboxed = host.harness.getService("sandbox") !== undefined;
    const notes = sandboxed ? [] : [unconfinedNote(host, cwd)];
    if (host.configPath !== undefined || scope === "user") return { notes };
    const file = join(cwd, "toolhost.config.json");
    const schema = await schemaOf(cwd);
    const config = { ...(schema !== undefined && { $schema: schema }), plugins: [...(sandboxed ? [HOOK_SANDBOX] : []), HOOK_POLICY] };
    return { create: { file, text: `${JSON.stringify(config, null, 2)}\n` }, notes };
  } finally {
    await host.harness.dispose().catch(() => undefined);
  }
}

/** Shell calls will run as the host runs them: no plugin of the config provides the sandbox. */
function unconfinedNote(host: Host, cwd: string): string {
  const where = host.configPath ?? `a toolhost.config.json in ${cwd}`;
  const missing = host.missing.includes(HOOK_SANDBOX) ? ` (${HOOK_SANDBOX} is not installed: npm i -D ${HOOK_SANDBOX})` : "";
  return `Shell calls will run unconfined, judged as such: no plugin of ${host.configPath ?? "the default config"} provides toolhost's sandbox${missing}. Name "${HOOK_SANDBOX}" in the "plugins" of ${where} to run them in it.`;
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
