import { lstatSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { type AgentHarness, type AgentToolResult, ErrorCode, type PolicyExplanation, resultCode, textOf, type ToolAccess } from "@toolhost/core";
import type { Policy } from "../types.js";

/*
 * A dry run of a call whose tool refuses to say what it would touch because a path it names does
 * not exist yet (tool-fs's read or edit of a new file): the policy can still say what it would
 * decide about that path, which is what a user asks when writing rules. Only explanations do this;
 * the pipeline itself still ends such a call with the tool's own error.
 */

/** Codes of the stages before the tool's `access`: a call ending there has arguments the tool refuses, not a path. */
const BEFORE_ACCESS = new Set<string>([ErrorCode.INVALID_ARGUMENTS, ErrorCode.PREPARE_FAILED, ErrorCode.VALIDATION_FAILED, ErrorCode.TOOL_NOT_FOUND, ErrorCode.TOOL_RESOLVE_FAILED]);

/** The longest argument looked at as a path. */
const MAX_PATH = 4_096;

/**
 * When the tool's `access` refused the call because a path does not exist (its refusal's details
 * say which: `missing`, core's contract), the call judged as declaring that path: a read for a
 * tool whose annotations say it only reads, else a read and a write. Each judged part and the
 * reason say that the path does not exist and that the tool would refuse the call. Undefined for
 * any other refusal (a path outside the tool's roots ends the call whatever exists): the
 * explanation is then the refusal.
 */
export async function judgeMissingPath(
  harness: AgentHarness,
  policy: Policy,
  call: { tool: string; args: unknown; cwd: string },
  refusal: AgentToolResult,
): Promise<PolicyExplanation | undefined> {
  const code = resultCode(refusal);
  if (code === undefined || BEFORE_ACCESS.has(code)) return undefined;
  const tool = harness.getTool(call.tool);
  const args = call.args;
  if (!tool || typeof args !== "object" || args === null || Array.isArray(args)) return undefined;
  const said = textOf(refusal);
  const named = (refusal.details as { missing?: unknown } | null | undefined)?.missing;
  if (typeof named !== "string" || named === "" || named.length > MAX_PATH || named.includes("\0")) return undefined;
  // The argument that names it, for the note: as given, or resolved against the call's folder.
  const missing = Object.entries(args as Record<string, unknown>).flatMap(([field, value]) => {
    if (typeof value !== "string" || value === "" || value.length > MAX_PATH || value.includes("\0")) return [];
    const expanded = value === "~" ? homedir() : value.startsWith("~/") ? join(homedir(), value.slice(2)) : value;
    const path = resolve(call.cwd, expanded);
    // The tool resolved it against the harness's folder (the call was prepared there).
    const names = path === named || resolve(harness.cwd, expanded) === named;
    return names && existsNot(path) ? [{ field, path }] : [];
  });
  if (missing.length === 0) return undefined;
  const paths = missing.map((each) => each.path);
  const access: ToolAccess = tool.annotations?.readOnly === true ? { reads: paths } : { reads: paths, writes: paths };
  const explanation = policy.decide({ tool: call.tool, args, cwd: call.cwd, access });
  const refused = `${said.split("\n")[0] ?? ""} (${code})`;
  for (const part of explanation.parts) {
    const which = missing.find((each) => part.subject === each.path);
    if (!which) continue;
    const note = `does not exist yet: judged as the argument "${which.field}" names it, since ${call.tool} declares nothing for a missing path; the call as it is would end with: ${refused}`;
    part.note = part.note ? `${part.note}; ${note}` : note;
  }
  return { ...explanation, reason: `${explanation.reason} (${paths.join(", ")} does not exist yet: ${call.tool} would refuse the call as it is)` };
}

function existsNot(path: string): boolean {
  try {
    lstatSync(path);
    return false;
  } catch (error) {
    const errno = (error as NodeJS.ErrnoException).code;
    return errno === "ENOENT" || errno === "ENOTDIR";
  }
}
