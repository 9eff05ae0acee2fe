import type { AgentToolResult, AnyAgentTool, ToolAccess } from "@toolhost/core";
import type { JobDecision } from "./_decision.js";
import { QueueErrorCode } from "./errors.js";

/** How a call is delivered: run again after a worker crash, or at most once. */
export type Delivery = "retry" | "at-most-once";

/** The call as the host's pipeline left it and who decided it may run: the text the host signs. */
export interface CallJob {
  v: 2;
  /** The queue it was sent to: a job moved to another queue is refused there. */
  queue: string;
  call: { id: string; name: string };
  /** The prepared and validated arguments. */
  args: unknown;
  delivery: Delivery;
  decision: JobDecision & {
    /** The producing host (hostname:pid) whose pipeline let the call run. */
    decidedBy: string;
    /** Whether someone approved it there (the policy asked). */
    approved: boolean;
    /** What the call touches, as the host's tool declared it. */
    access?: ToolAccess;
  };
  /** When the host signed it (ms since the epoch): a worker refuses it after `signing.maxAgeSeconds`. */
  at: number;
  limits: { maxResultBytes: number; maxUpdateBytes: number; updateIntervalMs: number };
}

/**
 * A job as it lies in Redis: the call's canonical JSON and the host's signature over exactly that
 * text (absent when the host holds no key). A worker checks the signature before it reads the call.
 */
export interface JobEnvelope {
  v: 2;
  job: string;
  sig?: string;
}

/** A worker's answer as it lies in Redis: `{ call, result }` or `{ call, update }` as canonical JSON, and the worker's signature. */
export interface ReplyEnvelope {
  v: 2;
  reply: string;
  sig?: string;
}

/** A tool as workers publish it in Redis, for producers that do not have it. */
export interface PublishedTool {
  name: string;
  label: string;
  description: string;
  parameters: unknown;
  annotations?: AnyAgentTool["annotations"];
  executionMode?: AnyAgentTool["executionMode"];
  /** Whether the worker's tool declares its calls' access (`AgentTool.access`): a host's policy cannot judge those without the tool. */
  declares?: boolean;
  worker: string;
  at: number;
}

/**
 * The job id of a call: the call id, prefixed so that BullMQ accepts every id (it refuses
 * integer-like custom ids and `:`), and escaped so that two call ids never meet.
 */
export function jobIdOf(callId: string): string {
  return `call-${encodeURIComponent(callId)}`;
}

/** A tool that says it only reads, or that a second run changes nothing, may be run again. */
export function deliveryOf(tool: Pick<AnyAgentTool, "annotations"> | undefined): Delivery {
  const hints = tool?.annotations;
  return hints?.readOnly === true || hints?.idempotent === true ? "retry" : "at-most-once";
}

/** Redis key names of the plugin's own data beside BullMQ's. */
export function keysOf(prefix: string, queue: string) {
  const base = `${prefix}:${queue}:toolhost`;
  return {
    tools: `${base}:tools`,
    cancel: `${base}:cancel`,
    worker: (id: string) => `${base}:worker:${id}`,
  };
}

/** Reads an envelope (job or reply) from Redis: anything there may have been written by another program. */
export function parseEnvelope<K extends "job" | "reply">(data: unknown, field: K): { text: string; sig?: string } | undefined {
  if (typeof data !== "object" || data === null) return undefined;
  const envelope = data as Record<string, unknown>;
  if (envelope.v !== 2 || typeof envelope[field] !== "string") return undefined;
  const text = envelope[field] as string;
  return typeof envelope.sig === "string" ? { text, sig: envelope.sig } : { text };
}

/** Checks a signed call's shape (its text passed the signature check, or no check is made). */
export function parseCallJob(text: string): CallJob | undefined {
  let job: Partial<CallJob>;
  try {
    job = JSON.parse(text) as Partial<CallJob>;
  } catch {
    return undefined;
  }
  if (typeof job !== "object" || job === null) return undefined;
  if (job.v !== 2 || typeof job.queue !== "string" || typeof job.call?.id !== "string" || typeof job.call.name !== "string") return undefined;
  if (job.delivery !== "retry" && job.delivery !== "at-most-once") return undefined;
  if (typeof job.at !== "number" || typeof job.decision !== "object" || job.decision === null) return undefined;
  const limits = job.limits;
  if (!limits || ![limits.maxResultBytes, limits.maxUpdateBytes, limits.updateIntervalMs].every(Number.isFinite)) return undefined;
  return job as CallJob;
}

export function errorResult(code: string, text: string, details: Record<string, unknown> = {}): AgentToolResult {
  return { content: [{ type: "text", text }], details: { code, ...details }, isError: true };
}

/** Whether a value read from an event is a result. */
export function isResult(value: unknown): value is AgentToolResult {
  return typeof value === "object" && value !== null && Array.isArray((value as AgentToolResult).content);
}

/** The result of a call whose worker stopped while running it. */
export function workerLostResult(): AgentToolResult {
  return errorResult(
    QueueErrorCode.WORKER_LOST,
    "Not known whether it ran: the worker running this call stopped; the command may or may not have run. Check its effects before running it again.",
  );
}
