import { hostname } from "node:os";
import { type AgentToolResult, type AgentToolUpdate, type ExecuteToolCallContext, type PolicyService, messageOf } from "@toolhost/core";
import { Job, Queue, QueueEvents } from "bullmq";
import type { Redis } from "ioredis";
import { blockingOptions, type RedisTarget, settleWithin } from "./_connection.js";
import { decisionOf } from "./_decision.js";
import { type CallJob, type JobEnvelope, deliveryOf, errorResult, jobIdOf, keysOf, parseEnvelope, workerLostResult } from "./_job.js";
import { badResult, openReply } from "./_replies.js";
import { type Keyring, canonicalJson, sign } from "./_signing.js";
import type { QueueOptions } from "./options.js";
import { QueueErrorCode } from "./errors.js";

interface Pending {
  data: CallJob;
  /** The signed text of the call, as the job carries it. */
  text: string;
  settle(result: AgentToolResult): void;
  onUpdate(update: AgentToolUpdate): void;
}

const CANCEL_REPEAT_MS = 500;
const CANCEL_GIVE_UP_MS = 60_000;
const CLOSE_MS = 2000;

/** The producing side: enqueues calls and turns the queue's events back into results and updates. */
export class Producer {
  readonly #queue: Queue;
  readonly #events: QueueEvents;
  readonly #client: Redis;
  readonly #options: QueueOptions;
  readonly #target: RedisTarget;
  readonly #cancel: string;
  readonly #pending = new Map<string, Pending>();
  /** Jobs whose callers aborted: cancel is repeated until they finish (a worker may be just taking them). */
  readonly #cancelling = new Map<string, NodeJS.Timeout>();
  readonly #id = `${hostname()}:${process.pid}`;
  readonly #keyring: Keyring | undefined;
  readonly #signer: Signer;
  #closing = false;

  private constructor(client: Redis, events: QueueEvents, options: QueueOptions, target: RedisTarget, signer: Signer) {
    this.#keyring = signer.keyring;
    this.#signer = signer;
    this.#client = client;
    this.#events = events;
    this.#options = options;
    this.#target = target;
    this.#cancel = keysOf(options.prefix, options.queue).cancel;
    this.#queue = new Queue(options.queue, { connection: client, prefix: options.prefix });
    this.#queue.on("error", () => undefined);
    events.on("completed", ({ jobId, returnvalue }) => this.#finish(jobId, returnvalue));
    events.on("failed", ({ jobId, failedReason }) => this.#finish(jobId, undefined, failureResult(failedReason)));
    events.on("progress", ({ jobId, data }) => {
      const pending = this.#pending.get(jobId);
      const update = pending && openReply(this.#keyring, data, pending.data.call.id, "update");
      if (update) pending.onUpdate(update);
    });
    events.on("duplicated", ({ jobId }) => void this.#duplicated(jobId));
    events.on("error", () => undefined);
    client.on("close", () => {
      if (!this.#closing) this.#failAll();
    });
  }

  /** Starts listening to the queue's events before any call is sent, so that none is missed. */
  static async open(client: Redis, options: QueueOptions, target: RedisTarget, signer: Signer): Promise<Producer> {
    const events = new QueueEvents(options.queue, {
      connection: blockingOptions(target, `toolhost-events:${options.queue}`),
      prefix: options.prefix,
    });
    await events.waitUntilReady();
    return new Producer(client, events, options, target, signer);
  }

  /** Sends one call and resolves to the worker's result; never rejects. */
  async run(ctx: ExecuteToolCallContext, signal: AbortSignal): Promise<AgentToolResult> {
    const { toolCall, tool, execution } = ctx;
    if (this.#client.status !== "ready") return this.#unavailable(toolCall.name, `the connection is ${this.#client.status}`);
    if (signal.aborted) return aborted(toolCall.name);
    const jobId = jobIdOf(toolCall.id);
    const data = await this.#callJob(ctx);
    const text = canonicalJson(data);
    const envelope: JobEnvelope = this.#keyring ? { v: 2, job: text, sig: sign(this.#keyring, "job", text) } : { v: 2, job: text };
    if (this.#pending.has(jobId)) {
      return errorResult(QueueErrorCode.CALL_ID_REUSED, `Not run: call id "${toolCall.id}" is already running on queue "${this.#options.queue}". Give each call its own id.`);
    }
    return new Promise<AgentToolResult>((resolve) => {
      const onAbort = (): void => {
        this.#startCancel(jobId);
        settle(aborted(toolCall.name));
      };
      const settle = (result: AgentToolResult): void => {
        if (this.#pending.get(jobId)?.settle !== settle) return;
        this.#pending.delete(jobId);
        signal.removeEventListener("abort", onAbort);
        resolve(result);
      };
      this.#pending.set(jobId, { data, text, settle, onUpdate: execution.onUpdate });
      signal.addEventListener("abort", onAbort, { once: true });
      const retention = this.#options.retention;
      this.#queue
        .add(toolCall.name, envelope, {
          jobId,
          attempts: 1,
          removeOnComplete: { age: retention.completedSeconds },
          removeOnFail: { age: retention.failedSeconds },
        })
        .catch((error: unknown) => settle(this.#unavailable(toolCall.name, messageOf(error))));
    });
  }

  /** The call as this host's pipeline left it, with the decision, for the worker. */
  async #callJob(ctx: ExecuteToolCallContext): Promise<CallJob> {
    const { toolCall, tool, execution } = ctx;
    const decision = await decisionOf(ctx, this.#signer.judges(), this.#signer.policy());
    return {
      v: 2,
      queue: this.#options.queue,
      call: { id: toolCall.id, name: toolCall.name },
      args: ctx.args,
      delivery: deliveryOf(tool),
      decision: { ...decision, decidedBy: this.#id, approved: execution.approval?.approved === true, ...(ctx.access ? { access: ctx.access } : {}) },
      at: Date.now(),
      limits: {
        maxResultBytes: this.#options.maxResultBytes,
        maxUpdateBytes: this.#options.maxUpdateBytes,
        updateIntervalMs: this.#options.updateIntervalMs,
      },
    };
  }

  /** A call id sent again: the same call gets the job's result; another call under that id is refused. */
  async #duplicated(jobId: string): Promise<void> {
    const pending = this.#pending.get(jobId);
    if (!pending) return;
    let job: Job | undefined;
    try {
      job = await Job.fromId(this.#queue, jobId);
    } catch (error) {
      pending.settle(this.#unavailable(pending.data.call.name, messageOf(error)));
      return;
    }
    if (!job) return;
    const theirs = sameCall(job.data, pending.data);
    if (theirs !== true) {
      pending.settle(
        errorResult(
          QueueErrorCode.CALL_ID_REUSED,
          `Not run: call id "${pending.data.call.id}" was already used on queue "${this.#options.queue}" for another call (${theirs} with other arguments) within the retention time. Give each call its own id.`,
          { jobId },
        ),
      );
      return;
    }
    if (job.finishedOn !== undefined) this.#finish(jobId, job.returnvalue, job.failedReason ? failureResult(job.failedReason) : undefined);
  }

  /** A job finished: its signed answer (or `failure`, when BullMQ failed it) settles the call. */
  #finish(jobId: string, answer: unknown, failure?: AgentToolResult): void {
    const timer = this.#cancelling.get(jobId);
    if (timer) {
      clearInterval(timer);
      this.#cancelling.delete(jobId);
    }
    const pending = this.#pending.get(jobId);
    pending?.settle(failure ?? openReply(this.#keyring, answer, pending.data.call.id, "result"));
  }

  /** Removes the job if no worker has it yet; else tells the workers (again, until it finishes) to abort it. */
  #startCancel(jobId: string): void {
    const send = (): void => {
      this.#client.publish(this.#cancel, jobId).catch(() => undefined);
    };
    this.#queue.remove(jobId).catch(() => 0);
    send();
    const started = Date.now();
    const timer = setInterval(() => {
      if (Date.now() - started > CANCEL_GIVE_UP_MS || this.#closing) {
        clearInterval(timer);
        this.#cancelling.delete(jobId);
      } else send();
    }, CANCEL_REPEAT_MS);
    timer.unref();
    this.#cancelling.set(jobId, timer);
  }

  #failAll(): void {
    for (const pending of [...this.#pending.values()]) {
      pending.settle(
        errorResult(
          QueueErrorCode.CONNECTION_LOST,
          `The connection to Redis at ${this.#target.display} was lost while "${pending.data.call.name}" was queued or running on a worker: the call may or may not have run. Check Redis, then run the call again if it is safe to.`,
          { delivery: pending.data.delivery },
        ),
      );
    }
  }

  #unavailable(name: string, why: string): AgentToolResult {
    return errorResult(
      QueueErrorCode.UNAVAILABLE,
      `Not run: "${name}" could not be sent to queue "${this.#options.queue}" because Redis at ${this.#target.display} is not reachable (${why}). Start Redis or check the connection, then try again.`,
    );
  }

  async close(): Promise<void> {
    this.#closing = true;
    for (const timer of this.#cancelling.values()) clearInterval(timer);
    for (const pending of [...this.#pending.values()]) pending.settle(aborted(pending.data.call.name));
    await settleWithin(Promise.allSettled([this.#events.close(), this.#queue.close()]), CLOSE_MS);
    this.#events.disconnect().catch(() => undefined);
    this.#queue.disconnect().catch(() => undefined);
  }
}

function aborted(name: string): AgentToolResult {
  return errorResult("TOOLHOST_ABORTED", `Tool "${name}" aborted.`);
}

/** What the producer needs to sign jobs: its keys, and the policy whose rules name the deciding layers. */
export interface Signer {
  keyring: Keyring | undefined;
  policy(): PolicyService | undefined;
  /** The names of the host's `beforeToolCall` taps: who judged the call. */
  judges(): string[];
}

/** True when a job in Redis holds the same call (tool and arguments); else the tool it holds. */
function sameCall(data: unknown, ours: CallJob): true | string {
  const envelope = parseEnvelope(data, "job");
  let theirs: Partial<CallJob> | undefined;
  try {
    theirs = envelope ? (JSON.parse(envelope.text) as Partial<CallJob>) : undefined;
  } catch {
    theirs = undefined;
  }
  if (theirs?.call?.name === ours.call.name && canonicalJson(theirs.args) === canonicalJson(ours.args)) return true;
  return String(theirs?.call?.name ?? "another program's job");
}

/** A job BullMQ failed: a stalled worker (crashed, killed) or a failure outside the tool. */
function failureResult(reason: string | undefined): AgentToolResult {
  if (reason !== undefined && /stalled/i.test(reason)) return workerLostResult();
  return errorResult(QueueErrorCode.WORKER_FAILED, `The worker failed the call outside the tool: ${reason ?? "no reason given"}.`);
}
