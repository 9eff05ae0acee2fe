import type { AgentToolResult } from "@toolhost/core";
import { type CallJob, checkCallJob, errorResult, parseJobText } from "./_job.js";
import type { Signed } from "./_scripts.js";
import { type Keyring, type Refusal, verify } from "./_signing.js";
import { QueueErrorCode } from "./errors.js";

/** How far a host's clock may be ahead of a worker's before its jobs are refused as signed in the future. */
const CLOCK_SKEW_MS = 60_000;
/** Signed jobs remembered per worker (until they expire), so that a copy of one is not run again. */
const MAX_SEEN = 100_000;

/** What a worker checks a job against: its keys (none with `noAuthorityCheck`), how old a job may be. */
export interface Admission {
  keyring: Keyring | undefined;
  maxAgeMs: number;
  /** The signed jobs (their signatures, or texts when unsigned) this worker took, with when they expire; oldest first. */
  seen: Map<string, number>;
}

/**
 * Admits a job before anything of it runs: its signature (when this worker holds the key), its
 * shape, the queue it was signed for, its age, and that this worker did not take the same signed
 * job before (a copy put back into Redis), unless it is a re-delivery after a stall. Returns the
 * call, or the result that refuses it.
 */
export function admit(admission: Admission, queue: string, entry: string, job: Signed, redelivery: boolean): CallJob | AgentToolResult {
  const parsed = parseJobText(job.text);
  const host = typeof parsed?.reply === "string" ? `the host that sent it (${parsed.reply.slice(0, 120)})` : "the host that sent it";
  const refusal = admission.keyring ? verify(admission.keyring, "job", job.text, job.sig === "" ? undefined : job.sig, { here: "this worker", there: host }) : undefined;
  if (refusal) return refused(refusal);
  const call = parsed && checkCallJob(parsed);
  if (!call) return errorResult(QueueErrorCode.BAD_JOB, `Job ${entry} on queue "${queue}" is not a toolhost call of this version (4); it was not run. Run the same @toolhost/queue version on the hosts and the workers.`, { refused: true });
  const mismatch = placeOf(queue, call) ?? ageOf(admission, call) ?? replayOf(admission, job.sig === "" ? job.text : job.sig, call, redelivery);
  return mismatch ? refused(mismatch) : call;
}

function refused({ code, reason }: Refusal): AgentToolResult {
  return errorResult(code, `Not run: the worker refused the job because ${reason}.`, { refused: true });
}

/** The job must lie where it was signed for: its queue (another queue's workers may hold more power). */
function placeOf(queue: string, job: CallJob): Refusal | undefined {
  if (job.queue !== queue) {
    return { code: QueueErrorCode.JOB_REPLAYED, reason: `it was signed for queue "${job.queue}", not queue "${queue}" where it lies` };
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
