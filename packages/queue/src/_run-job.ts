import { setTimeout as delay } from "node:timers/promises";
import { type AgentHarness, type AgentToolResult, type ToolResultMessage, messageOf } from "@toolhost/core";
import { type Admission, admit } from "./_admit.js";
import { bound } from "./_bound.js";
import { type CallJob, type Delivery, deliveryOf, errorResult, workerLostResult } from "./_job.js";
import { type QueueKeys, isProcessId } from "./_keys.js";
import { doneRecord, doneRecordHead, isRecordOf, queuedRecord, readRecord } from "./_records.js";
import { type RedisClient, recover } from "./_redis.js";
import type { Replicas } from "./_replicas.js";
import { type ReplyBody, type ReplyTo, recordedResult, sealReply } from "./_replies.js";
import { REPLY_STREAM_MAX, type Scripts, type Signed } from "./_scripts.js";
import { refusedMark, signatureKeyId } from "./_signing.js";
import { forwardUpdates } from "./_updates.js";
import { QueueErrorCode } from "./errors.js";

/** How long a worker keeps trying to write an answer while Redis is away (a failover). */
const FINISH_RETRY_MS = 60_000;
/** How long the record of a refused job stays (a host that sends the call again reads why). */
const REFUSAL_KEEP_SECONDS = 3600;

/** A call running on this worker. */
export interface Running {
  controller: AbortController;
  /** Set when the worker's shutdown grace ran out: a retryable call is handed back, not answered. */
  shuttingDown: boolean;
  queue: QueueKeys;
  entry: string;
  /** The job's nonce, once its text is read: a caller's cancel names it. */
  nonce: string | undefined;
}

/** What running a job needs of the worker around it. */
export interface WorkerContext {
  /** This worker's id (host:pid:random), named in its answers. */
  id: string;
  harness: AgentHarness;
  client: RedisClient;
  scripts: Scripts;
  admission: Admission;
  replicas: Replicas;
  /** The calls running, by queue and entry. */
  running: Map<string, Running>;
  counts: { completed: number; failed: number };
  /** Reports a problem as a health line (the worker goes on). */
  problem(message: string): void;
}

/** A job as it came out of the stream: its entry, its fields, and whether it is a re-delivery. */
export interface Taken {
  queue: QueueKeys;
  entry: string;
  fields: string[];
  redelivery: boolean;
}

/** The key of a running call in `WorkerContext.running`. */
export function runningKey(queue: QueueKeys, entry: string): string {
  return `${queue.tag}\n${entry}`;
}

/**
 * Runs one job: admitted (signature, age, place) before anything else, counted (a second start is a
 * re-delivery: a call that may not run twice is answered "may or may not have run"), confirmed on a
 * replica when it may not run twice, then run through the worker's harness and answered. Never rejects.
 */
export async function runJob(worker: WorkerContext, taken: Taken): Promise<void> {
  // Held (renewed, cancellable) from the moment it is taken, through its admission and its start.
  const running: Running = { controller: new AbortController(), shuttingDown: false, queue: taken.queue, entry: taken.entry, nonce: undefined };
  const key = runningKey(taken.queue, taken.entry);
  worker.running.set(key, running);
  try {
    const job = jobOf(taken.fields);
    if (!job) {
      // Nothing to run and no one to answer: taken off the stream.
      worker.counts.failed += 1;
      return await answer(worker, taken, undefined, undefined, "-");
    }
    const call = admit(worker.admission, taken.queue.queue, taken.entry, job, taken.redelivery);
    const keyId = signatureKeyId(job.sig === "" ? undefined : job.sig);
    if (!("call" in call)) return await refuse(worker, taken, job, call, keyId);
    running.nonce = call.nonce;
    const delivery: Delivery = call.delivery === "retry" && deliveryOf(worker.harness.getTool(call.call.name)) === "retry" ? "retry" : "at-most-once";
    const stop = await startOf(worker, taken, call, delivery);
    if (stop) {
      // (An answer found in the call's record is no run of this worker's; a refusal counts as failed.)
      if (stop.result.isError) worker.counts.failed += 1;
      return await answer(worker, taken, targetOf(worker, call), { body: { result: stop.result }, keyId }, stop.keep);
    }
    if (running.controller.signal.aborted) return await notStarted(worker, taken, { call, delivery, job, keyId, running });
    await execute(worker, taken, { call, delivery, job, keyId, running });
  } catch (error) {
    worker.problem(`a job of queue "${taken.queue.queue}" (${taken.entry}) failed outside its tool: ${messageOf(error)}`);
  } finally {
    worker.running.delete(key);
  }
}

/** A job stopped between its admission and its run: a shutdown hands it back (it did not run); a caller's cancel answers it. */
async function notStarted(worker: WorkerContext, taken: Taken, admitted: Admitted): Promise<void> {
  const { call, job, keyId, running } = admitted;
  if (running.shuttingDown) return worker.scripts.requeue({ jobs: taken.queue.jobs, run: taken.queue.run(call.call.id) }, taken.entry, job);
  const result = errorResult("TOOLHOST_ABORTED", `Tool "${call.call.name}" aborted: its caller cancelled it before it started; it did not run.`);
  await answer(worker, taken, targetOf(worker, call), { body: { result }, keyId }, call.retention.failedSeconds);
}

function jobOf(fields: string[]): Signed | undefined {
  let text: string | undefined;
  let sig = "";
  for (let i = 0; i + 1 < fields.length; i += 2) {
    if (fields[i] === "j") text = fields[i + 1];
    else if (fields[i] === "s") sig = fields[i + 1] as string;
  }
  return text === undefined ? undefined : { text, sig };
}

/** A refused job's answer goes where it says (its call id, job and host, unchecked: a forger learns nothing from it). */
async function refuse(worker: WorkerContext, taken: Taken, job: Signed, result: AgentToolResult, keyId: string | undefined): Promise<void> {
  worker.counts.failed += 1;
  let claimed: { call?: { id?: unknown }; reply?: unknown; nonce?: unknown; digest?: unknown } | undefined;
  try {
    claimed = JSON.parse(job.text) as typeof claimed;
  } catch {
    claimed = undefined;
  }
  const id = claimed?.call?.id;
  const text = (value: unknown) => (typeof value === "string" ? value.slice(0, 200) : "");
  const target: Target | undefined =
    typeof id === "string"
      ? { to: { call: id, job: text(claimed?.nonce), digest: text(claimed?.digest), worker: worker.id, refused: refusedMark(worker.admission.keyring, job) }, host: isProcessId(claimed?.reply) ? claimed.reply : undefined }
      : undefined;
  // A copy of a job must not overwrite what the call it copies left.
  const keep = (result.details as { code?: string }).code === QueueErrorCode.JOB_REPLAYED ? "-" : REFUSAL_KEEP_SECONDS;
  await answer(worker, taken, target, { body: { result }, keyId }, keep);
}

/**
 * Counts the start. A first start runs; a later one of the same job (its worker stopped, a
 * failover, a copy) runs again only if the call may be retried and this is its second start; a
 * newer job under the call id is the host's (a retryable call sent again, or a new call); an
 * older job than the one counted is a copy put back, never run. Undefined: run it.
 */
async function startOf(worker: WorkerContext, taken: Taken, call: CallJob, delivery: Delivery): Promise<{ result: AgentToolResult; keep: number | "-" } | undefined> {
  const runKey = taken.queue.run(call.call.id);
  // The count lives as long as a copy of the job could pass the age check.
  const ttlMs = Math.max(1_000, call.at + worker.admission.maxAgeMs + 60_000 - Date.now());
  const counted = `${call.at}:${call.nonce}:1`;
  const before = await worker.client.set(runKey, counted, "PX", ttlMs, "NX", "GET");
  const start =
    before === null
      ? { kind: "first" as const, starts: 1 }
      : await worker.scripts.restart({ run: runKey, record: taken.queue.call(call.call.id) }, { at: call.at, nonce: call.nonce, retry: delivery === "retry", ttlMs, record: { queued: queuedRecord(call.digest), doneHead: doneRecordHead(call.digest) } });
  if (start.kind === "older") {
    return { result: errorResult(QueueErrorCode.JOB_REPLAYED, "Not run: a newer job of this call id was started already; this one is an older copy put back into the queue."), keep: "-" };
  }
  if (start.kind === "answered") return { result: await answered(worker, taken, call), keep: "-" };
  if (start.kind === "covered") {
    // The host sent the call again (its connection was lost) while an earlier job of it runs again (a failover handed it out anew).
    return {
      result: errorResult(QueueErrorCode.JOB_REPLAYED, "Not run: an earlier job of this call was started twice already and has not answered yet; its answer is the call's."),
      keep: "-",
    };
  }
  if (start.starts >= 2) {
    const record = readRecord(await worker.client.get(taken.queue.call(call.call.id)));
    if (start.kind === "again" && record?.state === "done" && isRecordOf(record, call.digest)) {
      return { result: errorResult(QueueErrorCode.JOB_REPLAYED, "Not run again: this call was answered already (a copy of its job, or a job handed out twice by a failover)."), keep: "-" };
    }
    if (delivery === "at-most-once" || start.starts >= 3) return { result: workerLostResult({ delivery, attempts: start.starts }), keep: call.retention.failedSeconds };
  }
  if (delivery === "at-most-once" && !(await worker.replicas.confirm(taken.queue))) {
    return {
      result: errorResult(
        QueueErrorCode.START_UNCONFIRMED,
        `Not run: the start of "${call.call.name}" could not be confirmed on a replica of its Redis master in time, so a failover now could hand it to a second worker. Check the replicas (INFO replication), then run it again.`,
        { refused: true },
      ),
      keep: call.retention.failedSeconds,
    };
  }
  return undefined;
}

/**
 * The answer of a call answered while this newer job of it waited (the host sent it again): the
 * one its record holds, checked as the host checks a record's answer (signature, content, age), and
 * sent again for this job, so that a host that missed it still gets it. Not a run of its own.
 */
async function answered(worker: WorkerContext, taken: Taken, call: CallJob): Promise<AgentToolResult> {
  const record = readRecord(await worker.client.get(taken.queue.call(call.call.id)));
  if (record?.state === "done" && isRecordOf(record, call.digest)) {
    return recordedResult(worker.admission.keyring, record.answer, { callId: call.call.id, digest: call.digest, retention: call.retention });
  }
  // Gone since (its retention ran out): the host had its answer long ago.
  return errorResult(QueueErrorCode.JOB_REPLAYED, "Not run again: this call was answered already, while this job of it waited.");
}

/** What `execute` runs: the admitted call, its delivery, the job as it came, and its hold on this worker. */
interface Admitted {
  call: CallJob;
  delivery: Delivery;
  job: Signed;
  keyId: string | undefined;
  running: Running;
}

async function execute(worker: WorkerContext, taken: Taken, admitted: Admitted): Promise<void> {
  const { call, delivery, job, keyId, running } = admitted;
  const target = targetOf(worker, call);
  const reply = taken.queue.reply(target.host ?? "-");
  const stopUpdates = forwardUpdates(worker.harness, call, (update) => {
    const sealed = sealReply(worker.admission.keyring, target.to, { update }, keyId);
    return worker.client.xadd(reply, "NOMKSTREAM", "MAXLEN", "~", REPLY_STREAM_MAX, "*", "r", sealed.text, "s", sealed.sig);
  });
  try {
    const [message] = await worker.harness.executeToolCalls([{ id: call.call.id, name: call.call.name, arguments: call.args }], { signal: running.controller.signal });
    if (running.shuttingDown && delivery === "retry") {
      await worker.scripts.requeue({ jobs: taken.queue.jobs, run: taken.queue.run(call.call.id) }, taken.entry, job);
      return;
    }
    const result = bound(outcome(call, running, message), call.limits.maxResultBytes);
    worker.counts[result.isError ? "failed" : "completed"] += 1;
    await answer(worker, taken, target, { body: { result }, keyId }, result.isError ? call.retention.failedSeconds : call.retention.completedSeconds);
  } finally {
    stopUpdates();
  }
}

/** The call's result: the harness's, or the shutdown's when the grace ran out. */
function outcome(call: CallJob, running: Running, message: ToolResultMessage | undefined): AgentToolResult {
  if (running.shuttingDown) {
    return errorResult(
      QueueErrorCode.WORKER_SHUT_DOWN,
      `The worker shut down while "${call.call.name}" ran, and its shutdown grace ran out: the call was ended and may have partly run.`,
    );
  }
  if (!message) return errorResult(QueueErrorCode.WORKER_FAILED, "The worker's harness gave no result.");
  const result: AgentToolResult = { content: [...message.content], details: message.details, isError: message.isError };
  if (message.usage) result.usage = message.usage;
  if (message.terminate) result.terminate = true;
  return result;
}

/**
 * Answers a job and takes it off the stream, in one script: the call's record (kept `keep` seconds;
 * "-" leaves the record alone), and the signed answer in its host's reply stream. While Redis is
 * away it tries again for a while: the answer is what a host waiting through a failover gets.
 */
async function answer(worker: WorkerContext, taken: Taken, target: Target | undefined, reply: { body: ReplyBody; keyId: string | undefined } | undefined, keep: number | "-"): Promise<void> {
  const sealed = reply && target ? sealReply(worker.admission.keyring, target.to, reply.body, reply.keyId) : { text: "", sig: "" };
  const keys = {
    record: taken.queue.call(target?.to.call ?? ""),
    jobs: taken.queue.jobs,
    reply: taken.queue.reply(target?.host ?? "-"),
  };
  const record = doneRecord(target?.to.digest ?? "", sealed);
  const effective = target && reply ? keep : "-";
  for (const started = Date.now(); ; ) {
    try {
      await worker.scripts.finish(keys, { record, keepSeconds: effective, entry: taken.entry, reply: sealed });
      return;
    } catch (error) {
      recover(worker.client);
      if (Date.now() - started > FINISH_RETRY_MS) {
        worker.problem(`could not answer call "${target?.to.call ?? taken.entry}" of queue "${taken.queue.queue}": ${messageOf(error)}`);
        return;
      }
      await delay(500);
    }
  }
}

/** Whom an answer is for: the job it answers (call id, nonce, digest), and the host whose reply stream gets it. */
interface Target {
  to: ReplyTo;
  host: string | undefined;
}

function targetOf(worker: WorkerContext, call: CallJob): Target {
  return { to: { call: call.call.id, job: call.nonce, digest: call.digest, worker: worker.id }, host: isProcessId(call.reply) ? call.reply : undefined };
}
