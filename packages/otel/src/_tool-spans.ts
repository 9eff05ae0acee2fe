import { type Attributes, type Context, type Histogram, type Span, SpanKind, type SpanOptions, SpanStatusCode, type Tracer, INVALID_SPAN_CONTEXT, isSpanContextValid } from "@opentelemetry/api";
import { type AgentEvent, type AnyAgentHarness, ErrorCode, resultCode } from "@toolhost/core";
import { CallTable } from "./_calls.js";
import { contentText, resultValue } from "./_content.js";
import { type RuleLayers, decisionAttributes } from "./_decision.js";
import { DECISION_EVENT, GenAiAttributes as G, GenAiOperation, OTHER_ERROR } from "./names.js";

type Event<T extends AgentEvent["type"]> = Extract<AgentEvent, { type: T }>;

/** What the tool spans need to know, fixed when the plugin is applied. */
export interface ToolSpanSettings {
  tracer: Tracer;
  /** The duration histogram, made when first needed. */
  duration: () => Histogram;
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

/** How a tool's spans start. */
interface SpanShape {
  name: string;
  spanName: string;
  options: SpanOptions;
}

/** Names and descriptions are the model's words when no tool has them: bounded on a span. */
const MAX_NAME = 200;
const MAX_DESCRIPTION = 1024;
/** The most tools (and tool × error type pairs) whose span shape and metric attributes are kept. */
const MAX_SHAPES = 1024;

/** One `execute_tool` span per call, from its start event to its end event, and its duration in the histogram. */
export class ToolSpans {
  readonly #open = new CallTable<OpenCall>();
  readonly #shapes = new Map<string, SpanShape>();
  readonly #metric = new Map<string, Attributes>();

  constructor(private readonly settings: ToolSpanSettings) {}

  start(event: Event<"tool_execution_start">): void {
    const { tracer, captureContent } = this.settings;
    const shape = this.#shapeOf(event.toolName);
    const span = tracer.startSpan(shape.spanName, shape.options, this.settings.parentOf(event.toolCallId));
    // A span that records nothing and carries no trace (the API's no-op tracer, no parent) has nothing to keep.
    if (!span.isRecording()) {
      const spanContext = span.spanContext();
      if (spanContext !== INVALID_SPAN_CONTEXT && isSpanContextValid(spanContext)) this.#open.add(event.toolCallId, { span, name: shape.name });
      return;
    }
    span.setAttribute(G.TOOL_CALL_ID, event.toolCallId);
    if (captureContent) span.setAttribute(G.TOOL_CALL_ARGUMENTS, this.#content(event.args));
    this.#open.add(event.toolCallId, { span, name: shape.name });
  }

  /**
   * What every span of a tool starts with (its name, kind and attributes), made once per tool: a
   * call of a no-op tracer then allocates nothing of its own. Names no tool has (the model's) are
   * bounded and not kept.
   */
  #shapeOf(toolName: string): SpanShape {
    const known = this.#shapes.get(toolName);
    if (known !== undefined) return known;
    const name = toolName.length > MAX_NAME ? toolName.slice(0, MAX_NAME) : toolName;
    const attributes: Attributes = {
      [G.OPERATION_NAME]: GenAiOperation.EXECUTE_TOOL,
      [G.TOOL_NAME]: name,
      [G.TOOL_TYPE]: this.settings.toolType,
    };
    const tool = this.settings.harness.getTool(toolName);
    const description = tool?.description;
    if (description) attributes[G.TOOL_DESCRIPTION] = description.length > MAX_DESCRIPTION ? `${description.slice(0, MAX_DESCRIPTION)}…` : description;
    const shape: SpanShape = { name, spanName: `execute_tool ${name}`, options: { kind: SpanKind.INTERNAL, attributes } };
    if (tool !== undefined && this.#shapes.size < MAX_SHAPES) this.#shapes.set(toolName, shape);
    return shape;
  }

  decide(event: Event<"tool_execution_decision">): void {
    const call = this.#open.get(event.toolCallId);
    if (call === undefined) return;
    if (event.access === undefined) call.decision = event;
    if (call.span.isRecording()) call.span.addEvent(DECISION_EVENT, decisionAttributes(event, this.settings.layers, this.settings.captureContent));
  }

  end(event: Event<"tool_execution_end">): void {
    const { result, isError } = event;
    const errorType = isError ? (resultCode(result) ?? OTHER_ERROR) : undefined;
    const call = this.#open.take(event.toolCallId);
    if (call !== undefined) {
      const { span } = call;
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
    }
    this.settings.duration().record(event.durationMs / 1000, this.#metricAttributes(unknownTool(errorType) ? OTHER_ERROR : this.#shapeOf(event.toolName).name, errorType));
  }

  /** The histogram's attributes for a tool and an error type, made once each (bounded). */
  #metricAttributes(toolName: string, errorType: string | undefined): Attributes {
    const key = errorType === undefined ? toolName : `${toolName}\u0000${errorType}`;
    let attributes = this.#metric.get(key);
    if (attributes === undefined) {
      attributes = { [G.TOOL_NAME]: toolName, [G.TOOL_TYPE]: this.settings.toolType, ...(errorType !== undefined && { [G.ERROR_TYPE]: errorType }) };
      if (this.#metric.size < MAX_SHAPES) this.#metric.set(key, attributes);
    }
    return attributes;
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
