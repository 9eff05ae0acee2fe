import type { AgentToolResult } from "@toolhost/core";
import { type CallJob, errorResult, jobIdOf, parseCallJob, parseEnvelope } from "./_job.js";
import { type Keyring, type Refusal, canonicalJson, verify } from "./_signing.js";
import { QueueErrorCode } from "./errors.js";

/** How far a host's clock may be ahead of a worker's before its jobs are refused as signed in the future. */
const CLOCK_SKEW_MS = 60_000;
/** Signed jobs remembered per worker (until they expire), so that a copy of one is not run again. */
const MAX_SEEN = 100_000;

/** What a worker checks a job against: its keys (none with `noAuthorityCheck`), its queue, how old a job may be. */
export interface Admission {
  keyring: Keyring | undefined;
  queue: string;
  maxAgeMs: number;
  /** The signed jobs (their signatures, or texts when unsigned) this worker took, with when they expire; oldest first. */
  seen: Map<string, number>;
}

/**
 * Admits a job before anything of it runs: its signature (when this worker holds the key), its
 * shape, the queue and job id it was signed for, its age, and that this worker did not take the
 * same signed job before (a copy put back into Redis), unless it is a re-delivery after a stall.
 * Returns the call, or the result that refuses it.
 */
export function admit(admission: Admission, jobId: string, data: unknown, redelivery: boolean): CallJob | AgentToolResult {
  const envelope = parseEnvelope(data, "job");
  if (!envelope) return errorResult(QueueErrorCode.BAD_JOB, `Job ${jobId} on queue "${admission.queue}" is not a toolhost call; it was not run.`);
  const refusal = admission.keyring ? verify(admission.keyring, "job", envelope.text, envelope.sig) : undefined;
  if (refusal) return refused(refusal);
  const job = parseCallJob(envelope.text);
  if (!job) return errorResult(QueueErrorCode.BAD_JOB, `Job ${jobId} on queue "${admission.queue}" is not a toolhost call of this version; it was not run.`);
  const mismatch = placeOf(admission, jobId, job) ?? ageOf(admission, job) ?? replayOf(admission, envelope.sig ?? envelope.text, job, redelivery);
  return mismatch ? refused(mismatch) : job;
}

function refused({ code, reason }: Refusal): AgentToolResult {
  return errorResult(code, `Not run: the worker refused the job because ${reason}.`);
}

/** The job must lie where it was signed for: its queue, and the job id of its call. */
function placeOf(admission: Admission, jobId: string, job: CallJob): Refusal | undefined {
  if (job.queue !== admission.queue) {
    return { code: QueueErrorCode.JOB_REPLAYED, reason: `it was signed for queue "${job.queue}", not this worker's queue "${admission.queue}"` };
  }
  if (jobIdOf(job.call.id) !== jobId) {
    return { code: QueueErrorCode.JOB_REPLAYED, reason: `it was signed for call id "${job.call.id}", but lies in Redis as job ${jobId}` };
  }
  return undefined;
}

function ageOf(admission: Admission, job: CallJob): Refusal | undefined {
  const age = Date.now() - job.at;
  if (age > admission.maxAgeMs) {
    return {
      code: QueueErrorCode.JOB_EXPIRED,
      reason: `it was signed ${Math.round(age / 1000)} s ago, longer than signing.maxAgeSeconds (${admission.maxAgeMs / 1000} s) allows; the host may send the call again`,
    };
  }
  if (age < -CLOCK_SKEW_MS) {
    return { code: QueueErrorCode.JOB_EXPIRED, reason: `it was signed ${Math.round(-age / 1000)} s in the future: the host's and this worker's clocks disagree (keep them in sync, e.g. with NTP)` };
  }
  return undefined;
}

/** A signed job this worker took before comes again only as a re-delivery; any other copy is a replay. */
function replayOf(admission: Admission, identity: string, job: CallJob, redelivery: boolean): Refusal | undefined {
  const now = Date.now();
  if (admission.seen.has(identity) && !redelivery) {
    return { code: QueueErrorCode.JOB_REPLAYED, reason: `this worker already took this signed job (call "${job.call.id}"): a copy of a job is not run again` };
  }
  admission.seen.delete(identity);
  admission.seen.set(identity, job.at + admission.maxAgeMs);
  // Oldest first: drop what expired (its copies fail the age check anyway), and keep the map bounded.
  for (const [key, expires] of admission.seen) {
    if (expires > now && admission.seen.size <= MAX_SEEN) break;
    admission.seen.delete(key);
  }
  return undefined;
}
