import { messageOf } from "@toolhost/core";
import { CallFailure, type ServerState } from "./_connection.js";
import { McpErrorCode } from "./errors.js";
import { faultOf } from "./_faults.js";
import { errorResult, type McpResultDetails } from "./results.js";
import type { AgentToolResult } from "@toolhost/core";

/** Where a call went, for its error result. */
export interface FailedCall {
  server: string;
  tool: string;
  toolTimeoutMs: number | undefined;
}

const NO_STATE: ServerState = { exit: undefined, stderrTail: "", unfinishedBytes: 0 };

/**
 * The error result of a call that did not get an answer: aborted, ended by tool-mcp for what the
 * server sent (a fault: its code and why), timed out, the server gone (with how it ended, the end
 * of its stderr and a message it left cut off), or refused on the protocol level.
 */
export function failedCall(error: unknown, call: FailedCall, signal: AbortSignal): AgentToolResult<McpResultDetails> {
  const { server, tool } = call;
  const cause = error instanceof CallFailure ? error.error : error;
  const state = error instanceof CallFailure ? error.server : NO_STATE;
  const message = messageOf(cause);
  if (signal.aborted) {
    return errorResult("TOOLHOST_ABORTED", `The call of ${tool} on MCP server "${server}" was aborted; the server was sent a cancellation.`, server, tool);
  }
  const fault = faultOf(cause);
  if (fault) return errorResult(fault.code, `The call of ${tool} on MCP server "${server}" ended: the server ${fault.text}.`, server, tool);
  if (/time(d)? ?out/i.test(message) && call.toolTimeoutMs !== undefined) {
    return errorResult(
      McpErrorCode.TIMED_OUT,
      `MCP server "${server}" did not answer ${tool} within ${call.toolTimeoutMs / 1000} s (tool-mcp's toolTimeout); the call was cancelled.`,
      server,
      tool,
    );
  }
  const exit = state.exit;
  if (exit || /closed|not running|did not start|ECONNREFUSED|fetch failed/i.test(message)) {
    const how = exit ? ` (${exit.signal ? `signal ${exit.signal}` : `exit code ${exit.code}`})` : "";
    const cut = state.unfinishedBytes > 0 ? ` Its last message was cut off after ${state.unfinishedBytes} bytes.` : "";
    const stderr = state.stderrTail ? `\nIts stderr ended with:\n${state.stderrTail.split("\n").slice(-12).join("\n")}` : "";
    return errorResult(McpErrorCode.SERVER_EXITED, `MCP server "${server}" stopped during the call of ${tool}${how}: ${message}.${cut} The next call starts it again.${stderr}`, server, tool);
  }
  return errorResult(McpErrorCode.CALL_FAILED, `MCP server "${server}" refused the call of ${tool}: ${message}`, server, tool);
}
