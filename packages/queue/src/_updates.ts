import type { AgentHarness, AgentToolUpdate } from "@toolhost/core";
import { bound } from "./_bound.js";
import type { CallJob } from "./_job.js";

/** Sends the tool's updates on (bounded), at most one per `updateIntervalMs` (the latest wins). */
export function forwardUpdates(harness: AgentHarness, data: CallJob, send: (update: AgentToolUpdate) => Promise<unknown>): () => void {
  let latest: AgentToolUpdate | undefined;
  let timer: NodeJS.Timeout | undefined;
  let last = 0;
  const flush = (): void => {
    timer = undefined;
    if (!latest) return;
    const update = bound({ content: latest.content, details: latest.details }, data.limits.maxUpdateBytes);
    latest = undefined;
    last = Date.now();
    send(update).catch(() => undefined);
  };
  const stop = harness.subscribe((event) => {
    if (event.type !== "tool_execution_update" || event.toolCallId !== data.call.id) return;
    latest = event.partialResult;
    if (timer) return;
    const wait = data.limits.updateIntervalMs - (Date.now() - last);
    if (wait <= 0) flush();
    else timer = setTimeout(flush, wait);
  });
  return () => {
    stop();
    if (timer) clearTimeout(timer);
  };
}
