import type { PolicyPart, ToolAccess } from "@toolhost/core";
import type { ReadCovers } from "../_denied-reads.js";
import { LIFTED } from "./_scope.js";
import type { ToolRules } from "./_tool-rules.js";

/*
 * What a confined call is trusted with: a sandboxed rule applies only when the confinement also
 * bounds what the call reads, and the decision says when the sandbox made the difference.
 */

/**
 * Whether a confined call is also bounded in what it reads: nothing is denied to read, or the
 * sandbox hides what `deniedReads` lists (its confinement says so) and every pattern can be
 * listed. Else a sandboxed rule must not lift what the policy cannot read (a script may read anything).
 */
export function readsHidden(covers: ReadCovers, access: ToolAccess | undefined): boolean {
  if (!covers.any) return true;
  return covers.unbounded.length === 0 && access?.confinement?.hidesDeniedReads === true;
}

/**
 * Sandboxed rules first where they lifted an ask (the sandbox made the difference, and the
 * decision says so), last elsewhere (another rule would have decided the same).
 */
export function orderSandboxed(parts: PolicyPart[], rules: ToolRules): void {
  if (rules.lifting.size === 0) return;
  for (const part of parts) {
    const sandboxed = part.matched.filter((entry) => rules.lifting.has(entry.id));
    const others = part.matched.filter((entry) => !rules.lifting.has(entry.id));
    part.matched = part.note?.includes(LIFTED) ? [...sandboxed, ...others] : [...others, ...sandboxed];
  }
}

/** A confined call whose reads are not bounded: its asks say why the sandbox made no difference. */
export function noteUntrusted(covers: ReadCovers, parts: PolicyPart[]): void {
  const { unbounded } = covers;
  const shown = unbounded.slice(0, 4).join(", ") + (unbounded.length > 4 ? `, and ${unbounded.length - 4} more` : "");
  const why =
    unbounded.length > 0
      ? `the call runs in a sandbox, but no sandbox can hide what ${shown} name${unbounded.length === 1 ? "s" : ""} outside the workspace, so sandboxed rules do not apply`
      : "the call runs in a sandbox that does not say it hides what the policy denies to read, so sandboxed rules do not apply";
  for (const part of parts) {
    if (part.decision === "ask") part.note = part.note ? `${part.note}; ${why}` : why;
  }
}
