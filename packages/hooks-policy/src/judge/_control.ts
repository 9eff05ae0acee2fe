import { isInside, type PolicyPartKind } from "@toolhost/core";
import { controlFileAt, controlFileNote } from "../rules/_control-files.js";
import type { Decision } from "../options.js";
import { type JudgeScope, WRITE } from "./_scope.js";

/*
 * Writes to control files and to the audit logs, judged beside the rules: a part that writes a
 * control file says which and why it matters (a `control: true` rule decides it: `recommended`
 * asks), and the policy's own audit logs are append-only from tools: an append (`>>`) is judged as
 * any write to a control file, a write that replaces, truncates or removes a log (or the control
 * folder that holds it) is refused whatever the rules say.
 */

/** What the control files add to a write part: a note, and a decision the rules cannot loosen. */
export interface ControlJudgment {
  note: string;
  decision?: Decision;
}

/** An empty folder plants nothing: `mkdir .vscode` is not a write of what is read later (what goes in it is). */
export function writesNothingRead(via: string | undefined): boolean {
  return via === "mkdir";
}

/** Redirects that only add to a file's end. */
const APPENDS = new Set([">>", "&>>"]);

/**
 * For a write part (`variants`: its path as written and as the system resolves it; `via`: the
 * redirect or program that writes it, absent for a declared write, which replaces): undefined when
 * it writes no control file.
 */
export function judgeControl(scope: JudgeScope, kind: PolicyPartKind, variants: readonly string[], via: string | undefined): ControlJudgment | undefined {
  if (kind !== WRITE || writesNothingRead(via)) return undefined;
  const log = variants.map((variant) => auditLogAt(scope, variant)).find((found) => found !== undefined);
  if (log !== undefined) {
    if (log.file === log.path && via !== undefined && APPENDS.has(via)) {
      return { note: `appends to the audit log ${log.file}, which tools may only append to` };
    }
    const what = log.file === log.path ? `the audit log ${log.file}` : `${log.path}, which holds the audit log ${log.file}`;
    return { note: `it would replace, truncate or remove ${what}: the audit log is append-only from tools`, decision: "deny" };
  }
  const file = variants.map((variant) => controlFileAt(variant, scope.anchors)).find((found) => found !== undefined);
  return file === undefined ? undefined : { note: `writes ${controlFileNote(file)}` };
}

/** The audit log `path` is, or the control folder above it that holds it (removing or moving it takes the log). */
function auditLogAt(scope: JudgeScope, path: string): { file: string; path: string } | undefined {
  for (const file of scope.auditLogs) {
    if (file === path) return { file, path };
    if (isInside(file, path) && controlFileAt(path, scope.anchors) !== undefined) return { file, path };
  }
  return undefined;
}
