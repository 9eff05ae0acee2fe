import { type DeniedReads, ErrorCode, type PolicyExplanation, type PolicyRequest, type ProtectedPaths, type ProtectedPathsOptions } from "@toolhost/core";
import type { Decision, PolicyRule } from "./options.js";

/** A rule in force: its id, its layer's name, whether the layer is locked, and the file it came from (packages and files). */
export type EffectiveRule = PolicyRule & { id: string; layer: string; locked: boolean; source?: string };

/**
 * Where the policy stands: relative paths resolve against `cwd`, `${workspace}` is `workspace`;
 * `trustedWorkspace`: the user trusts the workspace's folder to run its own code (its build and
 * test runners, its scripts). Default: not trusted.
 */
export interface PolicyEnvironment {
  cwd: string;
  workspace: string;
  trustedWorkspace?: boolean;
}

/** A compiled policy: pure, synchronous decisions. */
export interface Policy {
  /**
   * Decides a call from what it touches (`access`, as its tool declares it) and its arguments.
   * Never throws: an error is a deny with the error in the reason.
   */
  decide(request: PolicyRequest): PolicyExplanation;
  /**
   * Decides a connection a running call asks to open (its sandbox's proxy, through
   * `ToolExecution.authorize` with `{ network: [{ url }] }`): each destination is judged by the
   * `url` and `host` rules, and one no such rule names gets the default. Rules without a matcher
   * and `args` rules may make it stricter, never allow it: they were written for the call, not
   * for where it connects. Never throws.
   */
  decideConnection(request: PolicyRequest): PolicyExplanation;
  /**
   * The existing paths under `root` that the rules deny to read (path rules of `read`, or of
   * every tool) and to write: what a tool reading the tree leaves out, and a sandbox hides.
   * Rejects when the tree is too large to walk (more than 200,000 entries, or 64 levels deep).
   * The walk runs in the thread pool and does not hold the event loop.
   */
  protectedPaths(root: string, options?: ProtectedPathsOptions): Promise<ProtectedPaths>;
  /**
   * What the rules deny `tool` (and every tool, `read`) to read outside `roots`, for a confined
   * call, as existing paths a sandbox covers, and the patterns no paths can cover. Rejects when a
   * search is too large, or a path to hide holds a root.
   */
  deniedReads(request: { roots: string[]; tool?: string }): Promise<DeniedReads>;
  readonly defaultDecision: Decision;
  /** The first locked layer whose `default` is ask or deny: a part no rule decides cannot be approved below it. */
  readonly lockedDefault: { layer: string; source?: string } | undefined;
  /** Every rule in force (layers in `extends` order, the config's own last), with the id decisions name it by and its layer. */
  readonly rules: ReadonlyArray<EffectiveRule>;
  /** The files the layers of `extends` were read from (policy files, packages' package.json), absolute. */
  readonly sources: readonly string[];
}

/** Error codes of the policy. */
export const PolicyErrorCode = Object.freeze({
  INVALID_OPTIONS: ErrorCode.INVALID_PLUGIN_OPTIONS,
  POLICY_ERROR: "TOOLHOST_POLICY_ERROR",
  AUDIT_FAILED: "TOOLHOST_POLICY_AUDIT_FAILED",
  REDACTION_FAILED: "TOOLHOST_POLICY_REDACTION_FAILED",
} as const);
