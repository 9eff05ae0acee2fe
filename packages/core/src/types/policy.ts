import type { ConfigOwner } from "./config.js";
import type { ToolAccess } from "./tool.js";

/** A policy's answer to a call. */
export type PolicyDecision = "allow" | "ask" | "deny";

/** A call to decide without running it: a tool of this harness, or another host's with its access given. */
export interface PolicyRequest {
  tool: string;
  args: unknown;
  /** The folder relative paths are judged against. Default: the harness's `cwd`. */
  cwd?: string;
  /** What the call touches. Default: what the harness's tool of that name declares for `args`. */
  access?: ToolAccess;
  /**
   * True: `access.network` are connections a running call's proxy asks to open (network `"proxy"`),
   * judged as the proxy's follow-up questions are (`NetworkAccess.address`), not as a declaration.
   */
  connection?: boolean;
}

/**
 * What was judged in a call: a simple command, a file written or read, a tree read recursively, a
 * network destination, named arguments, the call as a whole. `partSubject` says which of these have
 * a command, a path or a URL as their subject.
 */
export type PolicyPartKind = "command" | "write" | "read" | "tree" | "network" | "args" | "call";

/** A rule that matched a part, and what it said about it. */
export interface PolicyMatch {
  id: string;
  decision: PolicyDecision;
  reason?: string;
  /** Its layer's name, and the owner of the config it came from. */
  layer?: string;
  owner?: ConfigOwner;
  /**
   * Its part in the part's decision: `decided` (the rule whose decision the part got), `overruled`
   * (a later layer, or a stricter rule of its own layer, decided otherwise), or `agreed` (it said
   * the same as the deciding rule). Absent when the policy does not say.
   */
  role?: "decided" | "overruled" | "agreed";
}

/** One judged piece of a call. */
export interface PolicyPart {
  kind: PolicyPartKind;
  /** The simple command, the normalized path, `GET https://…`, `url=https://…`, or the tool's name. */
  subject: string;
  decision: PolicyDecision;
  matched: PolicyMatch[];
  /** Why the decision is what it is when no rule says it (`default (no rule matched)`, `command name known only at run time`). */
  note?: string;
}

/** The decision on one call, and every part of it with the rules that matched. */
export interface PolicyExplanation {
  decision: PolicyDecision;
  reason: string;
  tool: string;
  /** The ids of the rules that decided. */
  rules: string[];
  parts: PolicyPart[];
  /**
   * For an ask (from `PolicyService.explain`): each part that asks, as an approver reads it in the
   * ask's `PolicyDetails.asks`, the default's asks included (with the lock that holds them), so a
   * dry run can say which approvals given in advance would pass the call. A policy may leave it out.
   */
  asks?: AskingPart[];
  /** How many asking parts were left out of `asks`. */
  asksOmitted?: number;
}

/** A rule in force, as `PolicyService.rules` lists it and as an asking part names it. */
export interface PolicyRuleInfo {
  id: string;
  /** Its layer's name (`recommended`, `./team.json`, `config`). */
  layer: string;
  /** The owner of the config it came from, when the host reads configs by owner. */
  owner?: ConfigOwner;
  /** Whether its layer is locked: later layers, lower owners and approvals given in advance cannot loosen it. */
  locked: boolean;
  /** The file it came from (a policy file, a package, a config file). */
  source?: string;
  /** The rule's own decision: `deny` on an asking part when the policy asks because the deny may apply at run time. */
  decision: PolicyDecision;
  /** The matcher as written: `rm -rf *`, `path ".env"`. */
  matcher: string;
  /** The tools it applies to, as written (`*`, `bash`, `read, write`). */
  tool: string;
}

/** A part of a call that the policy asks about, with the rules that asked: what an approver reads. */
export interface AskingPart {
  kind: PolicyPartKind;
  subject: string;
  rules: PolicyRuleInfo[];
  /** True when a locked layer holds the ask: only a person can answer it, never an approval given in advance. */
  locked: boolean;
  /** The locked layer (and its file) that holds the ask, when `locked`. */
  lockedBy?: { layer: string; owner?: ConfigOwner; source?: string };
  note?: string;
}

/**
 * What a policy puts in the `details.policy` of its answers (`beforeToolCall`'s block, ask and allow,
 * and so the refused results): the decision, the rules that decided, the parts (the deciding ones
 * first when there are many), and for an ask every asking part. Read it with `policyDetailsOf`.
 */
export interface PolicyDetails {
  decision: PolicyDecision;
  rules: string[];
  parts: PolicyPart[];
  /** How many parts were left out of `parts`. */
  partsOmitted?: number;
  /** For an ask: each part that asks. */
  asks?: AskingPart[];
  /** How many asking parts were left out of `asks`: an approver must then refuse to pass the call in advance. */
  asksOmitted?: number;
}

/** Paths a policy refuses under a root, for a sandbox to enforce (hide the first, keep the second read-only). */
export interface ProtectedPaths {
  denyRead: string[];
  denyWrite: string[];
}

/**
 * What a policy denies to read anywhere on the system, for a sandbox to hide
 * (`PolicyService.deniedReads`).
 */
export interface DeniedReads {
  /**
   * Existing paths, symlinks resolved (folders and files), that hold every existing path the
   * policy's deny-read patterns name outside the roots asked about (under a root,
   * `protectedPaths(root).denyRead` says). A sandbox covers each with an empty folder or file.
   */
  paths: string[];
  /**
   * The deny-read patterns no list of paths can cover (a name at any depth such as `.env`, a
   * wildcard in an absolute path's first folder, a rule that denies every read): what they name
   * may stay readable under a sandbox, so the policy does not trust a confined call with reads.
   */
  unbounded: string[];
}

/** Which calls `protectedPaths` is asked for. */
export interface ProtectedPathsOptions {
  /** True: for calls that run confined (rules with `sandboxed: false` do not apply to them, so what only they deny is not listed). */
  confined?: boolean;
}

/** What a policy plugin offers as the service `"policy"`. */
export interface PolicyService {
  /** Decides a call without running it and without asking anyone. Never throws: an error is a deny. */
  explain(request: PolicyRequest): Promise<PolicyExplanation>;
  /** The existing paths under `root` that the policy denies to read or to write. */
  protectedPaths(root: string, options?: ProtectedPathsOptions): Promise<ProtectedPaths>;
  /**
   * What the policy denies `tool` (and every tool) to read outside `roots`, as paths a sandbox can
   * cover; rejects when a search for them is too large (the call must then be refused). Optional:
   * a policy without it gets calls whose confinement does not say `hidesDeniedReads`.
   */
  deniedReads?(request: { roots: string[]; tool?: string }): Promise<DeniedReads>;
  /** The rules in force, in the order they are layered: id, layer, owner, locked, source file, decision and matcher as written. */
  rules?(): Promise<PolicyRuleInfo[]>;
}

