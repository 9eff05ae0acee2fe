import { type Attributes, type Context, type Span, SpanKind, SpanStatusCode, type Tracer, context, trace } from "@opentelemetry/api";
import type { AgentEvent, AnyAgentHarness, AssistantMessage } from "@toolhost/core";
import { GenAiAttributes as G, GenAiOperation, OTHER_ERROR } from "./names.js";

interface AgentRun {
  span: Span;
  /** The model turn being streamed. */
  chat?: Span;
  /** The ids of the calls the model asked for in this run that have not started yet: their spans are children of this run. */
  calls: Set<string>;
  lastStop?: AssistantMessage["stopReason"];
}

/**
 * The agent loop's spans: `invoke_agent {agent}` from `agent_start` to `agent_end`, a `chat {model}`
 * span for each assistant message streamed, and the parent of each tool call the model asked for
 * in the run (the calls of a turn are siblings under it). Runs nest (an agent run inside a tool
 * call on the same harness): the latest is the parent of what it asked for.
 */
export class AgentSpans {
  readonly #runs: AgentRun[] = [];

  constructor(
    private readonly tracer: Tracer,
    private readonly harness: AnyAgentHarness,
    private readonly agentName: string,
  ) {}

  on(event: AgentEvent): void {
    switch (event.type) {
      case "agent_start":
        this.#start();
        return;
      case "message_start":
        if (event.message.role === "assistant") this.#chatStart();
        return;
      case "message_end":
        if (event.message.role === "assistant") this.#chatEnd(event.message);
        return;
      case "agent_end":
        this.#end();
        return;
      default:
        return;
    }
  }

  /** The context a call's span starts in: the run whose model asked for it, else the caller's. */
  parentOf(toolCallId: string): Context {
    for (let i = this.#runs.length - 1; i >= 0; i--) {
      const run = this.#runs[i] as AgentRun;
      if (run.calls.delete(toolCallId)) return trace.setSpan(context.active(), run.span);
    }
    return context.active();
  }

  #start(): void {
    const attributes: Attributes = { [G.OPERATION_NAME]: GenAiOperation.INVOKE_AGENT, [G.AGENT_NAME]: this.agentName, ...this.#model() };
    const span = this.tracer.startSpan(`invoke_agent ${this.agentName}`, { kind: SpanKind.INTERNAL, attributes }, context.active());
    this.#runs.push({ span, calls: new Set() });
  }

  #chatStart(): void {
    const run = this.#runs.at(-1);
    if (run === undefined) return;
    run.chat?.end();
    const model = this.#model();
    const name = typeof model[G.REQUEST_MODEL] === "string" ? `chat ${model[G.REQUEST_MODEL]}` : "chat";
    const attributes: Attributes = { [G.OPERATION_NAME]: GenAiOperation.CHAT, ...model };
    run.chat = this.tracer.startSpan(name, { kind: SpanKind.CLIENT, attributes }, trace.setSpan(context.active(), run.span));
  }

  #chatEnd(message: AssistantMessage): void {
    const run = this.#runs.at(-1);
    if (run === undefined) return;
    for (const block of message.content) if (block.type === "toolCall") run.calls.add(block.id);
    run.lastStop = message.stopReason;
    const chat = run.chat;
    run.chat = undefined;
    if (chat === undefined) return;
    if (chat.isRecording()) chat.setAttributes(responseAttributes(message));
    if (message.stopReason === "error" || message.stopReason === "aborted") {
      chat.setAttribute(G.ERROR_TYPE, message.stopReason === "aborted" ? "TOOLHOST_ABORTED" : OTHER_ERROR);
      chat.setStatus({ code: SpanStatusCode.ERROR, message: message.stopReason });
    }
    chat.end();
  }

  #end(): void {
    const run = this.#runs.pop();
    if (run === undefined) return;
    run.chat?.end();
    if (run.lastStop === "error" || run.lastStop === "aborted") {
      run.span.setAttribute(G.ERROR_TYPE, run.lastStop === "aborted" ? "TOOLHOST_ABORTED" : OTHER_ERROR);
      run.span.setStatus({ code: SpanStatusCode.ERROR, message: run.lastStop });
    }
    run.span.end();
  }

  /** The model the host's model service names, when there is one. */
  #model(): Attributes {
    const model = this.harness.getService("model")?.model;
    if (model === undefined) return {};
    return { [G.REQUEST_MODEL]: model.id, ...(model.provider !== undefined && { [G.PROVIDER_NAME]: model.provider }) };
  }
}

function responseAttributes(message: AssistantMessage): Attributes {
  const attributes: Attributes = { [G.RESPONSE_FINISH_REASONS]: [message.stopReason] };
  if (message.model !== undefined) attributes[G.RESPONSE_MODEL] = message.model;
  const usage = message.usage;
  if (usage !== undefined) {
    // toolhost's `input` leaves out the prompt tokens read from the cache; the conventions count them in.
    attributes[G.USAGE_INPUT_TOKENS] = usage.input + usage.cacheRead + usage.cacheWrite;
    attributes[G.USAGE_OUTPUT_TOKENS] = usage.output;
    if (usage.cacheRead > 0) attributes[G.USAGE_CACHE_READ_INPUT_TOKENS] = usage.cacheRead;
  }
  return attributes;
}
