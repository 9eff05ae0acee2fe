import { type Attributes, type Context, type Histogram, type Span, SpanKind, SpanStatusCode, type Tracer } from "@opentelemetry/api";
import { type AgentEvent, type AnyAgentHarness, ErrorCode, resultCode } from "@toolhost/core";
import { CallTable } from "./_calls.js";
import { contentText, resultValue } from "./_content.js";
import { type RuleLayers, decisionAttributes } from "./_decision.js";
import { DECISION_EVENT, GenAiAttributes as G, GenAiOperation, OTHER_ERROR } from "./names.js";

type Event<T extends AgentEvent["type"]> = Extract<AgentEvent, { type: T }>;

/** What the tool spans need to know, fixed when the plugin is applied. */
export interface ToolSpanSettings {
  tracer: Tracer;
  duration: Histogram;
  harness: AnyAgentHarness;
  layers: RuleLayers;
  captureContent: boolean;
  maxContentLength: number;
  toolType: string;
  /** The context a call's span starts in: its agent turn's, or the caller's active one. */
  parentOf(toolCallId: string): Context;
}

interface OpenCall {
  span: Span;
  name: string;
  /** The authorize stage's decision on the call itself (not on what it asked about later). */
  decision?: Event<"tool_execution_decision">;
}

/** Names and descriptions are the model's words when no tool has them: bounded on a span. */
const MAX_NAME = 200;
const MAX_DESCRIPTION = 1024;

/** One `execute_tool` span per call, from its start event to its end event, and its duration in the histogram. */
export class ToolSpans {
  readonly #open = new CallTable<OpenCall>();

  constructor(private readonly settings: ToolSpanSettings) {}

  start(event: Event<"tool_execution_start">): void {
    const { tracer, harness, toolType, captureContent } = this.settings;
    const name = event.toolName.length > MAX_NAME ? event.toolName.slice(0, MAX_NAME) : event.toolName;
    const attributes: Attributes = {
      [G.OPERATION_NAME]: GenAiOperation.EXECUTE_TOOL,
      [G.TOOL_NAME]: name,
      [G.TOOL_CALL_ID]: event.toolCallId,
      [G.TOOL_TYPE]: toolType,
    };
    const description = harness.getTool(event.toolName)?.description;
    if (description) attributes[G.TOOL_DESCRIPTION] = description.length > MAX_DESCRIPTION ? `${description.slice(0, MAX_DESCRIPTION)}…` : description;
    if (captureContent) attributes[G.TOOL_CALL_ARGUMENTS] = this.#content(event.args);
    const span = tracer.startSpan(`execute_tool ${name}`, { kind: SpanKind.INTERNAL, attributes }, this.settings.parentOf(event.toolCallId));
    this.#open.add(event.toolCallId, { span, name });
  }

  decide(event: Event<"tool_execution_decision">): void {
    const call = this.#open.get(event.toolCallId);
    if (call === undefined) return;
    if (event.access === undefined) call.decision = event;
    if (call.span.isRecording()) call.span.addEvent(DECISION_EVENT, decisionAttributes(event, this.settings.layers, this.settings.captureContent));
  }

  end(event: Event<"tool_execution_end">): void {
    const call = this.#open.take(event.toolCallId);
    if (call === undefined) return;
    const { span } = call;
    const { result, isError } = event;
    const errorType = isError ? (resultCode(result) ?? OTHER_ERROR) : undefined;
    if (span.isRecording()) {
      if (call.decision) span.setAttributes(decisionAttributes(call.decision, this.settings.layers, this.settings.captureContent));
      if (errorType !== undefined) {
        span.setAttribute(G.ERROR_TYPE, errorType);
        span.setStatus({ code: SpanStatusCode.ERROR, message: statusText(errorType) });
      } else if (this.settings.captureContent) {
        span.setAttribute(G.TOOL_CALL_RESULT, this.#content(resultValue(result)));
      }
    }
    span.end();
    const attributes: Attributes = { [G.TOOL_NAME]: unknownTool(errorType) ? OTHER_ERROR : call.name, [G.TOOL_TYPE]: this.settings.toolType };
    if (errorType !== undefined) attributes[G.ERROR_TYPE] = errorType;
    this.settings.duration.record(event.durationMs / 1000, attributes);
  }

  /** The span of a call under way, for its trace context. */
  spanOf(toolCallId: string): Span | undefined {
    return this.#open.get(toolCallId)?.span;
  }

  #content(value: unknown): string {
    return contentText(this.settings.harness.hooks.redact, value, this.settings.maxContentLength);
  }
}

/** A call of no known tool names whatever the model wrote: kept out of the metric's attributes (their cardinality is the model's). */
function unknownTool(errorType: string | undefined): boolean {
  return errorType === ErrorCode.TOOL_NOT_FOUND || errorType === ErrorCode.INVALID_CALL;
}

const REFUSED: ReadonlySet<string> = new Set([ErrorCode.BLOCKED, ErrorCode.NOT_APPROVED, ErrorCode.POLICY_FAILED]);

/** The span status's description: what kind of failure, never what the call said. */
function statusText(errorType: string): string {
  if (REFUSED.has(errorType)) return `refused (${errorType})`;
  if (errorType === ErrorCode.ABORTED) return "aborted";
  if (errorType === ErrorCode.TIMED_OUT) return "timed out";
  return `failed (${errorType})`;
}
