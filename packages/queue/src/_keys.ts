import { createHash, randomBytes } from "node:crypto";
import { hostname } from "node:os";

/** The consumer group every worker of a queue reads its jobs stream in. */
export const GROUP = "workers";

/**
 * The Redis keys of one queue. Every key starts with the hash tag `{<prefix>:<queue>}`, so that a
 * queue's keys share one hash slot (one master of a Redis Cluster), as its scripts need.
 */
export interface QueueKeys {
  queue: string;
  tag: string;
  /** Stream: the jobs, read by the workers' consumer group. */
  jobs: string;
  /** String: what became of a call (its content's hash, and the worker's signed answer when it finished). */
  call(callId: string): string;
  /** String: how many times workers started a call (a second start is a re-delivery or a copy). */
  run(callId: string): string;
  /** Stream: the answers and updates for one host. */
  reply(hostId: string): string;
  /** Channel: the call ids whose callers aborted. */
  cancel: string;
  /** Hash: the tools the queue's workers offer. */
  tools: string;
  /** String: a worker's heartbeat. */
  worker(workerId: string): string;
}

export function keysOf(prefix: string, queue: string): QueueKeys {
  const tag = `{${prefix}:${queue}}`;
  return {
    queue,
    tag,
    jobs: `${tag}:jobs`,
    call: (callId) => `${tag}:call:${idPart(callId)}`,
    run: (callId) => `${tag}:run:${idPart(callId)}`,
    reply: (hostId) => `${tag}:reply:${hostId}`,
    cancel: `${tag}:cancel`,
    tools: `${tag}:tools`,
    worker: (workerId) => `${tag}:worker:${workerId}`,
  };
}

/**
 * A call id as part of a key: escaped, or hashed when long. Two ids never meet: the hashed form
 * starts with "#", which an escaped id never holds (encodeURIComponent writes it %23), so no short
 * id can name a long one's key.
 */
function idPart(callId: string): string {
  const escaped = encodeURIComponent(callId);
  return escaped.length <= 200 ? escaped : `#sha256-${createHash("sha256").update(callId).digest("hex")}`;
}

/** Which of a host's queues a call goes to: always the same for one call id, spread evenly over many. */
export function shardOf(callId: string, count: number): number {
  if (count <= 1) return 0;
  return createHash("sha256").update(callId).digest().readUInt32BE(0) % count;
}

/** A host's or worker's id: host name, pid and a random part (containers often share pid 1). */
export function processId(): string {
  // Key-safe: letters, digits and a few marks.
  const host = hostname().replace(/[^A-Za-z0-9_.-]/g, "_").slice(0, 100) || "host";
  return `${host}:${process.pid}:${randomBytes(3).toString("hex")}`;
}

/** Whether a host id read from a job can name a key: as `processId` makes them. */
export function isProcessId(text: unknown): text is string {
  return typeof text === "string" && /^[A-Za-z0-9_.-]{1,100}:\d{1,10}:[0-9a-f]{6}$/.test(text);
}
