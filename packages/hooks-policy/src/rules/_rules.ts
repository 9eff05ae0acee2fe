import { ErrorCode, messageOf, type PolicyMatch, ToolhostError } from "@toolhost/core";
import picomatch from "picomatch";
import { CommandPattern, type Match } from "./_command-pattern.js";
import { toolMatcher, wordGlob } from "./_glob.js";
import { compilePathPattern, type PathAnchors } from "../paths/_paths.js";
import { controlFileMatcher } from "./_control-files.js";
import { type Place, placeOf } from "../paths/_places.js";
import { kindNames, parseKind } from "../inventory/_kinds.js";
import type { Decision, PolicyRule } from "../options.js";
import { type AddressMatcher, addressMatcher, hostAddresses, urlAddresses } from "./_addresses.js";

/** A rule made ready to match: its matcher compiled, its id and place known. */
export interface CompiledRule {
  id: string;
  /** Its place among all rules, so explanations list matches in the order rules are written. */
  order: number;
  rule: PolicyRule;
  decision: Decision;
  reason: string | undefined;
  tool: (name: string) => boolean;
  command: CommandPattern | undefined;
  path: ((path: string) => boolean) | undefined;
  /** On the URL judged, its host canonical (`http://127.1/**` is written `http://127.0.0.1/**`). */
  url: RegExp | undefined;
  /** On the host judged (canonical: lower case, an address as `canonicalAddress` writes it). */
  host: RegExp | undefined;
  /** `address` rules: the addresses a destination is reached at. */
  address: AddressMatcher | undefined;
  /**
   * `host` and `url` rules whose host is an address or `localhost`: the addresses that host names,
   * and for a `url` rule the host to write in a URL to test it on one of them.
   */
  names: { matcher: AddressMatcher; urlHost: string | undefined } | undefined;
  inline: boolean;
  /** The kinds and roles of program it matches (`kind`). */
  kinds: readonly string[] | undefined;
  args: Array<[string, ArgMatcher]> | undefined;
  /** true: only calls that run confined; false: only the others; undefined: every call. */
  sandboxed: boolean | undefined;
  /** true: only in a trusted workspace; false: only in one that is not; undefined: either. */
  trusted: boolean | undefined;
}

export type ArgMatcher = (value: unknown) => Match;

export const MATCHERS = ["command", "path", "url", "host", "address", "inline", "control", "place", "kind", "args"] as const;

/** Compiles one rule; throws a `ToolhostError` that names the rule when it is invalid. */
export function compileRule(rule: PolicyRule, id: string, anchors: PathAnchors, where: string): CompiledRule {
  const matchers = MATCHERS.filter((key) => rule[key] !== undefined);
  if (matchers.length > 1) {
    throw new ToolhostError(
      ErrorCode.INVALID_PLUGIN_OPTIONS,
      `Invalid rule ${where} (${id}) of @toolhost/hooks-policy: it has ${matchers.join(" and ")}; a rule matches one of ${MATCHERS.join(", ")}. Split it into ${matchers.length} rules.`,
    );
  }
  if (rule.command !== undefined && rule.command.trim() === "") {
    throw new ToolhostError(ErrorCode.INVALID_PLUGIN_OPTIONS, `Invalid rule ${where} (${id}) of @toolhost/hooks-policy: "command" is empty; write "*" for every command.`);
  }
  const kinds = rule.kind === undefined ? undefined : [rule.kind].flat();
  const unknownKind = kinds?.find((name) => !kindNames().includes(name) && parseKind(name) === undefined);
  if (unknownKind !== undefined) {
    throw new ToolhostError(
      ErrorCode.INVALID_PLUGIN_OPTIONS,
      `Invalid rule ${where} (${id}) of @toolhost/hooks-policy: "${unknownKind}" is not a kind of program. A kind is one of ${kindNames().join(", ")}, or kind:role (network:uploader); see "The program inventory" in the package README.`,
    );
  }
  let path: CompiledRule["path"];
  try {
    path = rule.control === true ? controlFileMatcher(anchors) : rule.place !== undefined ? placeMatcher(rule.place, anchors) : rule.path === undefined ? undefined : compilePathPattern(rule.path, anchors);
  } catch (error) {
    throw new ToolhostError(
      ErrorCode.INVALID_PLUGIN_OPTIONS,
      `Invalid rule ${where} (${id}) of @toolhost/hooks-policy: the path pattern ${JSON.stringify(rule.path)} is not a valid glob (${messageOf(error)}).`,
    );
  }
  const address = rule.address === undefined ? undefined : addressMatcher(rule.address);
  if (address !== undefined && typeof address !== "function") {
    throw new ToolhostError(ErrorCode.INVALID_PLUGIN_OPTIONS, `Invalid rule ${where} (${id}) of @toolhost/hooks-policy: ${address.problem}.`);
  }
  const hostNames = rule.host === undefined ? undefined : hostAddresses(rule.host);
  const urlNames = rule.url === undefined ? undefined : urlAddresses(rule.url);
  return {
    id,
    order: 0,
    rule,
    decision: rule.decision,
    reason: rule.reason,
    tool: toolMatcher(rule.tool ?? "*"),
    command: rule.command === undefined ? undefined : new CommandPattern(rule.command),
    path,
    url: rule.url === undefined ? undefined : urlGlob(urlNames?.pattern ?? rule.url),
    host: rule.host === undefined ? undefined : wordGlob(hostNames?.text ?? rule.host.toLowerCase()),
    address,
    names: urlNames ? { matcher: urlNames.matcher, urlHost: urlNames.urlHost } : hostNames ? { matcher: hostNames.matcher, urlHost: undefined } : undefined,
    inline: rule.inline === true,
    kinds,
    args: rule.args === undefined ? undefined : Object.entries(rule.args).map(([field, expected]) => [field, argMatcher(expected)]),
    sandboxed: rule.sandboxed,
    trusted: rule.trusted,
  };
}

/** A glob on URLs: `*` stays within a segment (no `/`), `**` crosses them. */
export function urlGlob(glob: string): RegExp {
  let source = "";
  for (let i = 0; i < glob.length; i++) {
    const char = glob[i] as string;
    if (char === "\\" && i + 1 < glob.length) source += (glob[++i] as string).replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
    else if (char === "*" && glob[i + 1] === "*") {
      while (glob[i + 1] === "*") i++;
      source += "[\\s\\S]*";
    } else if (char === "*") source += "[^/]*";
    else if (char === "?") source += "[^/]";
    else source += char.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
  }
  return new RegExp(`^${source}$`);
}

function argMatcher(expected: string | number | boolean): ArgMatcher {
  if (typeof expected !== "string") return (value) => (value === expected ? "yes" : "no");
  const exact = picomatch(expected, { dot: true });
  const loose = picomatch(expected, { dot: true, nocase: true });
  return (value) => (typeof value !== "string" ? "no" : exact(value) ? "yes" : loose(value) ? "maybe" : "no");
}

export const isWhole = (rule: CompiledRule): boolean => MATCHERS.every((key) => rule.rule[key] === undefined);

/** A `place` rule: it judges reads only, never a write. */
export const isPlace = (rule: CompiledRule): boolean => rule.rule.place !== undefined;

function placeMatcher(place: "private" | "public", anchors: PathAnchors): (path: string) => boolean {
  return (path) => placeRemembered(path, anchors) === place;
}

/**
 * `placeOf`, by the policy's anchors and the path: every path read outside the workspace is asked
 * of each place rule (recommended has two), and the place depends only on the path and the anchors.
 */
function placeRemembered(path: string, anchors: PathAnchors): Place {
  let known = places.get(anchors);
  if (known === undefined) places.set(anchors, (known = new Map()));
  let place = known.get(path);
  if (place === undefined) {
    place = placeOf(path, anchors);
    if (known.size >= 4096) known.clear();
    known.set(path, place);
  }
  return place;
}

const places = new WeakMap<PathAnchors, Map<string, Place>>();

/** A `control: true` rule: it judges writes only, never a read. */
export const isControl = (rule: CompiledRule): boolean => rule.rule.control === true;

/** Whether a rule applies to a call, by its `sandboxed` condition (and its `trusted` one, when the workspace's trust is given). */
export const appliesTo = (rule: CompiledRule, confined: boolean, trusted?: boolean): boolean =>
  (rule.sandboxed === undefined || rule.sandboxed === confined) && (trusted === undefined || rule.trusted === undefined || rule.trusted === trusted);

/** Whether a rule names the tool itself (`bash`, `mcp_*`), not every tool (`*`) nor only a kind of access. */
export function namesTool(rule: CompiledRule, tool: string): boolean {
  const globs = rule.rule.tool === undefined ? [] : Array.isArray(rule.rule.tool) ? rule.rule.tool : [rule.rule.tool];
  return globs.some((glob) => !/^\*+$/.test(glob) && toolMatcher(glob)(tool));
}

export function matchOf(rule: CompiledRule, decision: Decision): PolicyMatch {
  return rule.reason === undefined ? { id: rule.id, decision } : { id: rule.id, decision, reason: rule.reason };
}

/** A rule's matcher as written: `"rm -rf *"`, `path "~/.ssh/**"`, `every call of bash`. */
export function matcherText(rule: PolicyRule): string {
  let text = ownMatcherText(rule);
  if (rule.sandboxed !== undefined) text = `${text} ${rule.sandboxed ? "when sandboxed" : "when not sandboxed"}`;
  if (rule.trusted !== undefined) text = `${text} ${rule.trusted ? "in a trusted workspace" : "in a workspace not trusted"}`;
  return text;
}

function ownMatcherText(rule: PolicyRule): string {
  if (rule.command !== undefined) return JSON.stringify(rule.command);
  if (rule.path !== undefined) return `path ${JSON.stringify(rule.path)}`;
  if (rule.url !== undefined) return `url ${JSON.stringify(rule.url)}`;
  if (rule.host !== undefined) return `host ${JSON.stringify(rule.host)}`;
  if (rule.address !== undefined) return `address ${[rule.address].flat().join(", ")}`;
  if (rule.inline) return "inline programs";
  if (rule.control) return "control files";
  if (rule.place !== undefined) return `reads of ${rule.place} places`;
  if (rule.kind !== undefined) return `programs of kind ${[rule.kind].flat().join(", ")}`;
  if (rule.args !== undefined) return `args ${JSON.stringify(rule.args)}`;
  const tools = rule.tool === undefined ? "every tool" : [rule.tool].flat().join(", ");
  return `every call of ${tools}`;
}
