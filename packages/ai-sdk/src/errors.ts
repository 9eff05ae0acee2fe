import { type ToolResultMessage, textOf } from "@toolhost/core";

/** Stable codes of the errors this package reports. */
export const AiSdkErrorCode = Object.freeze({
  /** `fromAiSdkTools` was given a tool toolhost cannot run (no `execute`, or a provider-executed tool). */
  NOT_RUNNABLE: "TOOLHOST_AI_SDK_NOT_RUNNABLE",
  /** `fromAiSdkTools`'s `access` names a tool that is not in the set, or a field that is not a list of names. */
  INVALID_ACCESS: "TOOLHOST_AI_SDK_INVALID_ACCESS",
  /** A tool's input schema could not be turned into JSON Schema. */
  INVALID_SCHEMA: "TOOLHOST_AI_SDK_INVALID_SCHEMA",
  /** `toolhostTools` was given something that is neither a harness nor a host. */
  INVALID_SOURCE: "TOOLHOST_AI_SDK_INVALID_SOURCE",
  /** `toolhostTools(…, { approvals: "page" })` on a harness that has no `approvals` service (`@toolhost/approvals`). */
  NO_APPROVALS_PAGE: "TOOLHOST_AI_SDK_NO_APPROVALS_PAGE",
} as const);

/**
 * What a toolhost tool of `toolhostTools` throws when its call ended as an error result (refused
 * by the policy, not approved, aborted, invalid arguments, the tool's own failure): the AI SDK
 * makes it a `tool-error` part, and the model reads `message` (toolhost's own text, with the
 * reason) as the tool's error output. `code` is the result's stable code (`TOOLHOST_BLOCKED`, …),
 * `result` the whole result message (redacted like everything that leaves the kernel).
 */
export class ToolhostCallError extends Error {
  override name = "ToolhostCallError";
  readonly code: string;
  readonly toolName: string;
  readonly result: ToolResultMessage;

  constructor(result: ToolResultMessage) {
    super(textOf(result));
    this.result = result;
    this.toolName = result.toolName;
    const code = (result.details as { code?: unknown } | null | undefined)?.code;
    this.code = typeof code === "string" ? code : "TOOLHOST_TOOL_ERROR";
  }
}
