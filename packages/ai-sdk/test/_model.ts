import { MockLanguageModelV3, simulateReadableStream } from "ai/test";

/** One answer of the scripted model: tool calls (name and input), or text. */
export type Turn = { calls: { id: string; name: string; input: unknown }[] } | { text: string };

type GenerateResult = Awaited<ReturnType<MockLanguageModelV3["doGenerate"]>>;
type StreamPart = Awaited<ReturnType<MockLanguageModelV3["doStream"]>>["stream"] extends ReadableStream<infer T> ? T : never;
type CallOptions = MockLanguageModelV3["doGenerateCalls"][number];

const USAGE = {
  inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 5, text: 5, reasoning: 0 },
};

/**
 * The AI SDK's own mock model (`ai/test`), scripted: each request (generateText's or streamText's)
 * answers with the next turn. `prompts` keeps what it was sent, so a test reads what the model saw
 * of each tool result.
 */
export function scriptedModel(turns: Turn[]): { model: MockLanguageModelV3; prompts: CallOptions["prompt"][] } {
  let next = 0;
  const prompts: CallOptions["prompt"][] = [];
  const take = (options: CallOptions): Turn => {
    prompts.push(options.prompt);
    const turn = turns[next++];
    if (turn === undefined) throw new Error(`the scripted model was asked ${next} times, but has ${turns.length} turns`);
    return turn;
  };
  const model = new MockLanguageModelV3({
    doGenerate: async (options) => generated(take(options)),
    doStream: async (options) => ({ stream: simulateReadableStream({ chunks: streamed(take(options)), chunkDelayInMs: null, initialDelayInMs: null }) }),
  });
  return { model, prompts };
}

function generated(turn: Turn): GenerateResult {
  if ("text" in turn) {
    return { content: [{ type: "text", text: turn.text }], finishReason: { unified: "stop", raw: "stop" }, usage: USAGE, warnings: [] } as GenerateResult;
  }
  return {
    content: turn.calls.map((call) => ({ type: "tool-call", toolCallId: call.id, toolName: call.name, input: JSON.stringify(call.input) })),
    finishReason: { unified: "tool-calls", raw: "tool_calls" },
    usage: USAGE,
    warnings: [],
  } as GenerateResult;
}

function streamed(turn: Turn): StreamPart[] {
  const finish = (unified: "stop" | "tool-calls") => ({ type: "finish" as const, finishReason: { unified, raw: unified }, usage: USAGE });
  if ("text" in turn) {
    return [
      { type: "stream-start" as const, warnings: [] },
      { type: "text-start" as const, id: "t" },
      { type: "text-delta" as const, id: "t", delta: turn.text },
      { type: "text-end" as const, id: "t" },
      finish("stop"),
    ];
  }
  return [
    { type: "stream-start" as const, warnings: [] },
    ...turn.calls.map((call) => ({ type: "tool-call" as const, toolCallId: call.id, toolName: call.name, input: JSON.stringify(call.input) })),
    finish("tool-calls"),
  ];
}

/** The tool results in a prompt the model was sent, by call id: what the model read of each. */
export function toolOutputsIn(prompt: CallOptions["prompt"] | undefined): Record<string, { type: string; value?: unknown; reason?: string }> {
  const outputs: Record<string, { type: string; value?: unknown; reason?: string }> = {};
  for (const message of prompt ?? []) {
    if (message.role !== "tool") continue;
    for (const part of message.content) if (part.type === "tool-result") outputs[part.toolCallId] = part.output as { type: string; value?: unknown };
  }
  return outputs;
}
