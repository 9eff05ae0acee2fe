import { randomUUID } from "node:crypto";
import type { AgentToolResult, AnyAgentTool, ToolAccess } from "@toolhost/core";
import type { JobDecision } from "./_decision.js";
import { QueueErrorCode } from "./errors.js";

/** How a call is delivered: run again after a worker crash, or at most once. */
export type Delivery = "retry" | "at-most-once";

/** The call as the host's pipeline left it and who decided it may run: the text the host signs. */
export interface CallJob {
  v: 4;
  /** Made for this job alone (random): the worker's answer names it, and the host takes only the answer to the job it sent. */
  nonce: string;
  /** The call's content (`callDigest` of its tool, arguments and declared access): the answer names it too. */
  digest: string;
  /** The queue it was sent to: a job moved to another queue is refused there. */
  queue: string;
  call: { id: string; name: string };
  /** The prepared and validated arguments. */
  args: unknown;
  delivery: Delivery;
  decision: JobDecision & {
    /** The producing host (its id) whose pipeline let the call run. */
    decidedBy: string;
    /** Whether someone approved it there (the policy asked). */
    approved: boolean;
    /** What the call touches, as the host's tool declared it (without a confinement: the worker's is what bounds it). */
    access?: ToolAccess;
  };
  /** The host's id: its answers go to the host's reply stream. */
  reply: string;
  /** When the host signed it (ms since the epoch): a worker refuses it after `signing.maxAgeSeconds`. */
  at: number;
  limits: { maxResultBytes: number; maxUpdateBytes: number; updateIntervalMs: number };
  /** How long the call's record (and answer) stays after it finished, in seconds. */
  retention: { completedSeconds: number; failedSeconds: number };
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

/** A tool that says it only reads, or that a second run changes nothing, may be run again. */
export function deliveryOf(tool: Pick<AnyAgentTool, "annotations"> | undefined): Delivery {
  const hints = tool?.annotations;
  return hints?.readOnly === true || hints?.idempotent === true ? "retry" : "at-most-once";
}

/** A job's nonce: a random UUID (122 random bits; Node draws them from a cache, where randomBytes costs a call into OpenSSL each). */
export function newNonce(): string {
  return randomUUID();
}

/** Parses a job's text; undefined when it is not JSON of an object. */
export function parseJobText(text: string): Partial<CallJob> | undefined {
  try {
    const value = JSON.parse(text) as unknown;
    return typeof value === "object" && value !== null ? (value as Partial<CallJob>) : undefined;
  } catch {
    return undefined;
  }
}

/** Checks a parsed job (it passed the signature check, or no check is made): anything in Redis may have been written by another program. */
export function checkCallJob(job: Partial<CallJob>): CallJob | undefined {
  if (job.v !== 4 || typeof job.nonce !== "string" || typeof job.digest !== "string" || typeof job.queue !== "string") return undefined;
  if (typeof job.call?.id !== "string" || typeof job.call.name !== "string") return undefined;
  if (job.delivery !== "retry" && job.delivery !== "at-most-once") return undefined;
  if (typeof job.at !== "number" || typeof job.reply !== "string" || typeof job.decision !== "object" || job.decision === null) return undefined;
  const { limits, retention } = job;
  if (!limits || ![limits.maxResultBytes, limits.maxUpdateBytes, limits.updateIntervalMs].every(Number.isFinite)) return undefined;
  if (!retention || ![retention.completedSeconds, retention.failedSeconds].every(Number.isInteger)) return undefined;
  return job as CallJob;
}

export function errorResult(code: string, text: string, details: Record<string, unknown> = {}): AgentToolResult {
  return { content: [{ type: "text", text }], details: { code, ...details }, isError: true };
}

/** Whether a value read from Redis is a result. */
export function isResult(value: unknown): value is AgentToolResult {
  return typeof value === "object" && value !== null && Array.isArray((value as AgentToolResult).content);
}

/** The result of a call whose worker stopped while running it. */
export function workerLostResult(details: Record<string, unknown> = {}): AgentToolResult {
  return errorResult(
    QueueErrorCode.WORKER_LOST,
    "Not known whether it ran: the worker running this call stopped; the command may or may not have run. Check its effects before running it again.",
    details,
  );
}
