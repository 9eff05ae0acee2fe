import { createHash, createHmac } from "node:crypto";
import type { AgentToolResult } from "@toolhost/core";
import { Job, Queue, QueueEvents } from "bullmq";
import { Redis } from "ioredis";
import type { Testbed } from "./_helpers.js";

/** What a forger writes: a call, signed (or not) as docs/scaling.md says a host signs it. */
export interface ForgeOptions {
  /** The key to sign with; undefined: no signature. */
  key?: string | undefined;
  at?: number;
  jobId?: string;
  /** Changes the call after it was signed. */
  change?: (job: Record<string, unknown>) => Record<string, unknown>;
  /** A whole envelope to write instead (a copy of a real job). */
  envelope?: unknown;
  /** Remove the job of that id first (a finished one), so the copy can take its place. */
  removeFirst?: boolean;
}

/** JSON with sorted keys and no spaces (RFC 8785's key order), as the format says. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) =>
    item === null || typeof item !== "object" || Array.isArray(item)
      ? item
      : Object.fromEntries(Object.keys(item).sort().map((key) => [key, (item as Record<string, unknown>)[key]])),
  );
}

function signature(key: string, kind: "job" | "reply", text: string): string {
  const id = createHash("sha256").update(`toolhost-queue-key\n${key}`).digest("hex").slice(0, 12);
  return `v1.${id}.${createHmac("sha256", key).update(`toolhost-${kind}\n${text}`).digest("base64url")}`;
}

/**
 * Writes a job straight into the testbed's Redis, as anyone with access to it can, waits until a
 * worker answered it, and returns the result the worker gave.
 */
export async function forgeJob(bed: Testbed, call: { id: string; name: string; args: unknown } | undefined, options: ForgeOptions): Promise<AgentToolResult> {
  let envelope = options.envelope;
  if (call) {
    const job = {
      v: 2,
      queue: "calls",
      call: { id: call.id, name: call.name },
      args: call.args,
      delivery: "at-most-once",
      decision: { verdict: "allow", by: "a forger", decidedBy: "forger:1", approved: false },
      at: options.at ?? Date.now(),
      limits: { maxResultBytes: 262144, maxUpdateBytes: 16384, updateIntervalMs: 100 },
    };
    const signed = canonical(job);
    const text = options.change ? canonical(options.change(job)) : signed;
    envelope = { v: 2, job: text, ...(options.key !== undefined && { sig: signature(options.key, "job", signed) }) };
  }
  const connection = new Redis({ port: bed.redis.port, host: "127.0.0.1", maxRetriesPerRequest: null });
  const queue = new Queue("calls", { connection, prefix: "toolhost" });
  const events = new QueueEvents("calls", { connection: { port: bed.redis.port, host: "127.0.0.1" }, prefix: "toolhost" });
  try {
    await events.waitUntilReady();
    const jobId = options.jobId ?? `call-${encodeURIComponent(call?.id ?? "")}`;
    if (options.removeFirst) await (await Job.fromId(queue, jobId))?.remove();
    const added = await queue.add(call?.name ?? "bash", envelope, { jobId });
    const answer = (await added.waitUntilFinished(events)) as { reply: string };
    return (JSON.parse(answer.reply) as { result: AgentToolResult }).result;
  } finally {
    await events.close();
    await queue.close();
    connection.disconnect();
  }
}

/** The envelope of a job a host wrote (kept in Redis for the retention time). */
export async function signedJobOf(bed: Testbed, jobId: string): Promise<unknown> {
  const connection = new Redis({ port: bed.redis.port, host: "127.0.0.1", maxRetriesPerRequest: null });
  const queue = new Queue("calls", { connection, prefix: "toolhost" });
  try {
    return (await Job.fromId(queue, jobId))?.data;
  } finally {
    await queue.close();
    connection.disconnect();
  }
}

/** The call of the job a host finished last, as it signed it. */
export async function signedCallOf(bed: Testbed): Promise<CallRecord> {
  const connection = new Redis({ port: bed.redis.port, host: "127.0.0.1", maxRetriesPerRequest: null });
  const queue = new Queue("calls", { connection, prefix: "toolhost" });
  try {
    const jobs = await queue.getJobs(["completed"]);
    const last = jobs.sort((a, b) => (b.finishedOn ?? 0) - (a.finishedOn ?? 0))[0];
    return JSON.parse((last?.data as { job: string }).job) as CallRecord;
  } finally {
    await queue.close();
    connection.disconnect();
  }
}

/** What a test reads of a signed call. */
export interface CallRecord {
  call: { id: string; name: string };
  args: unknown;
  decision: Record<string, unknown> & { access?: { commands?: Array<{ command: string }>; confinement?: unknown } };
}
