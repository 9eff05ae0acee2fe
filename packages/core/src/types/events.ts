import type { ApprovalOutcome } from "./approval.js";
import type { AssistantMessage, AssistantMessageEvent, Message, ToolResultMessage } from "./messages.js";
import type { PolicyDecision } from "./policy.js";
import type { AgentToolResult, AgentToolUpdate, ToolAccess } from "./tool.js";

/**
 * Everything the harness and the agent tell their listeners, in order:
 * `agent_start`, then per turn `turn_start`, the assistant message's `message_*` events,
 * the tool events of its calls, each tool result's `message_start` / `message_end` in the calls'
 * order, `turn_end`; finally `agent_end`.
 */
export type AgentEvent =
  | { type: "agent_start" }
  | { type: "agent_end"; messages: Message[] }
  | { type: "turn_start" }
  | { type: "turn_end"; message: AssistantMessage; toolResults: ToolResultMessage[] }
  | { type: "message_start"; message: Message }
  | { type: "message_update"; message: AssistantMessage; assistantMessageEvent: AssistantMessageEvent }
  | { type: "message_end"; message: Message }
  | { type: "tool_execution_start"; toolCallId: string; toolName: string; args: unknown }
  | {
      type: "tool_execution_update";
      toolCallId: string;
      toolName: string;
      args: unknown;
      partialResult: AgentToolUpdate;
    }
  | {
      /**
       * What the authorize stage decided about a call (after the approval, when it asked), or about
       * more of a running call (`access` then says what: `ToolExecution.authorize`). `by` is the tap
       * that decided (none when no tap answered: allowed); `reason` and `details` are redacted.
       */
      type: "tool_execution_decision";
      toolCallId: string;
      toolName: string;
      decision: PolicyDecision;
      by?: string;
      reason?: string;
      details?: Record<string, unknown>;
      approval?: ApprovalOutcome;
      access?: ToolAccess;
    }
  | {
      type: "tool_execution_end";
      toolCallId: string;
      toolName: string;
      result: AgentToolResult;
      isError: boolean;
      durationMs: number;
    };


export type AgentEventListener = (event: AgentEvent) => void;
