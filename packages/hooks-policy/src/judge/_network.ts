import { canonicalAddress, hostInUrl, type NetworkAccess, type PolicyMatch, type PolicyPart } from "@toolhost/core";
import { finish, NO_ADDRESS_RULE } from "../explain/_explanation.js";
import { type CompiledRule, matchOf } from "../rules/_rules.js";
import type { JudgeScope } from "./_scope.js";
import type { ToolRules } from "./_tool-rules.js";

/*
 * Network destinations, by their URL and host (`url`, `host` rules) and by the address they are
 * reached at (`address` rules, and `host` / `url` rules whose host is an address or `localhost`),
 * all compared in canonical form: a host as core's `canonicalAddress` writes an address, names in
 * lower case without a trailing dot. A destination's name and its address are separate parts, so
 * a deny of either holds: a rule on a name never allows an address a deny names.
 */

/** A URL as judged: its host canonical, and that host. */
interface Target {
  url: string;
  host: string;
  isAddress: boolean;
}

/** The URL with its host canonical (`http://[::ffff:7f00:1]/` is `http://127.0.0.1/`, `http://Example.COM./` is `http://example.com/`); undefined when it is no URL. */
function targetOf(url: string): Target | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  const written = parsed.hostname.replace(/^\[|\]$/g, "").toLowerCase();
  const address = written === "" ? undefined : canonicalAddress(written);
  const host = address ?? written.replace(/\.$/, "");
  if (host !== written) parsed.hostname = hostInUrl(host);
  return { url: parsed.href, host, isAddress: address !== undefined };
}

/** Whether a rule names `address`: an `address` rule, or a `host` / `url` rule whose host names it (the URL then tested with that host). */
function namesAddress(rule: CompiledRule, address: string, url: string): boolean {
  if (rule.address) return rule.address(address);
  const names = rule.names;
  if (!names?.matcher(address)) return false;
  if (names.urlHost === undefined || !rule.url) return true;
  const at = new URL(url);
  at.hostname = names.urlHost;
  return rule.url.test(at.href);
}

/** The part of a destination's name: `url` and `host` rules on its URL and host, and when the host is an address, the rules that name it. */
function namePart(scope: JudgeScope, destination: NetworkAccess, target: Target | undefined, rules: ToolRules, matched: PolicyMatch[]): PolicyPart {
  const subject = subjectOf(destination, destination.url);
  if (!target) return finish({ kind: "network", subject, decision: "allow", matched }, scope.layering, ["the URL is not valid"], true);
  for (const rule of rules.network) {
    const byText = (rule.url !== undefined && rule.url.test(target.url)) || (rule.host !== undefined && rule.host.test(target.host));
    if (byText || (target.isAddress && namesAddress(rule, target.host, target.url))) matched.push(matchOf(rule, rule.decision));
  }
  return finish({ kind: "network", subject: subjectOf(destination, target.url), decision: "allow", matched }, scope.layering);
}

/** The part of an address a destination is reached at, by the rules that name it; undefined when none does (it adds nothing). */
function addressPart(scope: JudgeScope, destination: NetworkAccess, target: Target, address: string, rules: ToolRules): PolicyPart | undefined {
  const matched = rules.network.filter((rule) => namesAddress(rule, address, target.url)).map((rule) => matchOf(rule, rule.decision));
  if (matched.length === 0) return undefined;
  return finish({ kind: "network", subject: `${subjectOf(destination, target.url)} at ${address}`, decision: "allow", matched }, scope.layering);
}

function subjectOf(destination: NetworkAccess, url: string): string {
  return typeof destination.method === "string" ? `${destination.method.toUpperCase()} ${url}` : url;
}

/**
 * A destination a call declares: its name (with the rules for the whole tool), and each address it
 * is known to be reached at: the `address` declared, or for `localhost` the loopback addresses.
 */
export function judgeNetwork(scope: JudgeScope, destination: NetworkAccess, rules: ToolRules): PolicyPart[] {
  const target = targetOf(destination.url);
  const parts = [namePart(scope, destination, target, rules, rules.whole.map((rule) => matchOf(rule, rule.decision)))];
  if (!target || target.isAddress) return parts;
  const declared = typeof destination.address === "string" ? canonicalAddress(destination.address) : undefined;
  for (const address of declared ? [declared] : localhostAddresses(target)) {
    const part = addressPart(scope, destination, target, address, rules);
    if (part) parts.push(part);
  }
  return parts;
}

/** What `localhost` (and a name under it) is reached at wherever it is resolved: judged before anyone looks it up. */
function localhostAddresses(target: Target): string[] {
  return target.host === "localhost" || target.host.endsWith(".localhost") ? ["127.0.0.1", "::1"] : [];
}

const CONNECTION_NOTE = "a connection the call's sandbox asked to open: judged by url, host and address rules, else the default";

/**
 * The connections a running call's proxy asks to open (`ToolExecution.authorize`): an entry
 * without `address` is the destination's name, judged by `url` and `host` rules, else the default
 * (a rule without a matcher may ask or deny, never allow it; an address named as such is judged by
 * the rules that name it too). An entry with `address` asks about that address only, after its
 * name was judged or let through by the tool: by the rules that name it, and where none does it
 * adds nothing (the name's decision stands).
 */
export function judgeConnections(scope: JudgeScope, destinations: readonly NetworkAccess[], rules: ToolRules): PolicyPart[] {
  const stricter = () => rules.whole.filter((rule) => rule.decision !== "allow").map((rule) => matchOf(rule, rule.decision));
  const parts: PolicyPart[] = [];
  for (const destination of destinations) {
    const asked = { ...destination, url: hostAndPort(destination.url) };
    const target = targetOf(asked.url);
    if (asked.address === undefined || !target) {
      const part = namePart(scope, asked, target, rules, stricter());
      part.note = [part.note, CONNECTION_NOTE].filter(Boolean).join("; ");
      parts.push(part);
      for (const address of target ? localhostAddresses(target) : []) {
        const local = addressPart(scope, asked, target as Target, address, rules);
        if (local) parts.push(local);
      }
      continue;
    }
    const address = typeof asked.address === "string" ? canonicalAddress(asked.address) : undefined;
    if (address === undefined) {
      parts.push({ kind: "network", subject: `${subjectOf(asked, target.url)} at ${String(asked.address).slice(0, 60)}`, decision: "deny", matched: [], note: "the address is no IP address" });
      continue;
    }
    // An address no rule names is a part too, so the record says it was judged; it allows what its name's decision allows.
    parts.push(addressPart(scope, asked, target, address, rules) ?? { kind: "network", subject: `${subjectOf(asked, target.url)} at ${address}`, decision: "allow", matched: [], note: NO_ADDRESS_RULE });
  }
  return parts;
}

/** `host:port` (a proxy's CONNECT target) as the URL it reaches, `https://host:port/`; any other text as it is. */
function hostAndPort(url: string): string {
  return /^[A-Za-z0-9.-]+:\d+$|^\[[0-9A-Fa-f:.]+\]:\d+$/.test(url) ? `https://${url}/` : url;
}
