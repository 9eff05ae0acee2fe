import type {
  AssistantMessage,
  AssistantMessageEvent,
  StopReason,
  TextContent,
  ThinkingContent,
  ToolCall,
  Usage,
} from "@toolhost/core";

/**
 * A streamed chunk as OpenAI-compatible servers send it. Looser than the SDK's type on purpose:
 * servers leave fields out, and some add their own (`reasoning_content`, `reasoning`).
 */
export interface ChatChunk {
  model?: string;
  choices?: {
    index?: number;
    delta?: {
      content?: string | null;
      refusal?: string | null;
      reasoning_content?: string | null;
      reasoning?: string | null;
      tool_calls?: ChunkToolCall[] | null;
    } | null;
    finish_reason?: string | null;
  }[];
  usage?: ChunkUsage | null;
}

interface ChunkToolCall {
  index?: number;
  id?: string | null;
  function?: { name?: string | null; arguments?: string | null } | null;
}

interface ChunkUsage {
  prompt_tokens?: number;
  completion_tokens?: number;
  total_tokens?: number;
  prompt_tokens_details?: { cached_tokens?: number | null } | null;
  /** DeepSeek's name for cached prompt tokens. */
  prompt_cache_hit_tokens?: number;
}

interface ToolCallSlot {
  /** Its place among the message's tool calls: the `index` of its `toolcall_delta` events. */
  position: number;
  id: string;
  name: string;
  rawArguments: string;
}

type Block = TextContent | ThinkingContent | ToolCallSlot;

/** Builds one assistant message from the chunks of its stream, and says what each chunk added. */
export class MessageAssembler {
  readonly #blocks: Block[] = [];
  readonly #slots: ToolCallSlot[] = [];
  /** The server's `index` of a tool call → its slot. */
  readonly #byIndex = new Map<number, ToolCallSlot>();
  #lastIndex: number | undefined;
  #finishReason: string | undefined;
  #usage: Usage | undefined;
  #model: string | undefined;

  /** Whether the server said why the model stopped: without it the message is incomplete. */
  get finished(): boolean {
    return this.#finishReason !== undefined;
  }

  push(chunk: ChatChunk): AssistantMessageEvent[] {
    const events: AssistantMessageEvent[] = [];
    if (typeof chunk.model === "string" && chunk.model.length > 0) this.#model = chunk.model;
    if (chunk.usage) this.#usage = usageOf(chunk.usage);
    // Only the first choice is read: toolhost never asks for more than one (`n` is not sent).
    const choice = chunk.choices?.find((each) => (each.index ?? 0) === 0);
    if (!choice) return events;
    const delta = choice.delta ?? {};

    const thinking = delta.reasoning_content ?? delta.reasoning;
    if (typeof thinking === "string" && thinking.length > 0) {
      this.#appendText("thinking", thinking);
      events.push({ type: "thinking_delta", delta: thinking });
    }
    for (const text of [delta.content, delta.refusal]) {
      if (typeof text === "string" && text.length > 0) {
        this.#appendText("text", text);
        events.push({ type: "text_delta", delta: text });
      }
    }
    for (const part of delta.tool_calls ?? []) {
      const slot = this.#slotFor(part);
      const id = part.id || undefined;
      const name = part.function?.name ?? undefined;
      const argumentsDelta = part.function?.arguments ?? "";
      if (id && !slot.id) slot.id = id;
      // Most servers send the name once; some repeat it whole in later chunks.
      if (name && slot.name !== name) slot.name += name;
      slot.rawArguments += argumentsDelta;
      events.push({
        type: "toolcall_delta",
        index: slot.position,
        ...(id ? { id } : {}),
        ...(name ? { name } : {}),
        argumentsDelta,
      });
    }
    if (typeof choice.finish_reason === "string" && choice.finish_reason.length > 0) {
      this.#finishReason = choice.finish_reason;
    }
    return events;
  }

  /**
   * The message as it stands. `failure` makes it an `error` or `aborted` message (its content is
   * what arrived before); otherwise the stop reason comes from the server's `finish_reason`.
   */
  message(modelId: string, failure?: { stopReason: "error" | "aborted"; errorMessage: string }): AssistantMessage {
    let stopReason: StopReason;
    let errorMessage = failure?.errorMessage;
    if (failure) {
      stopReason = failure.stopReason;
    } else {
      ({ stopReason, errorMessage } = this.#stopReason());
    }
    return {
      role: "assistant",
      content: this.#blocks.map((block) => ("position" in block ? toolCallOf(block) : { ...block })),
      stopReason,
      ...(this.#usage ? { usage: this.#usage } : {}),
      model: this.#model ?? modelId,
      ...(errorMessage !== undefined ? { errorMessage } : {}),
      timestamp: Date.now(),
    };
  }

  #stopReason(): { stopReason: StopReason; errorMessage?: string } {
    switch (this.#finishReason) {
      case "tool_calls":
      case "function_call":
        return { stopReason: "toolUse" };
      case "length":
        return { stopReason: "length" };
      case "content_filter":
        return {
          stopReason: "error",
          errorMessage:
            "The endpoint stopped the answer with finish_reason \"content_filter\": its content filter withheld the rest. Rephrase the request, or check the provider's content policy.",
        };
      case undefined:
        return {
          stopReason: "error",
          errorMessage:
            "The stream ended before the model finished (no chunk had a finish_reason), so the answer may be cut off. Try again; if it keeps happening, check the server's logs.",
        };
      default:
        // "stop", "eos" and the like. Some servers say "stop" after writing tool calls: the calls decide.
        return { stopReason: this.#slots.length > 0 ? "toolUse" : "stop" };
    }
  }

  #appendText(type: "text" | "thinking", delta: string): void {
    const last = this.#blocks.at(-1);
    if (type === "text" && last && "type" in last && last.type === "text") {
      last.text += delta;
    } else if (type === "thinking" && last && "type" in last && last.type === "thinking") {
      last.thinking += delta;
    } else {
      this.#blocks.push(type === "text" ? { type: "text", text: delta } : { type: "thinking", thinking: delta });
    }
  }

  #slotFor(part: ChunkToolCall): ToolCallSlot {
    const id = part.id || undefined;
    // Servers that leave out `index` send one call after the other; a new id starts the next one.
    const key = typeof part.index === "number" ? part.index : (this.#lastIndex ?? 0);
    this.#lastIndex = key;
    const existing = this.#byIndex.get(key);
    // Some servers give every call the same index and tell them apart by id.
    if (existing && !(id && existing.id && id !== existing.id)) return existing;
    const slot: ToolCallSlot = { position: this.#slots.length, id: "", name: "", rawArguments: "" };
    this.#slots.push(slot);
    this.#blocks.push(slot);
    this.#byIndex.set(key, slot);
    return slot;
  }
}

function toolCallOf(slot: ToolCallSlot): ToolCall {
  return {
    type: "toolCall",
    // A call needs an id for its result to answer; a few local servers send none.
    id: slot.id || `call_${slot.position}_${Math.random().toString(36).slice(2, 10)}`,
    name: slot.name,
    arguments: parseArguments(slot.rawArguments),
  };
}

/**
 * The arguments as the model wrote them: parsed JSON, `{}` when it wrote nothing, and the raw
 * string when it is not valid JSON, so the kernel's validation shows the model what it sent.
 */
function parseArguments(raw: string): unknown {
  if (raw.trim().length === 0) return {};
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

/**
 * `input` counts the prompt tokens not read from the cache, `cacheRead` those that were, so that
 * `input + cacheRead` is the prompt and no token is counted twice when usage is priced or summed.
 */
function usageOf(usage: ChunkUsage): Usage {
  const prompt = usage.prompt_tokens ?? 0;
  const output = usage.completion_tokens ?? 0;
  const cacheRead = usage.prompt_tokens_details?.cached_tokens ?? usage.prompt_cache_hit_tokens ?? 0;
  return {
    input: Math.max(0, prompt - cacheRead),
    output,
    cacheRead,
    cacheWrite: 0,
    totalTokens: usage.total_tokens ?? prompt + output,
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
  };
}
