import { basename, isAbsolute } from "node:path";
import type { ApprovalRequest, ToolAccess } from "@toolhost/core";
import type { Host } from "@toolhost/core/config";
import type { AlwaysChoice, PageAsk, PageRules } from "@toolhost/approvals/page";
import { cliHostOptions } from "../_defaults.js";
import { allowRulesFor, ruleText } from "../approve/allow-rules.js";
import { alwaysTargets, writeAllowRules } from "../approve/always.js";
import { approvalScope } from "../approve/session-scope.js";
import { askingParts, mayBeDenied } from "../approve/values.js";

/*
 * What "always" and "for this session" mean on the approvals page: the terminal prompt's own
 * (approve/): the same allow rules, offered under the same conditions, written by the same writer
 * to the same configs (the project's, found from the asking host's folder, or the user's), kept
 * only when a fresh load proves they take effect; a session approval covers what the terminal's
 * does. This is the one place the page reaches the CLI's rule writer.
 */

/** The asking host's request as the CLI's approvers read it. */
function requestOf(ask: PageAsk): ApprovalRequest {
  // `digest`: the call's, which the page checked against its content (core's ApprovalRequest.digest).
  return {
    digest: ask.digest,
    toolCall: { id: ask.toolCallId, name: ask.tool, arguments: ask.call.args },
    tool: { name: ask.tool } as ApprovalRequest["tool"],
    args: ask.call.args,
    ...(ask.call.access !== undefined && { access: ask.call.access as ToolAccess }),
    context: undefined,
    reason: ask.reason,
    askedBy: ask.askedBy,
    ...(ask.call.details !== undefined && { details: ask.call.details }),
  } as ApprovalRequest;
}

/**
 * The asking host's config, as the terminal's writer needs it (its policy only). The asker names
 * its folder and config, and anything that can read the page file can ask: a config is loaded here
 * only by a name the search finds (`toolhost.config.*`, a control file no model writes unasked),
 * else the one the search finds from the folder, never any file an ask names.
 */
async function hostOf(ask: PageAsk): Promise<Host> {
  const { createHost } = await import("@toolhost/core/config");
  if (!isAbsolute(ask.asker.cwd)) throw new Error(`the asker's folder ${ask.asker.cwd} is not an absolute path`);
  const config = ask.asker.config !== undefined && CONFIG_NAME.test(basename(ask.asker.config)) && isAbsolute(ask.asker.config) ? ask.asker.config : undefined;
  return createHost({ ...cliHostOptions(ask.asker.cwd, config), onlyProviding: "policy" });
}

const CONFIG_NAME = /^toolhost\.config\.(json|ya?ml|m?js|ts)$/;

async function withHost<T>(ask: PageAsk, use: (host: Host) => Promise<T>): Promise<T> {
  const host = await hostOf(ask);
  try {
    return await use(host);
  } finally {
    await host.harness.dispose().catch(() => undefined);
  }
}

/** The rules for an ask, or undefined where the terminal would not offer "don't ask again". */
function rulesFor(request: ApprovalRequest): ReturnType<typeof allowRulesFor> {
  const parts = askingParts(request.details);
  if (!parts || parts.some((part) => part.locked || mayBeDenied(part))) return undefined;
  return allowRulesFor(request.toolCall.name, parts);
}

export const pageRules: PageRules = {
  async offer(ask: PageAsk): Promise<AlwaysChoice[]> {
    const request = requestOf(ask);
    const rules = rulesFor(request);
    if (rules === undefined) return [];
    return withHost(ask, async (host) =>
      alwaysTargets(host, ask.asker.cwd).map((target) => ({
        choice: `always:${target.owner}`,
        where: `${target.owner === "project" ? "in this project" : "in all your projects"} (${target.shown})`,
        rules: rules.map(ruleText).join(" and "),
      })),
    );
  },
  async write(ask: PageAsk, choice: string) {
    const request = requestOf(ask);
    const rules = rulesFor(request);
    if (rules === undefined) return { written: false, why: "no rule can say this ask for good", byHand: "a rule by hand" };
    return withHost(ask, async (host) => {
      const target = alwaysTargets(host, ask.asker.cwd).find((each) => choice === `always:${each.owner}`);
      if (target === undefined) return { written: false, why: `${choice} is not a place for this host's rules`, byHand: "a rule by hand" };
      return writeAllowRules(target, rules, request, { host, cwd: ask.asker.cwd, configOption: host.configPath });
    });
  },
  sessionScope(ask: PageAsk) {
    return approvalScope(requestOf(ask));
  },
};
