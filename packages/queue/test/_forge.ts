import { createHash, createHmac, randomBytes } from "node:crypto";
import type { AgentToolResult } from "@toolhost/core";
import { Redis } from "ioredis";
import type { Testbed } from "./_helpers.js";

/*
 * What anyone with access to the testbed's Redis can do, written as docs/scaling.md describes the
 * format: a queue's keys are {toolhost:<queue>}:…, a job is an entry of the jobs stream with the
 * call's canonical JSON in `j` and its signature in `s`, and a worker answers in the host's reply
 * stream (`…:reply:<host id>`, an entry with `r` and `s`).
 */

const TAG = "{toolhost:calls}";
export const FORGER = "forger:1:abcdef";

/** A job as it lies in the stream. */
export interface SignedJob {
  text: string;
  sig: string;
}

/** What a forger writes: a call, signed (or not) as a host signs it. */
export interface ForgeOptions {
  /** The key to sign with; undefined: no signature. */
  key?: string | undefined;
  at?: number;
  queue?: string;
  /** The job's nonce (default: a fresh one). */
  nonce?: string;
  /** Changes the call after it was signed. */
  change?: (job: Record<string, unknown>) => Record<string, unknown>;
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

function connect(bed: Testbed): Redis {
  return new Redis({ port: bed.redis.port, host: "127.0.0.1", maxRetriesPerRequest: null });
}

/** A call as a host would write it, signed with `options.key`. */
export function forgedJob(call: { id: string; name: string; args: unknown }, options: ForgeOptions): SignedJob {
  const job = {
    v: 4,
    nonce: options.nonce ?? randomBytes(16).toString("base64url"),
    digest: `sha256:${createHash("sha256").update(canonical({ name: call.name, args: call.args })).digest("hex")}`,
    queue: options.queue ?? "calls",
    call: { id: call.id, name: call.name },
    args: call.args,
    delivery: "at-most-once",
    decision: { verdict: "allow", by: "a forger", decidedBy: FORGER, approved: false },
    reply: FORGER,
    at: options.at ?? Date.now(),
    limits: { maxResultBytes: 262144, maxUpdateBytes: 16384, updateIntervalMs: 100 },
    retention: { completedSeconds: 600, failedSeconds: 3600 },
  };
  const signed = canonical(job);
  const text = options.change ? canonical(options.change(job)) : signed;
  return { text, sig: options.key === undefined ? "" : signature(options.key, "job", signed) };
}

/**
 * Writes a job straight into the jobs stream, as anyone with access to Redis can, and waits until a
 * worker answered it in the reply stream of the host the job names (made here first, as a host makes
 * its own); returns the result the worker gave.
 */
export async function forgeJob(bed: Testbed, job: SignedJob): Promise<AgentToolResult> {
  const redis = connect(bed);
  try {
    const host = (JSON.parse(job.text) as { reply: string }).reply;
    const callId = (JSON.parse(job.text) as { call: { id: string } }).call.id;
    const reply = `${TAG}:reply:${host}`;
    // Answers written before this job's are not its answer.
    const newest = await redis.xadd(reply, "*", "h", "1");
    await redis.xadd(`${TAG}:jobs`, "*", "j", job.text, "s", job.sig);
    for (let last = newest as string; ; ) {
      const answer = (await redis.xread("BLOCK", 60_000, "STREAMS", reply, last)) as Array<[string, Array<[string, string[]]>]> | null;
      for (const [id, fields] of answer?.[0]?.[1] ?? []) {
        last = id;
        const text = fields[fields.indexOf("r") + 1];
        if (fields.includes("r") && text !== undefined) {
          const body = JSON.parse(text) as { call: string; result?: AgentToolResult };
          if (body.call === callId && body.result) return body.result;
        }
      }
    }
  } finally {
    redis.disconnect();
  }
}

/** Watches the jobs stream from now on, keeping each job a host adds (before a worker takes it away). */
export async function watchJobs(bed: Testbed): Promise<{ jobs: SignedJob[]; stop(): void }> {
  const redis = connect(bed);
  const jobs: SignedJob[] = [];
  let stopped = false;
  const newest = (await redis.xrevrange(`${TAG}:jobs`, "+", "-", "COUNT", 1))[0]?.[0] ?? "0-0";
  void (async () => {
    for (let last = newest; !stopped; ) {
      const answer = (await redis.xread("BLOCK", 1_000, "STREAMS", `${TAG}:jobs`, last).catch(() => null)) as Array<[string, Array<[string, string[]]>]> | null;
      for (const [id, fields] of answer?.[0]?.[1] ?? []) {
        last = id;
        jobs.push({ text: fields[fields.indexOf("j") + 1] as string, sig: fields[fields.indexOf("s") + 1] ?? "" });
      }
    }
  })();
  return {
    jobs,
    stop() {
      stopped = true;
      redis.disconnect();
    },
  };
}

/** What a test reads of a signed call. */
export interface CallRecord {
  call: { id: string; name: string };
  args: unknown;
  reply: string;
  decision: Record<string, unknown> & { access?: { commands?: Array<{ command: string }>; confinement?: unknown } };
}

export function callOf(job: SignedJob): CallRecord {
  return JSON.parse(job.text) as CallRecord;
}
