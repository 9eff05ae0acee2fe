import { type AgentToolResult, ErrorCode, ToolhostError } from "@toolhost/core";
import type { BashToolDetails } from "./details.js";

/** Stable codes in `details.code` of the bash tool's error results. */
export const BashErrorCode = Object.freeze({
  /** The working directory does not exist or is not a folder. */
  CWD_NOT_FOUND: "TOOLHOST_BASH_CWD_NOT_FOUND",
  /** The shell (the `shell` option, or bash and sh) was not found. */
  SHELL_NOT_FOUND: "TOOLHOST_BASH_SHELL_NOT_FOUND",
  /** The operating system refused to start the shell. */
  SPAWN_FAILED: "TOOLHOST_BASH_SPAWN_FAILED",
  /** The command ran longer than its timeout and was ended. */
  TIMED_OUT: "TOOLHOST_BASH_TIMED_OUT",
  /** The command exited with a code other than 0, or was ended by a signal. */
  COMMAND_FAILED: "TOOLHOST_BASH_COMMAND_FAILED",
  /** `sandbox: "required"` and no sandbox can be made here (the message says why and how to install one). */
  SANDBOX_UNAVAILABLE: "TOOLHOST_BASH_SANDBOX_UNAVAILABLE",
  /** The sandbox of this call could not be set up (the policy could not list what to hide, a path cannot be hidden). */
  SANDBOX_FAILED: "TOOLHOST_BASH_SANDBOX_FAILED",
  /** The command reached one of the sandbox's limits (processes, memory, file size, CPU time, open files); `details.limitExceeded` says which. */
  LIMIT_EXCEEDED: "TOOLHOST_BASH_LIMIT_EXCEEDED",
  /** Network "proxy" cannot be had for this call: no harness to ask (the tool was called directly), no nsenter, or its network could not be made. */
  PROXY_UNAVAILABLE: "TOOLHOST_BASH_PROXY_UNAVAILABLE",
} as const);

/** Thrown when the call's signal aborts it; carries the output so far. */
export class BashAbortedError extends ToolhostError {
  override name = "AbortError";
  readonly result: AgentToolResult<BashToolDetails>;

  constructor(message: string, result: AgentToolResult<BashToolDetails>) {
    super(ErrorCode.ABORTED, message);
    this.result = result;
  }
}
