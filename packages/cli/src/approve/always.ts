import { chmod, mkdir, readFile, rename, stat, unlink, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { dirname, isAbsolute, join, relative } from "node:path";
import type { ApprovalRequest, AskingPart, ToolAccess } from "@toolhost/core";
import type { Host } from "@toolhost/core/config";
import { cliHostOptions } from "../_defaults.js";
import { type AllowRule, allowRulesFor, ruleText } from "./allow-rules.js";
import { askingParts, mayBeDenied } from "./values.js";

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

/** A config "don't ask again" can write to, with the rules as that config writes them. */
export type AlwaysChoice = AlwaysTarget & { rules: AllowRule[] };

/**
 * Where "don't ask again" is offered for an ask, each place with its rules: not for an ask that is
 * not the policy's, that a locked layer holds, or that a deny may decide once its words are known;
 * and only the configs where the rule would take effect (see `takesEffect`) and a policy entry can
 * hold it. The terminal prompt and the approvals page offer the same.
 */
export function alwaysChoices(request: ApprovalRequest, host: Host, cwd: string): AlwaysChoice[] {
  const parts = askingParts(request.details);
  if (!parts || parts.some((part) => part.locked || mayBeDenied(part))) return [];
  return alwaysTargets(host, cwd).flatMap((target) => {
    if (!takesEffect(parts, target.owner) || !canHoldRule(host, request.askedBy, target)) return [];
    const rules = allowRulesFor(request.toolCall.name, parts, { owner: target.owner, workspace: host.harness.workspace, home: homedir() });
    return rules === undefined ? [] : [{ ...target, rules }];
  });
}

const OWNER_ORDER = { managed: 0, user: 1, project: 2 } as const;

/**
 * Whether an allow rule in `owner`'s own rules would decide the parts: layers go managed, user,
 * project, each owner's `extends` before its own rules, and the last layer with a matching rule
 * decides, while within a layer an ask beats an allow. So the rule takes effect only when every
 * rule that asked stands in an earlier layer (a rule whose owner is not known counts as the
 * project's own). Offered only where it takes effect; the fresh load after writing proves it.
 */
export function takesEffect(parts: readonly AskingPart[], owner: AlwaysTarget["owner"]): boolean {
  const target = OWNER_ORDER[owner];
  return parts.every((part) =>
    part.rules.every((rule) => {
      if (rule.decision === "allow") return true;
      const at = rule.owner === undefined ? OWNER_ORDER.project : OWNER_ORDER[rule.owner];
      return at < target || (at === target && rule.layer !== "config" && rule.owner !== undefined);
    }),
  );
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
  const still = await freshCheck(request, rules, context);
  if (still === undefined) return { written: true, rule: `${text} in ${target.shown}` };
  await (before === undefined ? unlink(target.file) : replaceFile(target.file, before));
  return { written: false, why: `the rule would not take effect there (${still}), so ${target.shown} was left as it was`, byHand };
}

/** Whether toolhost can write the rule to `target`: a policy entry it can find or add there. */
export function canHoldRule(host: Host, askedBy: string, target: AlwaysTarget): boolean {
  return policySpecifier(host, askedBy, target.owner) !== undefined;
}

/**
 * The entry of the policy plugin that asked in the target's own config (by the plugin's name), or,
 * for the user's config that does not name it, the name an entry added there gets. Undefined when
 * the project's config names no such entry: nothing there would hold the rule.
 */
function policySpecifier(host: Host, askedBy: string, owner: AlwaysTarget["owner"]): string | undefined {
  const layer = host.layers.find((each) => each.owner === owner);
  const names = (layer?.config?.plugins ?? []).map((entry) => (typeof entry === "string" ? entry : entry[0]));
  const named = names.find((name) => name === askedBy);
  if (named !== undefined) return named;
  if (owner === "project") return undefined;
  // A plugin named by a path resolves from its config's folder: the user's config would name another file.
  return /^[./]/.test(askedBy) ? undefined : askedBy;
}

/**
 * Undefined when a fresh load of the config allows the call and nothing more: the rules allow the
 * call itself, and no sibling (another name in the same folder, the command with one more
 * argument) that the policy in force did not allow; else what went wrong.
 */
async function freshCheck(request: ApprovalRequest, rules: readonly AllowRule[], context: AlwaysContext): Promise<string | undefined> {
  const { createHost } = await import("@toolhost/core/config");
  let fresh: Host | undefined;
  try {
    fresh = await createHost({ ...cliHostOptions(context.cwd, context.configOption), onlyProviding: "policy" });
    const policy = fresh.harness.getService("policy");
    if (policy === undefined) return "the config has no policy then";
    const explained = await policy.explain({ tool: request.toolCall.name, args: request.args, cwd: context.cwd, ...(request.access && { access: request.access }) });
    if (explained.decision !== "allow") return `the policy would still answer ${explained.decision}: ${explained.reason}`;
    const before = context.host.harness.getService("policy");
    for (const sibling of siblingsOf(rules, context.host.harness.workspace, context.cwd)) {
      const call = { tool: sibling.tool, args: {}, cwd: context.cwd, access: sibling.access };
      const now = await policy.explain(call);
      if (now.decision === "allow" && (await before?.explain(call))?.decision !== "allow") return `the rule would allow more than this call (${sibling.shown} too)`;
    }
    return undefined;
  } catch (error) {
    return `the config would not load: ${(error as Error).message.split("\n")[0]}`;
  } finally {
    await fresh?.harness.dispose().catch(() => undefined);
  }
}

/** Calls next to what each rule allows, which it must not allow: another file of the folder, a longer name, one more argument. */
function siblingsOf(rules: readonly AllowRule[], workspace: string, cwd: string): Array<{ tool: string; access: ToolAccess; shown: string }> {
  const siblings: Array<{ tool: string; access: ToolAccess; shown: string }> = [];
  for (const rule of rules) {
    const tool = rule.tool ?? "*";
    if (rule.path !== undefined) {
      const path = unescapedPath(rule.path, workspace);
      for (const other of [join(dirname(path), "toolhost-sibling"), `${path}-sibling`]) siblings.push({ tool, access: { writes: [other], reads: [other] }, shown: other });
    }
    if (rule.command !== undefined) {
      const command = `${rule.command.replace(/\\(.)/g, "$1")} toolhost-sibling`;
      siblings.push({ tool, access: { commands: [{ command, cwd }] }, shown: command });
    }
  }
  return siblings;
}

/** The path a written pattern names, its escapes taken out and its anchors filled in. */
function unescapedPath(pattern: string, workspace: string): string {
  const plain = pattern.replace(/\\(.)/g, "$1");
  if (plain.startsWith("${workspace}")) return workspace + plain.slice("${workspace}".length);
  if (plain === "~" || plain.startsWith("~/")) return homedir() + plain.slice(1);
  return plain;
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
