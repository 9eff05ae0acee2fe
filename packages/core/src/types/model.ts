import type { AssistantStreamEvent, Message } from "./messages.js";
import type { AnyAgentTool } from "./tool.js";

/** The model a `StreamFn` is asked to use. */
export interface Model {
  /** The provider's model name, e.g. `gpt-4o-mini`. */
  id: string;
  /** Which provider serves it, for logs (`openai`, `ollama`, …). */
  provider?: string;
}

/** What the model sees of the conversation: the system prompt, the messages, the active tools. */
export interface AgentContext {
  systemPrompt?: string;
  messages: Message[];
  tools: AnyAgentTool[];
}

/** Streams one assistant message. */
export type StreamFn = (
  model: Model,
  context: AgentContext,
  options: { signal?: AbortSignal },
) => AsyncIterable<AssistantStreamEvent> | Promise<AsyncIterable<AssistantStreamEvent>>;

/**
 * What a provider plugin offers as the harness service `"model"`, and what `toolhost agent` reads
 * with `harness.getService<ModelService>("model")`: the model to ask and how to stream its answers.
 */
export interface ModelService {
  model: Model;
  streamFn: StreamFn;
  /**
   * Throws a `ToolhostError` when the model cannot be used as configured (no API key, say). The
   * host calls it when the model is first needed (`toolhost agent` refuses to start); a host that
   * needs no model may call it to warn, and goes on.
   */
  check?(): void;
}

