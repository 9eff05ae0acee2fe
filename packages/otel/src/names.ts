/**
 * The names this plugin writes: OpenTelemetry's GenAI semantic conventions (development status,
 * `execute_tool`, `invoke_agent`, `chat` spans and the `gen_ai.execute_tool.duration` histogram)
 * and toolhost's own `toolhost.*` attributes for what the conventions have no name for (the
 * policy's decision and the approval). Queries and dashboards can use these constants.
 */
export const GenAiAttributes = Object.freeze({
  OPERATION_NAME: "gen_ai.operation.name",
  TOOL_NAME: "gen_ai.tool.name",
  TOOL_CALL_ID: "gen_ai.tool.call.id",
  TOOL_TYPE: "gen_ai.tool.type",
  TOOL_DESCRIPTION: "gen_ai.tool.description",
  TOOL_CALL_ARGUMENTS: "gen_ai.tool.call.arguments",
  TOOL_CALL_RESULT: "gen_ai.tool.call.result",
  AGENT_NAME: "gen_ai.agent.name",
  PROVIDER_NAME: "gen_ai.provider.name",
  REQUEST_MODEL: "gen_ai.request.model",
  RESPONSE_MODEL: "gen_ai.response.model",
  RESPONSE_FINISH_REASONS: "gen_ai.response.finish_reasons",
  USAGE_INPUT_TOKENS: "gen_ai.usage.input_tokens",
  USAGE_OUTPUT_TOKENS: "gen_ai.usage.output_tokens",
  USAGE_CACHE_READ_INPUT_TOKENS: "gen_ai.usage.cache_read.input_tokens",
  ERROR_TYPE: "error.type",
});

/** `gen_ai.operation.name` values. */
export const GenAiOperation = Object.freeze({
  EXECUTE_TOOL: "execute_tool",
  INVOKE_AGENT: "invoke_agent",
  CHAT: "chat",
});

/**
 * toolhost's attributes on an `execute_tool` span (and on its `toolhost.decision` events): what the
 * authorize stage decided, who decided, the policy's rules and layers, and the approval.
 */
export const ToolhostAttributes = Object.freeze({
  /** `allow`, `deny`, or `ask` (asked, and not approved): the `tool_execution_decision` event's decision. */
  DECISION: "toolhost.decision",
  /** The tap that decided (`@toolhost/hooks-policy`). */
  DECISION_BY: "toolhost.decision.by",
  /** The ids of the policy's rules that decided (string[]). */
  DECISION_RULES: "toolhost.decision.rules",
  /** The layers of those rules (`recommended`, `config`, `org`), each once, in order (string[]). */
  DECISION_LAYERS: "toolhost.decision.layers",
  /** The decision's reason (it quotes the call): only when content capture is on. */
  DECISION_REASON: "toolhost.decision.reason",
  /** On a decision event: true for what a running call asked about later (`ToolExecution.authorize`). */
  DECISION_FOLLOW_UP: "toolhost.decision.follow_up",
  /** Whether someone was asked (the policy answered ask). */
  APPROVAL_ASKED: "toolhost.approval.asked",
  APPROVAL_APPROVED: "toolhost.approval.approved",
  /** The `approve` tap that answered. */
  APPROVAL_ANSWERED_BY: "toolhost.approval.answered_by",
  /** Where the answer came from, in the user's words (`terminal`, `application`, `--approve …`). */
  APPROVAL_VIA: "toolhost.approval.via",
  /** `once`, `session` or `always`. */
  APPROVAL_SCOPE: "toolhost.approval.scope",
  /** True when a locked layer holds the ask (only a person can answer it). */
  APPROVAL_LOCKED: "toolhost.approval.locked",
});

/** The name of the span event for each decision on a call. */
export const DECISION_EVENT = "toolhost.decision";

/** The duration histogram of tool calls (seconds), and its bucket boundaries as the conventions advise. */
export const EXECUTE_TOOL_DURATION = "gen_ai.execute_tool.duration";
export const DURATION_BUCKETS: readonly number[] = Object.freeze([
  0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92,
]);

/** `error.type` when a failed result carries no code. */
export const OTHER_ERROR = "_OTHER";
