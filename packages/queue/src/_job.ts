import type { AgentToolResult, AnyAgentTool, ToolAccess } from "@toolhost/core";
import { QueueErrorCode } from "./errors.js";

/** How a call is delivered: run again after a worker crash, or at most once. */
export type Delivery = "retry" | "at-most-once";

/** What travels with a job: the call as the producer's pipeline left it, and who decided it may run. */
export interface CallJob {
  v: 1;
  call: { id: string; name: string };
  /** The prepared and validated arguments. */
  args: unknown;
  delivery: Delivery;
  decision: {
    /** The producing host (hostname:pid) whose policy let the call run. */
    decidedBy: string;
    /** Whether someone approved it there (the policy asked). */
    approved: boolean;
    /** What the call touches, as the producer's tool declared it. */
    access?: ToolAccess;
    at: number;
  };
  limits: { maxResultBytes: number; maxUpdateBytes: number; updateIntervalMs: number };
}

/** A tool as workers publish it in Redis, for producers that do not have it. */
export interface PublishedTool {
  name: string;
  label: string;
  description: string;
  parameters: unknown;
  annotations?: AnyAgentTool["annotations"];
  executionMode?: AnyAgentTool["executionMode"];
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

/** Checks a job's data read from Redis: anything there may have been written by another program. */
export function parseCallJob(data: unknown): CallJob | undefined {
  if (typeof data !== "object" || data === null) return undefined;
  const job = data as Partial<CallJob>;
  if (job.v !== 1 || typeof job.call?.id !== "string" || typeof job.call.name !== "string") return undefined;
  if (job.delivery !== "retry" && job.delivery !== "at-most-once") return undefined;
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
