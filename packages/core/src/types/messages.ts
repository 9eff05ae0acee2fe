import type { ImageContent, TextContent, Usage } from "./content.js";

/** A tool call as the model wrote it. */
export interface ToolCall {
  type?: "toolCall";
  id: string;
  name: string;
  arguments: unknown;
}

/** The result of one tool call, as a message for the model's context. */
export interface ToolResultMessage<TDetails = unknown> {
  role: "toolResult";
  toolCallId: string;
  toolName: string;
  content: (TextContent | ImageContent)[];
  details: TDetails;
  isError: boolean;
  usage?: Usage;
  addedToolNames?: string[];
  terminate?: boolean;
  timestamp: number;
}

/** The model's reasoning, when the provider streams it. */
export interface ThinkingContent {
  type: "thinking";
  thinking: string;
}

export interface UserMessage {
  role: "user";
  content: string | (TextContent | ImageContent)[];
  timestamp: number;
}

/** Why the model stopped: `toolUse` (it wants its calls run), `stop`, `length` (cut off), `error`, `aborted`. */
export type StopReason = "stop" | "length" | "toolUse" | "error" | "aborted";

export interface AssistantMessage {
  role: "assistant";
  content: (TextContent | ThinkingContent | ToolCall)[];
  stopReason: StopReason;
  usage?: Usage;
  model?: string;
  /** What went wrong, when `stopReason` is `error` or `aborted`. */
  errorMessage?: string;
  /** How many times the provider retried the request before this answer (for people; never sent to the model). */
  retries?: number;
  timestamp: number;
}

export type Message = UserMessage | AssistantMessage | ToolResultMessage;

/** A piece of an assistant message as the provider streams it. */
export type AssistantMessageEvent =
  | { type: "text_delta"; delta: string }
  | { type: "thinking_delta"; delta: string }
  | { type: "toolcall_delta"; index: number; id?: string; name?: string; argumentsDelta: string };

/**
 * What a `StreamFn` yields: deltas while the message is written, then exactly one `done` with the
 * whole message (its tool calls parsed, its stop reason and usage). A provider error or an abort is
 * a `done` whose message has `stopReason` `"error"` or `"aborted"` and an `errorMessage`: a stream
 * does not throw.
 */
export type AssistantStreamEvent = AssistantMessageEvent | { type: "done"; message: AssistantMessage };

