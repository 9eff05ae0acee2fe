import type { NetworkAccess, PolicyMatch, PolicyPart } from "@toolhost/core";
import { finish } from "../explain/_explanation.js";
import { matchOf } from "../rules/_rules.js";
import type { JudgeScope } from "./_scope.js";
import type { ToolRules } from "./_tool-rules.js";

/** A declared network destination, by its URL and its host name (`url` and `host` rules). */
export function judgeNetwork(scope: JudgeScope, destination: NetworkAccess, rules: ToolRules): PolicyPart {
  return judged(scope, destination, destination.url, rules, rules.whole.map((rule) => matchOf(rule, rule.decision)));
}

/**
 * A connection a running call's proxy asks to open: by the `url` and `host` rules, else the
 * default; a rule without a matcher may ask or deny, never allow it.
 */
export function judgeConnection(scope: JudgeScope, destination: NetworkAccess, rules: ToolRules): PolicyPart {
  const stricter = rules.whole.filter((rule) => rule.decision !== "allow").map((rule) => matchOf(rule, rule.decision));
  const part = judged(scope, destination, hostAndPort(destination.url), rules, stricter);
  part.note = [part.note, "a connection the call's sandbox asked to open: judged by url and host rules, else the default"].filter(Boolean).join("; ");
  return part;
}

function judged(scope: JudgeScope, destination: NetworkAccess, url: string, rules: ToolRules, matched: PolicyMatch[]): PolicyPart {
  const method = typeof destination.method === "string" ? destination.method.toUpperCase() : undefined;
  const subject = method ? `${method} ${url}` : url;
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

/** `host:port` (a proxy's CONNECT target) as the URL it reaches, `https://host:port/`; any other text as it is. */
function hostAndPort(url: string): string {
  return /^[A-Za-z0-9.-]+:\d+$|^\[[0-9A-Fa-f:.]+\]:\d+$/.test(url) ? `https://${url}/` : url;
}
