import type { Layering } from "../explain/_explanation.js";
import type { PathAnchors } from "../paths/_paths.js";
import type { Decision } from "../options.js";
import type { ShellKnowledge } from "../shell/_parse.js";
import type { PolicyEnvironment } from "../types.js";

/** What every judge of a part needs of the policy: how rules layer, the default, where `~` and `${workspace}` are. */
export interface JudgeScope {
  readonly layering: Layering;
  readonly defaultDecision: Decision;
  readonly anchors: PathAnchors;
  readonly environment: PolicyEnvironment;
  /** What is known of programs (the built-in inventory and the layers' `programs`), and the programs rules name. */
  readonly knowledge: ShellKnowledge;
  /** Whether the workspace is trusted to run its own code (its build and test runners, its scripts). */
  readonly trusted: boolean;
  /** Every owner's audit log, as named and with symlinks followed: append-only from tools. */
  readonly auditLogs: readonly string[];
}

/** The kinds of access path rules can name in `tool`: `read` and `write` stand for every read / write declared. */
export const READ = "read";
export const WRITE = "write";

/** The note of a part whose ask a `sandboxed: true` rule lifted. */
export const LIFTED = "the call runs confined (it can write only inside the workspace, and the network is off), so a sandboxed rule decides what the policy cannot read";

export function unique<T>(values: T[]): T[] {
  return [...new Set(values)];
}
