import { Type, type AgentEvent, type AgentHarness, type AgentTool, type ExecutionMode, type ToolCall } from "@toolhost/core";

/** A tool that logs when each call starts and ends, and takes a few turns of the event loop. */
export function recordingTool(
  name: string,
  log: string[],
  options: { executionMode?: ExecutionMode; turns?: number } = {},
): AgentTool<ReturnType<typeof idSchema>> {
  let running = 0;
  return {
    name,
    label: name,
    description: `records its calls (${name})`,
    parameters: idSchema(),
    ...(options.executionMode ? { executionMode: options.executionMode } : {}),
    async execute(_id, { tag }) {
      running += 1;
      log.push(`start ${tag}`);
      for (let i = 0; i < (options.turns ?? 3); i++) await new Promise((r) => setImmediate(r));
      log.push(`end ${tag}`);
      running -= 1;
      return { content: [{ type: "text", text: `done ${tag}` }], details: { running } };
    },
  };
}

function idSchema() {
  return Type.Object({ tag: Type.String() });
}

export function call(name: string, tag: string, extra: Record<string, unknown> = {}): ToolCall {
  return { id: `id-${tag}`, name, arguments: { tag, ...extra } };
}

export function textOf(message: { content: { type: string; text?: string }[] }): string {
  return message.content.map((block) => (block.type === "text" ? block.text : `[${block.type}]`)).join("\n");
}

/** Every event of the harness, as `type:id` strings for the tool events. */
export function recordEvents(harness: AgentHarness): { events: AgentEvent[]; names: () => string[] } {
  const events: AgentEvent[] = [];
  harness.subscribe((event) => events.push(event));
  return {
    events,
    names: () =>
      events.map((event) =>
        "toolCallId" in event
          ? `${event.type}:${event.toolCallId}`
          : "message" in event && event.message.role === "toolResult"
            ? `${event.type}:${event.message.toolCallId}`
            : event.type,
      ),
  };
}

/** A promise with its resolve function outside. */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}
