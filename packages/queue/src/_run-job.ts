import type { AgentHarness, AgentToolResult, ToolResultMessage } from "@toolhost/core";
import { type Job, WaitingError } from "bullmq";
import { bound } from "./_bound.js";
import { type Admission, admit } from "./_admit.js";
import { type CallJob, type Delivery, type ReplyEnvelope, deliveryOf, errorResult, workerLostResult } from "./_job.js";
import { sealReply } from "./_replies.js";
import { signatureKeyId } from "./_signing.js";
import { forwardUpdates } from "./_updates.js";
import { QueueErrorCode } from "./errors.js";

/** A call running on this worker. */
export interface Running {
  controller: AbortController;
  /** Set when the worker's shutdown grace ran out: a retryable call is handed back, not answered. */
  shuttingDown: boolean;
}

/** What the job processor shares with the worker around it. */
export interface WorkerState {
  harness: AgentHarness;
  queue: string;
  running: Map<string, Running>;
  counts: { completed: number; failed: number };
  admission: Admission;
}

/** BullMQ's processor: one job, one call through the worker's own harness. Never rejects but to hand a job back. */
export function jobProcessor(state: WorkerState) {
  return async (job: Job, token?: string, bullSignal?: AbortSignal): Promise<ReplyEnvelope> => {
    const callId = callIdOf(job);
    const sig = (job.data as { sig?: unknown } | null | undefined)?.sig;
    const keyId = signatureKeyId(typeof sig === "string" ? sig : undefined);
    const seal = (result: AgentToolResult): ReplyEnvelope => sealReply(state.admission.keyring, callId, { result }, keyId);
    const data = admit(state.admission, job.id as string, job.data, job.attemptsStarted > 1);
    if (!("call" in data)) return seal(failed(state, data));
    // The stricter of the producer's and this worker's view of the tool decides.
    const delivery: Delivery = data.delivery === "retry" && deliveryOf(state.harness.getTool(data.call.name)) === "retry" ? "retry" : "at-most-once";
    if (delivery === "at-most-once" && job.attemptsStarted > 1) {
      return seal(failed(state, { ...workerLostResult(), details: { code: QueueErrorCode.WORKER_LOST, delivery, attempts: job.attemptsStarted } }));
    }
    const entry: Running = { controller: new AbortController(), shuttingDown: false };
    state.running.set(job.id as string, entry);
    bullSignal?.addEventListener("abort", () => entry.controller.abort(bullSignal.reason), { once: true });
    const stopUpdates = forwardUpdates(state.harness, data, (update) => job.updateProgress(sealReply(state.admission.keyring, data.call.id, { update }, keyId) as never));
    try {
      const [message] = await state.harness.executeToolCalls([{ id: data.call.id, name: data.call.name, arguments: data.args }], {
        signal: entry.controller.signal,
      });
      if (entry.shuttingDown && delivery === "retry") {
        await job.moveToWait(token);
        throw new WaitingError();
      }
      const result = outcome(data, entry, message);
      state.counts[result.isError ? "failed" : "completed"] += 1;
      return seal(bound(result, data.limits.maxResultBytes));
    } finally {
      stopUpdates();
      state.running.delete(job.id as string);
    }
  };
}

/** The call id a job is about, for its answer: the signed one once admitted; before, the job's own id. */
function callIdOf(job: Job): string {
  const id = String(job.id);
  try {
    return id.startsWith("call-") ? decodeURIComponent(id.slice("call-".length)) : id;
  } catch {
    return id;
  }
}

function failed(state: WorkerState, result: AgentToolResult): AgentToolResult {
  state.counts.failed += 1;
  return result;
}

/** The call's result: the harness's, or the shutdown's when the grace ran out. */
function outcome(data: CallJob, entry: Running, message: ToolResultMessage | undefined): AgentToolResult {
  if (entry.shuttingDown) {
    return errorResult(
      QueueErrorCode.WORKER_SHUT_DOWN,
      `The worker shut down while "${data.call.name}" ran, and its shutdown grace ran out: the call was ended and may have partly run.`,
    );
  }
  return message ? resultOf(message) : errorResult(QueueErrorCode.WORKER_FAILED, "The worker's harness gave no result.");
}

function resultOf(message: ToolResultMessage): AgentToolResult {
  const result: AgentToolResult = { content: [...message.content], details: message.details, isError: message.isError };
  if (message.usage) result.usage = message.usage;
  if (message.terminate) result.terminate = true;
  return result;
}
