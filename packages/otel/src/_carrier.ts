import { type Span, context, isSpanContextValid, propagation, trace } from "@opentelemetry/api";

/**
 * Fills a call's carrier (the `propagate` hook) with its span's trace context: whatever the global
 * propagator writes (baggage, another format), then W3C `traceparent` / `tracestate` for the span
 * itself, written here so that they are there even when no SDK registered a propagator (the API's
 * default writes nothing). Nothing for a span without a valid context (no tracer, no parent).
 */
export function injectSpan(span: Span, carrier: Record<string, string>): void {
  const spanContext = span.spanContext();
  if (!isSpanContextValid(spanContext)) return;
  propagation.inject(trace.setSpan(context.active(), span), carrier);
  const flags = (spanContext.traceFlags & 0xff).toString(16).padStart(2, "0");
  carrier.traceparent = `00-${spanContext.traceId}-${spanContext.spanId}-${flags}`;
  const state = spanContext.traceState?.serialize();
  if (state) carrier.tracestate = state;
  else delete carrier.tracestate;
}
