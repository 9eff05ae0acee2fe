import { type AgentToolResult, messageOf } from "@toolhost/core";
import type { BashToolDetails } from "../details.js";
import { BashErrorCode } from "../errors.js";
import { type SandboxPlan, SandboxSetupError, planSandbox } from "../sandbox/_plan.js";
import type { SandboxUse } from "../sandbox/_use.js";
import { checkCwd, findShell, sandboxUnavailable, shellNotFound } from "./_preflight.js";
import type { Launch } from "./_process.js";
import type { CallRecord } from "./_result.js";

/** What one call needs to know before it starts, from the tool's options and the call's arguments. */
export interface CallSettings {
  command: string;
  cwd: string;
  shell: string | undefined;
  env: Record<string, string>;
  /** Run before the command, on a line of its own. */
  commandPrefix: string | undefined;
  sandbox: SandboxUse;
  /** A folder to keep visible in the sandbox though it lies under /tmp (the full-output files). */
  visible: () => string | undefined;
}

/** A call ready to start: what to launch and, sandboxed, the plan it runs under. */
export interface PreparedCall {
  shell: string;
  launch: Launch;
  plan: SandboxPlan | undefined;
}

/** Checks the folder and the shell, plans the sandbox: the call ready to start, or the result that refuses it. */
export async function prepareCall(settings: CallSettings, call: CallRecord): Promise<PreparedCall | { refusal: AgentToolResult<BashToolDetails> }> {
  const { cwd } = settings;
  const problem = checkCwd(cwd);
  if (problem) return { refusal: call.refusal(BashErrorCode.CWD_NOT_FOUND, problem) };
  const pathVariable = settings.env.PATH ?? process.env.PATH;
  const shell = findShell(settings.shell, pathVariable, cwd);
  if (shell === undefined) return { refusal: call.refusal(BashErrorCode.SHELL_NOT_FOUND, shellNotFound(settings.shell, pathVariable)) };
  const use = settings.sandbox;
  if (use.kind === "refuse") return { refusal: call.refusal(BashErrorCode.SANDBOX_UNAVAILABLE, sandboxUnavailable(use.reason)) };
  const command = settings.commandPrefix !== undefined ? `${settings.commandPrefix}\n${settings.command}` : settings.command;
  const shellArgs = [shell, "-c", command];
  if (use.kind !== "bwrap") return { shell, plan: undefined, launch: { file: shell, args: shellArgs.slice(1), cwd, env: settings.env } };
  let plan: SandboxPlan;
  try {
    const folder = settings.visible();
    plan = await planSandbox({ ...use.settings, visible: folder !== undefined ? [folder] : [] }, cwd, use.policy());
  } catch (error) {
    const why = error instanceof SandboxSetupError ? error.message : `setting it up failed: ${messageOf(error)}`;
    return { refusal: call.refusal(BashErrorCode.SANDBOX_FAILED, `Refused: the command's sandbox could not be made: ${why}`) };
  }
  call.sandbox = {
    ...call.sandbox,
    writable: plan.writable,
    readOnly: plan.readOnly,
    hidden: plan.hidden,
    ...(plan.unbounded.length > 0 && { unbounded: plan.unbounded }),
  };
  return { shell, plan, launch: { file: use.settings.bwrap, args: [...plan.args, "--", ...shellArgs], cwd, env: settings.env } };
}
