import type { AgentContext, AssistantMessage, AssistantStreamEvent, Model, StreamFn } from "@toolhost/core";

export const MODEL: Model = { id: "fake-model", provider: "openai" };

export function userContext(text: string, extra: Partial<AgentContext> = {}): AgentContext {
  return { messages: [{ role: "user", content: text, timestamp: 1 }], tools: [], ...extra };
}

/** Every event of one stream, and its final message; fails the test if the stream throws or has no single `done` last. */
export async function collect(
  streamFn: StreamFn,
  context: AgentContext,
  options: { signal?: AbortSignal; onEvent?: (event: AssistantStreamEvent) => void } = {},
): Promise<{ events: AssistantStreamEvent[]; message: AssistantMessage }> {
  const events: AssistantStreamEvent[] = [];
  for await (const event of await streamFn(MODEL, context, options.signal ? { signal: options.signal } : {})) {
    events.push(event);
    options.onEvent?.(event);
  }
  const dones = events.filter((event) => event.type === "done");
  const last = events.at(-1);
  if (dones.length !== 1 || last?.type !== "done") {
    throw new Error(`expected exactly one done event, last; got ${JSON.stringify(events.map((event) => event.type))}`);
  }
  return { events, message: last.message };
}

export function textOf(message: AssistantMessage): string {
  return message.content.map((block) => (block.type === "text" ? block.text : "")).join("");
}
