import type { AgentToolResult, ExecuteToolCallContext, PolicyService } from "@toolhost/core";
import { callDigest, messageOf } from "@toolhost/core";
import { decisionOf } from "./_decision.js";
import { type CallJob, deliveryOf, errorResult, newNonce } from "./_job.js";
import { keysOf, shardOf } from "./_keys.js";
import { Pending, type PendingHooks, type QueueLink } from "./_pending.js";
import { type CallRecord, isRecordOf, queuedRecord, readRecord } from "./_records.js";
import { type RedisClient, type RedisTarget, isReady, openClient, recover } from "./_redis.js";
import { openReply, parseReply, recordedResult } from "./_replies.js";
import { ReplyReader } from "./_reply-reader.js";
import { type Scripts, type Signed, scriptsOf } from "./_scripts.js";
import { type Keyring, canonicalJson, sign } from "./_signing.js";
import { Untaken, type UntakenBounds } from "./_untaken.js";
import { QueueErrorCode } from "./errors.js";
import type { QueueOptions } from "./options.js";

/** What the producer needs to sign jobs: its keys, and the policy whose rules name the deciding layers. */
export interface Signer {
  keyring: Keyring | undefined;
  policy(): PolicyService | undefined;
  /** The names of the host's `beforeToolCall` taps: who judged the call. */
  judges(): string[];
}

const CANCEL_REPEAT_MS = 500;
const CANCEL_GIVE_UP_MS = 60_000;
const POLL_MS = 500;
const RESEND_MS = 250;

/** The producing side: sends calls to the queues and turns the workers' answers back into results and updates. */
export class Producer {
  readonly #client: RedisClient;
  readonly #scripts: Scripts;
  readonly #options: QueueOptions;
  readonly #target: RedisTarget;
  readonly #signer: Signer;
  readonly #hostId: string;
  #queues: QueueLink[] = [];
  /** The readers of this host's answers, started with the first call (a host that sends none keeps no stream). */
  #opened: Promise<QueueLink[]> | undefined;
  /** Calls by id, registered before anything is awaited: the one place a call's answer is found. */
  readonly #pending = new Map<string, Pending>();
  /** Jobs whose callers aborted, by nonce: cancel is repeated until their answer comes (a worker may be just taking them). */
  readonly #cancelling = new Map<string, NodeJS.Timeout>();
  readonly #untaken: Untaken;
  /** What every call does when settled (leaves the map) and when its last caller left (cancelled). */
  readonly #hooks: PendingHooks = {
    settled: (done) => {
      if (this.#pending.get(done.id) === done) this.#pending.delete(done.id);
    },
    abandoned: (left) => {
      this.#startCancel(left);
      left.settle(aborted(left.name));
    },
  };
  #closing = false;

  constructor(client: RedisClient, target: RedisTarget, options: QueueOptions, signer: Signer, hostId: string, bounds: UntakenBounds) {
    this.#client = client;
    this.#scripts = scriptsOf(client);
    this.#target = target;
    this.#options = options;
    this.#signer = signer;
    this.#hostId = hostId;
    this.#untaken = new Untaken(client, this.#scripts, () => this.#pending.values(), bounds);
  }

  /** Bounds how long each call from now on waits for a worker to take it. */
  waitAtMost(ms: number, by: string): void {
    this.#untaken.waitAtMost(ms, by);
  }

  /** Starts reading this host's answers on every queue before its first call is sent, so that none is missed. */
  #open(): Promise<QueueLink[]> {
    this.#opened ??= this.#openReaders();
    return this.#opened;
  }

  async #openReaders(): Promise<QueueLink[]> {
    const names = typeof this.#options.queue === "string" ? [this.#options.queue] : this.#options.queue;
    const links: QueueLink[] = [];
    try {
      for (const name of names) {
        const keys = keysOf(this.#options.prefix, name);
        const client = openClient(this.#target, "blocking", `toolhost-replies:${name}:${this.#hostId}`);
        const link: QueueLink = { keys, lost: false, reader: undefined as unknown as ReplyReader };
        link.reader = new ReplyReader(client, keys, this.#hostId, {
          reply: (entry) => this.#answer(entry),
          lost: () => this.#lost(link),
          back: () => this.#back(link),
        });
        links.push(link);
        await link.reader.start();
      }
    } catch (error) {
      await Promise.all(links.map((link) => link.reader.close(this.#client)));
      throw error;
    }
    this.#queues = links;
    return links;
  }

  /**
   * Sends one call and resolves to the worker's result; never rejects. The call is registered
   * under its id at once, before anything is awaited: a second call with that id on this host
   * shares its answer (same content) or is refused at once (other content).
   */
  run(ctx: ExecuteToolCallContext, signal: AbortSignal): Promise<AgentToolResult> {
    const { toolCall } = ctx;
    const abortedResult = () => aborted(toolCall.name);
    if (this.#closing) return Promise.resolve(abortedResult());
    if (!isReady(this.#client)) return Promise.resolve(this.#unavailable(toolCall.name, `the connection is ${this.#client.status}`));
    if (signal.aborted) return Promise.resolve(abortedResult());
    let digest: string;
    try {
      digest = callDigest({ name: toolCall.name, args: ctx.args, ...(ctx.access && { access: ctx.access }) });
    } catch (error) {
      return Promise.resolve(errorResult(QueueErrorCode.BAD_JOB, `Not run: "${toolCall.name}" could not be sent: ${messageOf(error)}.`, { refused: true }));
    }
    const running = this.#pending.get(toolCall.id);
    if (running) {
      if (running.digest === digest) return running.join(signal, ctx.execution.onUpdate, abortedResult);
      return Promise.resolve(
        errorResult(
          QueueErrorCode.CALL_ID_REUSED,
          `Not run: call id "${toolCall.id}" is already running on this host for another call (other tool or arguments). Give each call its own id.`,
          { refused: true },
        ),
      );
    }
    const pending = new Pending({ id: toolCall.id, name: toolCall.name, digest }, this.#hooks);
    this.#pending.set(toolCall.id, pending);
    const answer = pending.join(signal, ctx.execution.onUpdate, abortedResult);
    void this.#start(pending, ctx);
    return answer;
  }

  /** Opens the reply readers, makes the call's job, and sends it; every failure is the call's answer. */
  async #start(pending: Pending, ctx: ExecuteToolCallContext): Promise<void> {
    const opening = this.#open();
    let links: QueueLink[];
    try {
      links = await opening;
    } catch (error) {
      // Tried again with the next call (unless another call already started a new try).
      if (this.#opened === opening) this.#opened = undefined;
      pending.settle(this.#unavailable(pending.name, messageOf(error)));
      return;
    }
    if (pending.settled) return;
    const queue = links[shardOf(pending.id, links.length)] as QueueLink;
    pending.queue = queue;
    let call: CallJob;
    try {
      call = await this.#callJob(ctx, queue.keys.queue, pending.digest);
    } catch (error) {
      pending.settle(errorResult(QueueErrorCode.BAD_JOB, `Not run: "${pending.name}" could not be made into a job: ${messageOf(error)}.`, { refused: true }));
      return;
    }
    if (pending.settled) return;
    pending.delivery = call.delivery;
    pending.nextJob = () => {
      const nonce = newNonce();
      const job = this.#sign({ ...call, nonce, at: Date.now() });
      pending.sent(nonce, job.sig);
      return { nonce, job };
    };
    await this.#send(pending, false);
  }

  /** The call as this host's pipeline left it, with the decision, for the worker (its nonce and time are the job's). */
  async #callJob(ctx: ExecuteToolCallContext, queue: string, digest: string): Promise<CallJob> {
    const { toolCall, tool, execution } = ctx;
    const decision = await decisionOf(ctx, this.#signer.judges(), this.#signer.policy());
    const { maxResultBytes, maxUpdateBytes, updateIntervalMs, retention } = this.#options;
    return {
      v: 4,
      nonce: "",
      digest,
      queue,
      call: { id: toolCall.id, name: toolCall.name },
      args: ctx.args,
      delivery: deliveryOf(tool),
      decision: { ...decision, decidedBy: this.#hostId, approved: execution.approval?.approved === true, ...(ctx.access && { access: ctx.access }) },
      reply: this.#hostId,
      at: 0,
      limits: { maxResultBytes, maxUpdateBytes, updateIntervalMs },
      retention: { completedSeconds: retention.completedSeconds, failedSeconds: retention.failedSeconds },
    };
  }

  #sign(call: CallJob): Signed {
    const text = canonicalJson(call);
    return { text, sig: this.#signer.keyring ? sign(this.#signer.keyring, "job", text) : "" };
  }

  /**
   * Adds a job of the call (`again`: a retryable call whose connection was lost), or learns what its
   * id already holds. One at a time per call: a second send while one is in flight does nothing.
   */
  async #send(pending: Pending, again: boolean): Promise<void> {
    if (pending.sending || pending.settled || !pending.queue || !pending.nextJob) return;
    pending.sending = true;
    clearTimeout(pending.retry);
    pending.retry = undefined;
    const { keys } = pending.queue;
    try {
      const added = await this.#scripts.add({ record: keys.call(pending.id), jobs: keys.jobs }, queuedRecord(pending.digest), pending.nextJob().job, again);
      pending.sending = false;
      clearTimeout(pending.waiting);
      pending.waiting = undefined;
      if (!added.added) return this.#known(pending, readRecord(added.record));
      Object.assign(pending, { entry: added.entry, sentAt: Date.now(), taken: false });
      // Aborted while the job was being added: removed, and any worker that just took it told.
      // (Answered already is another matter: a worker can answer before this add's reply is read.)
      if (pending.cancelled) this.#startCancel(pending);
    } catch (error) {
      pending.sending = false;
      recover(this.#client);
      if (pending.settled) return;
      if (pending.delivery === "retry" && (pending.queue.lost || pending.waiting !== undefined)) {
        this.#wait(pending);
        // The reader is back but this connection not yet: try again shortly, until the wait runs out.
        if (!pending.queue.lost) pending.retry = setTimeout(() => void this.#send(pending, true), RESEND_MS);
        return;
      }
      pending.settle(this.#unavailable(pending.name, messageOf(error)));
    }
  }

  /** A call id sent again: the same call gets its answer (now or when it comes); another call under that id is refused. */
  #known(pending: Pending, record: CallRecord | undefined): void {
    if (pending.settled) return;
    if (!record || !isRecordOf(record, pending.digest)) {
      pending.settle(
        errorResult(
          QueueErrorCode.CALL_ID_REUSED,
          `Not run: call id "${pending.id}" was already used on queue "${pending.queue?.keys.queue}" for another call (other tool or arguments) within the retention time. Give each call its own id.`,
          { refused: true },
        ),
      );
      return;
    }
    if (record.state === "done") return pending.settle(recordedResult(this.#signer.keyring, record.answer, { callId: pending.id, digest: pending.digest, retention: this.#options.retention }));
    // In flight from elsewhere (another host, or this one before a restart): its answer goes there; watch the record.
    pending.polling = setTimeout(() => void this.#poll(pending), POLL_MS);
  }

  async #poll(pending: Pending): Promise<void> {
    if (pending.settled || !pending.queue) return;
    try {
      const record = readRecord(await this.#client.get(pending.queue.keys.call(pending.id)));
      if (record) return this.#known(pending, record);
      pending.settle(this.#lostResult(pending, "its record in Redis is gone (it expired or was removed) while it ran elsewhere"));
    } catch (error) {
      pending.settle(this.#lostResult(pending, messageOf(error)));
    }
  }

  /** An entry of a reply stream: the answer (or an update) of a job this host sent, or else nothing. */
  #answer(entry: Signed): void {
    const body = parseReply(entry.text);
    if (!body || typeof body.call !== "string") return;
    if (typeof body.job === "string") this.#stopCancel(body.job);
    const pending = this.#pending.get(body.call);
    if (!pending) return;
    const opened = openReply(this.#signer.keyring, entry, body, { callId: pending.id, digest: pending.digest, jobs: pending });
    if (!opened) return;
    if ("stale" in opened) this.#refuseStale(pending, opened.stale);
    else if ("update" in opened) pending.update(opened.update);
    else if (!isCopyRefusal(opened.result)) pending.settle(opened.result);
  }

  /** A signed answer of another job under this call's id: refused, said once; the call waits for its own. */
  #refuseStale(pending: Pending, why: string): void {
    if (pending.refusedStale) return;
    pending.refusedStale = true;
    process.emitWarning(
      `@toolhost/queue: refused an answer in Redis for call "${pending.id}" ("${pending.name}"): ${why}. It is a copy of an earlier answer, put back by someone who can write to Redis, not this call's answer; the call goes on and gets its own.`,
      { code: QueueErrorCode.REPLY_REPLAYED },
    );
  }

  /**
   * The connection to a queue's Redis was lost: a call that may not run twice is answered at once
   * (it may or may not have run); a retryable one waits for the connection, to be sent again.
   */
  #lost(link: QueueLink): void {
    link.lost = true;
    for (const pending of [...this.#pending.values()]) {
      if (pending.queue !== link) continue;
      if (pending.delivery === "retry" && pending.polling === undefined) this.#wait(pending);
      else pending.settle(this.#lostResult(pending, "the connection to Redis was lost"));
    }
  }

  #wait(pending: Pending): void {
    if (pending.waiting) return;
    pending.waiting = setTimeout(() => {
      pending.settle(this.#lostResult(pending, `the connection to Redis was lost and did not come back within ${this.#options.failoverWaitMs} ms`));
    }, this.#options.failoverWaitMs);
  }

  /** The connection is back (Redis restarted, or a replica took over): retryable calls are sent again. */
  #back(link: QueueLink): void {
    link.lost = false;
    for (const pending of [...this.#pending.values()]) {
      if (pending.queue === link && pending.waiting !== undefined) void this.#send(pending, true);
    }
  }

  /** Removes the job if no worker has it yet, and tells the workers (again, until it is answered) to abort it. */
  #startCancel(pending: Pending): void {
    if (!pending.queue) return;
    const { keys } = pending.queue;
    if (pending.entry !== undefined) this.#removeJob(pending, pending.entry);
    for (const nonce of pending.nonces()) {
      const send = (): void => {
        this.#client.publish(keys.cancel, nonce).catch(() => undefined);
      };
      this.#stopCancel(nonce);
      send();
      const started = Date.now();
      const timer = setInterval(() => {
        if (Date.now() - started > CANCEL_GIVE_UP_MS || this.#closing) this.#stopCancel(nonce);
        else send();
      }, CANCEL_REPEAT_MS);
      timer.unref();
      this.#cancelling.set(nonce, timer);
    }
  }

  #removeJob(pending: Pending, entry: string): void {
    const keys = pending.queue?.keys;
    if (keys) this.#client.multi().xdel(keys.jobs, entry).del(keys.call(pending.id)).exec().catch(() => undefined);
  }

  #stopCancel(nonce: string): void {
    const timer = this.#cancelling.get(nonce);
    if (!timer) return;
    clearInterval(timer);
    this.#cancelling.delete(nonce);
  }

  #lostResult(pending: Pending, why: string): AgentToolResult {
    return errorResult(
      QueueErrorCode.CONNECTION_LOST,
      `"${pending.name}" was queued or running on a worker when ${why} (Redis at ${this.#target.display}): the call may or may not have run. Check Redis, then run the call again if it is safe to.`,
      { delivery: pending.delivery },
    );
  }

  #unavailable(name: string, why: string): AgentToolResult {
    const queues = typeof this.#options.queue === "string" ? this.#options.queue : this.#options.queue.join(", ");
    return errorResult(
      QueueErrorCode.UNAVAILABLE,
      `Not run: "${name}" could not be sent to queue "${queues}" because Redis at ${this.#target.display} is not reachable (${why}). Start Redis or check the connection, then try again.`,
      { refused: true },
    );
  }

  async close(): Promise<void> {
    this.#closing = true;
    this.#untaken.close();
    await this.#opened?.catch(() => undefined);
    for (const timer of this.#cancelling.values()) clearInterval(timer);
    for (const pending of [...this.#pending.values()]) pending.settle(aborted(pending.name));
    await Promise.all(this.#queues.map((link) => link.reader.close(this.#client)));
  }
}

/**
 * A worker's refusal of a copy of one of this host's jobs (handed out again by a failover, or a job
 * superseded by the one sent again after it): not the call's answer, which the job's own run (or the
 * newer job) gives.
 */
function isCopyRefusal(result: AgentToolResult): boolean {
  return (result.details as { code?: unknown } | undefined)?.code === QueueErrorCode.JOB_REPLAYED;
}

function aborted(name: string): AgentToolResult {
  return errorResult("TOOLHOST_ABORTED", `Tool "${name}" aborted.`);
}
