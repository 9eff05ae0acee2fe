import type { AnyAgentTool } from "@toolhost/core";
import type { PublishedTool } from "./_job.js";
import type { QueueKeys } from "./_keys.js";
import type { RedisClient } from "./_redis.js";

/**
 * Writes this worker's tools (for hosts that lack them) and its heartbeat key (expiring after three
 * health intervals) to Redis, in one round trip.
 */
export async function publishTools(
  control: RedisClient,
  keys: QueueKeys,
  worker: { id: string; tools: readonly AnyAgentTool[]; running: number; healthEveryMs: number },
): Promise<void> {
  const now = Date.now();
  const entries = worker.tools.flatMap((tool) => {
    const published: PublishedTool = {
      name: tool.name,
      label: tool.label,
      description: tool.description,
      parameters: tool.parameters,
      ...(tool.annotations ? { annotations: tool.annotations } : {}),
      ...(tool.executionMode ? { executionMode: tool.executionMode } : {}),
      declares: typeof tool.access === "function",
      worker: worker.id,
      at: now,
    };
    return [tool.name, JSON.stringify(published)];
  });
  const heartbeat = JSON.stringify({ worker: worker.id, tools: worker.tools.map((tool) => tool.name), running: worker.running, at: now });
  const batch = control.multi().set(keys.worker(worker.id), heartbeat, "PX", worker.healthEveryMs * 3);
  if (entries.length > 0) batch.hset(keys.tools, ...entries);
  await batch.exec();
}
