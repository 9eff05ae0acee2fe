import { type AgentToolResult, type ToolExecution, messageOf } from "@toolhost/core";
import type { BashToolDetails } from "../details.js";
import { BashErrorCode } from "../errors.js";
import { ProxyUnavailableError, SandboxedCall } from "../sandbox/_call.js";
import { SandboxSetupError } from "../sandbox/_plan.js";
import type { SandboxUse } from "../sandbox/_use.js";
import { checkCwd, findShell, sandboxUnavailable, shellNotFound } from "./_preflight.js";
import { type Launch, ShellProcess } from "../_shell-process.js";
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

/** A call ready to start: its shell, where, and, sandboxed, its sandbox. */
export interface PreparedCall {
  shell: string;
  cwd: string;
  sandbox: SandboxedCall | undefined;
  /** Starts the process (a failure to start is a message, never a throw). */
  start(): Promise<ShellProcess | { failure: string; refused: boolean }>;
}

type Refusal = { refusal: AgentToolResult<BashToolDetails> };

/** Checks the folder and the shell, makes the sandbox: the call ready to start, or the result that refuses it. */
export async function prepareCall(given: CallSettings, call: CallRecord, execution: ToolExecution | undefined, signal: AbortSignal | undefined): Promise<PreparedCall | Refusal> {
  const settings = withCarrier(given, execution);
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
  if (use.kind !== "bwrap") {
    const launch: Launch = { file: shell, args: shellArgs.slice(1), cwd, env: settings.env };
    return { shell, cwd, sandbox: undefined, start: () => ShellProcess.start(launch) };
  }
  const made = await makeSandbox(use, settings, shell, call, execution, signal);
  if ("refusal" in made) return made;
  call.sandbox = made.details(call.sandbox);
  return { shell, cwd, sandbox: made, start: () => made.start(shellArgs, cwd, settings.env) };
}

/**
 * The call's trace context (core's `execution.carrier()`: `traceparent`, `tracestate`) in the
 * shell's environment, upper-cased as OpenTelemetry's environment carrier reads it, so that a
 * program the command runs continues the call's trace. Nothing when no one fills the carrier.
 */
function withCarrier(settings: CallSettings, execution: ToolExecution | undefined): CallSettings {
  const carrier = execution?.carrier() ?? {};
  const keys = Object.keys(carrier);
  if (keys.length === 0) return settings;
  const env = { ...settings.env };
  for (const key of keys) if (/^[a-z][a-z0-9_-]*$/i.test(key)) env[key.toUpperCase().replace(/-/g, "_")] = carrier[key] as string;
  return { ...settings, env };
}

async function makeSandbox(
  use: Extract<SandboxUse, { kind: "bwrap" }>,
  settings: CallSettings,
  shell: string,
  call: CallRecord,
  execution: ToolExecution | undefined,
  signal: AbortSignal | undefined,
): Promise<SandboxedCall | Refusal> {
  const folder = settings.visible();
  const prlimit = use.settings.limits?.prlimit?.path;
  const place = { cwd: settings.cwd, programs: prlimit ? [shell, prlimit] : [shell], visible: folder !== undefined ? [folder] : [], env: settings.env };
  try {
    return await SandboxedCall.make(use, place, execution, signal);
  } catch (error) {
    if (error instanceof ProxyUnavailableError) return { refusal: call.refusal(BashErrorCode.PROXY_UNAVAILABLE, error.message) };
    const why = error instanceof SandboxSetupError ? error.message : `setting it up failed: ${messageOf(error)}`;
    return { refusal: call.refusal(BashErrorCode.SANDBOX_FAILED, `Refused: the command's sandbox could not be made: ${why}`) };
  }
}
