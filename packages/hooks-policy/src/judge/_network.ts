import type { NetworkAccess, PolicyMatch, PolicyPart } from "@toolhost/core";
import { finish } from "../_explanation.js";
import { matchOf } from "../_rules.js";
import type { JudgeScope } from "./_scope.js";
import type { ToolRules } from "./_tool-rules.js";

/** A declared network destination, by its URL and its host name (`url` and `host` rules). */
export function judgeNetwork(scope: JudgeScope, destination: NetworkAccess, rules: ToolRules): PolicyPart {
  const url = destination.url;
  const method = typeof destination.method === "string" ? destination.method.toUpperCase() : undefined;
  const subject = method ? `${method} ${url}` : url;
  const matched: PolicyMatch[] = rules.whole.map((rule) => matchOf(rule, rule.decision));
  let host: string | undefined;
  try {
    host = new URL(url).hostname.toLowerCase().replace(/^\[|\]$/g, "");
  } catch {
    return finish({ kind: "network", subject, decision: "allow", matched }, scope.layering, ["the URL is not valid"], true);
  }
  for (const rule of rules.network) {
    if ((rule.url && rule.url.test(url)) || (rule.host && rule.host.test(host))) matched.push(matchOf(rule, rule.decision));
  }
  return finish({ kind: "network", subject, decision: "allow", matched }, scope.layering);
}
