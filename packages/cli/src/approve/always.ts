import { chmod, mkdir, readFile, rename, stat, unlink, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { dirname, isAbsolute, join, relative } from "node:path";
import type { ApprovalRequest } from "@toolhost/core";
import type { Host } from "@toolhost/core/config";
import { cliHostOptions, DEFAULT_POLICY_PLUGIN } from "../_defaults.js";
import { type AllowRule, ruleText } from "./allow-rules.js";

/*
 * "Yes, and don't ask again": the allow rules for an ask, written to the `rules` of the policy
 * plugin's entry in a JSON config (the project's, or the user's), keeping the file's formatting
 * (jsonc-parser edits only what changes). A rule is kept only when it takes effect: after writing,
 * the config is loaded anew and the policy asked about the same call; if it would still ask (a
 * stricter rule of the same layer, a higher owner's layer), the file is put back as it was and
 * the rule is shown to add by hand where it would.
 */

/** A config the rule can go to. */
export interface AlwaysTarget {
  owner: "project" | "user";
  file: string;
  /** The file as a person reads it: `./toolhost.config.json`, `~/.config/toolhost/toolhost.config.json`. */
  shown: string;
}

/** What became of the rules: written, or why not and what to add by hand. */
export type AlwaysOutcome = { written: true; rule: string } | { written: false; why: string; byHand: string };

/** What writing needs: the host in use (its config and policy), and how the CLI made it. */
export interface AlwaysContext {
  host: Host;
  cwd: string;
  /** The `--config` given, if any: the fresh load that checks the rule uses it too. */
  configOption: string | undefined;
}

/** The user's config: `$XDG_CONFIG_HOME/toolhost/toolhost.config.json`, else `~/.config/toolhost/toolhost.config.json`. */
export function userConfigPath(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CONFIG_HOME !== undefined && isAbsolute(env.XDG_CONFIG_HOME) ? env.XDG_CONFIG_HOME : join(homedir(), ".config");
  return join(base, "toolhost", "toolhost.config.json");
}

/** Where "don't ask again" can write: the project's config when there is one, and the user's. */
export function alwaysTargets(host: Host, cwd: string): AlwaysTarget[] {
  const targets: AlwaysTarget[] = [];
  if (host.configPath !== undefined) targets.push({ owner: "project", file: host.configPath, shown: shownPath(host.configPath, cwd) });
  const user = userConfigPath();
  if (user !== host.configPath) targets.push({ owner: "user", file: user, shown: shownPath(user, cwd) });
  return targets;
}

/** Writes the rules for `request` to `target`, checks they take effect, and puts the file back when they do not. */
export async function writeAllowRules(target: AlwaysTarget, rules: readonly AllowRule[], request: ApprovalRequest, context: AlwaysContext): Promise<AlwaysOutcome> {
  const text = rules.map(ruleText).join(" and ");
  const byHand = `${text} to the "rules" of the policy plugin in ${target.shown}`;
  if (!target.file.endsWith(".json")) return { written: false, why: `toolhost edits only JSON configs, and ${target.shown} is not one`, byHand };
  const spec = policySpecifier(context.host, request.askedBy, target.owner);
  if (spec === undefined) return { written: false, why: `the policy that asked (${request.askedBy}) has no entry toolhost can find in ${target.shown}`, byHand };
  const before = await readFile(target.file, "utf8").catch((error: NodeJS.ErrnoException) => (error.code === "ENOENT" ? undefined : Promise.reject(error)));
  let after: string;
  try {
    const { withAllowRules } = await import("./json-edit.js");
    after = withAllowRules(before ?? '{\n  "plugins": []\n}\n', spec, rules);
  } catch (error) {
    return { written: false, why: `${target.shown} could not be edited: ${(error as Error).message}`, byHand };
  }
  try {
    await replaceFile(target.file, after);
  } catch (error) {
    return { written: false, why: `${target.shown} could not be written: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`, byHand };
  }
  const still = await stillAsks(request, context);
  if (still === undefined) return { written: true, rule: `${text} in ${target.shown}` };
  await (before === undefined ? unlink(target.file) : replaceFile(target.file, before));
  return { written: false, why: `the rule would not take effect there (${still}), so ${target.shown} was left as it was`, byHand };
}

/** The entry of the policy plugin that asked: by the project config's entry that loaded it, or the plugin's name. */
function policySpecifier(host: Host, askedBy: string, owner: AlwaysTarget["owner"]): string | undefined {
  const entries = host.config?.plugins ?? [];
  const names = entries.map((entry) => (typeof entry === "string" ? entry : entry[0]));
  const index = host.plugins.length === entries.length ? host.plugins.findIndex((plugin) => plugin.name === askedBy) : -1;
  const spec = names[index] ?? names.find((name) => name === askedBy) ?? (host.configPath === undefined ? DEFAULT_POLICY_PLUGIN : undefined);
  // A plugin named by a path resolves from its config's folder: the user's config would name another file.
  if (spec === undefined || (owner === "user" && /^[./]/.test(spec))) return undefined;
  return spec;
}

/** Undefined when a fresh load of the config allows the call; else what the policy answers now. */
async function stillAsks(request: ApprovalRequest, context: AlwaysContext): Promise<string | undefined> {
  const { createHost } = await import("@toolhost/core/config");
  let fresh: Host | undefined;
  try {
    fresh = await createHost({ ...cliHostOptions(context.cwd, context.configOption), onlyProviding: "policy" });
    const policy = fresh.harness.getService("policy");
    if (policy === undefined) return "the config has no policy then";
    const explained = await policy.explain({ tool: request.toolCall.name, args: request.args, cwd: context.cwd, ...(request.access && { access: request.access }) });
    return explained.decision === "allow" ? undefined : `the policy would still answer ${explained.decision}: ${explained.reason}`;
  } catch (error) {
    return `the config would not load: ${(error as Error).message.split("\n")[0]}`;
  } finally {
    await fresh?.harness.dispose().catch(() => undefined);
  }
}

/** Replaces a file's text at once (a temporary file renamed over it), keeping its mode. */
async function replaceFile(file: string, text: string): Promise<void> {
  const mode = await stat(file).then((info) => info.mode & 0o777, () => undefined);
  await mkdir(dirname(file), { recursive: true });
  const temporary = join(dirname(file), `.${Date.now()}-${process.pid}.toolhost-edit`);
  await writeFile(temporary, text, { flag: "wx", mode: mode ?? 0o644 });
  if (mode !== undefined) await chmod(temporary, mode);
  await rename(temporary, file);
}

function shownPath(file: string, cwd: string): string {
  const rel = relative(cwd, file);
  if (rel !== "" && !rel.startsWith("..") && !isAbsolute(rel)) return `./${rel}`;
  const home = homedir();
  return file.startsWith(`${home}/`) ? `~/${file.slice(home.length + 1)}` : file;
}
