import type { AgentToolResult, AgentToolUpdate } from "@toolhost/core";
import { errorResult, isResult } from "./_job.js";
import type { Signed } from "./_scripts.js";
import { type Keyring, canonicalJson, refusesOwnJob, sign, verify } from "./_signing.js";
import { QueueErrorCode } from "./errors.js";

/** What a worker says about a call: its result, or an update while it runs. */
export type ReplyBody = { result: AgentToolResult } | { update: AgentToolUpdate };

/**
 * The job an answer is about, as the worker signs it with the answer: the call id, the job's own
 * nonce and the call's digest (both from the job), and the worker that answers.
 */
export interface ReplyTo {
  call: string;
  job: string;
  digest: string;
  worker: string;
  /** For a refusal of a job before the worker trusted it: its `refusedMark` (the job's nonce and digest are only what it claims). */
  refused?: string;
}

/** An answer as read from Redis, before its signature is checked. */
export interface ReadReply {
  call?: unknown;
  job?: unknown;
  digest?: unknown;
  worker?: unknown;
  refused?: unknown;
  at?: unknown;
  result?: unknown;
  update?: unknown;
}

/**
 * A worker's answer about one job, signed when it holds a key (with the job's key, `keyId`, when it
 * has that one) over the job it answers and the time it answers, so that it answers that job only.
 */
export function sealReply(keyring: Keyring | undefined, to: ReplyTo, body: ReplyBody, keyId?: string): Signed {
  const text = canonicalJson({ ...to, at: Date.now(), ...body });
  return { text, sig: keyring ? sign(keyring, "reply", text, keyId) : "" };
}

/** Parses an answer read from Redis; undefined when it is not JSON of an object. */
export function parseReply(text: string): ReadReply | undefined {
  try {
    const body = JSON.parse(text) as unknown;
    return typeof body === "object" && body !== null ? (body as ReadReply) : undefined;
  } catch {
    return undefined;
  }
}

/** What a host takes an answer for: the call, its digest, and the jobs it sent (none: an answer found in the call's record). */
export interface Expected {
  callId: string;
  digest: string;
  /** The jobs this host sent for the call: the signature of the one with a nonce; undefined for a record's answer (another host's job). */
  jobs?: { sigOf(nonce: string): string | undefined };
  /** A record's answer written before this (ms since the epoch) is older than its retention: a copy put back. */
  notBefore?: number;
}

/** What an answer is to the call a host waits for. */
export type Opened =
  | { result: AgentToolResult }
  | { update: AgentToolUpdate }
  /** A signed answer for this call id that answers another job (a copy of an old answer put back): refused, the call goes on. */
  | { stale: string }
  /** Nothing of this call (another call's, or an update that cannot be trusted): dropped. */
  | undefined;

/**
 * Opens a worker's answer read from Redis for the call `expected` describes: it must name the call,
 * one of the jobs this host sent for it (or, for a record's answer, be newer than the retention),
 * and the call's digest, and be signed when this host holds the key. A result that cannot be
 * trusted becomes a refusal (the call may or may not have run); an update that cannot be is dropped.
 */
export function openReply(keyring: Keyring | undefined, reply: Signed, body: ReadReply | undefined, expected: Expected): Opened {
  if (!body) return { result: badResult() };
  if (body.call !== expected.callId) return undefined;
  const worker = typeof body.worker === "string" ? `the worker that wrote it (${body.worker.slice(0, 120)})` : "the worker that wrote it";
  const refusal = keyring ? verify(keyring, "reply", reply.text, reply.sig === "" ? undefined : reply.sig, { here: "this host", there: worker }) : undefined;
  const stale = staleness(keyring, body, expected);
  if (stale !== undefined) return refusal ? undefined : { stale };
  if (refusal) {
    if (body.update !== undefined) return undefined;
    return {
      result: errorResult(
        QueueErrorCode.REPLY_REFUSED,
        `The answer for this call in Redis was refused: ${refusal.reason}. The call may or may not have run on a worker.`,
        { refusal: refusal.code, ...claimedCode(body) },
      ),
    };
  }
  if (body.digest !== expected.digest) {
    return { result: errorResult(QueueErrorCode.REPLY_REFUSED, "The answer for this call in Redis names another call's content (its digest differs): refused. The call may or may not have run on a worker.") };
  }
  if (isResult(body.result)) return { result: body.result };
  if (isResult(body.update)) return { update: body.update };
  return { result: badResult() };
}

/** Why an answer is not the answer to the job this host waits for, if it is not. */
function staleness(keyring: Keyring | undefined, body: ReadReply, expected: Expected): string | undefined {
  if (expected.jobs) {
    const sent = typeof body.job === "string" ? expected.jobs.sigOf(body.job) : undefined;
    if (sent !== undefined && (body.refused === undefined || refusesOwnJob(keyring, sent, body.refused))) return undefined;
    if (sent !== undefined) return "it refuses a job that borrows the nonce of this host's job but is not that job (a forged copy)";
    return `it answers job ${typeof body.job === "string" ? body.job.slice(0, 40) : "(none)"}, not a job this host sent for the call`;
  }
  if (expected.notBefore !== undefined && (typeof body.at !== "number" || body.at < expected.notBefore)) {
    const when = typeof body.at === "number" ? new Date(body.at).toISOString() : "an unknown time";
    return `it was written at ${when}, before the call's retention time began`;
  }
  return undefined;
}

/** What an untrusted answer says it was, for the message (it may be a worker's refusal: which key is where). */
function claimedCode(body: ReadReply): Record<string, unknown> {
  const code = (body.result as { details?: { code?: unknown } } | undefined)?.details?.code;
  return typeof code === "string" && code.startsWith("TOOLHOST_") ? { claimed: code.slice(0, 80) } : {};
}

/** How far a worker's clock may be behind a host's when the age of a record's answer is judged. */
const CLOCK_SKEW_MS = 60_000;
/** The longest a worker keeps a record (a refusal's), beside the job's own retention. */
const REFUSAL_KEEP_MS = 3_600_000;

/**
 * The answer a call's record holds, for a job of the call sent after it (the host sending the call
 * again, or a worker given a job of a call answered meanwhile): another job's answer, so bound by
 * its age (the call's retention) instead of a nonce. A copy put back (older than that) is refused.
 */
export function recordedResult(
  keyring: Keyring | undefined,
  answer: Signed,
  call: { callId: string; digest: string; retention: { completedSeconds: number; failedSeconds: number } },
): AgentToolResult {
  const { completedSeconds, failedSeconds } = call.retention;
  const keptMs = Math.max(completedSeconds * 1000, failedSeconds * 1000, REFUSAL_KEEP_MS);
  const expected = { callId: call.callId, digest: call.digest, notBefore: Date.now() - keptMs - CLOCK_SKEW_MS };
  const opened = openReply(keyring, answer, parseReply(answer.text), expected);
  if (opened && "result" in opened) return opened.result;
  if (opened && "stale" in opened) {
    return errorResult(
      QueueErrorCode.REPLY_REPLAYED,
      `Not run: the record of call id "${call.callId}" in Redis holds an answer that ${opened.stale}: a copy put back, not this call's answer. Give the call a new id.`,
      { refused: true },
    );
  }
  return badResult();
}

export function badResult(): AgentToolResult {
  return errorResult(QueueErrorCode.BAD_JOB, "The worker's answer was not a tool result; the worker may run another program's version.");
}
