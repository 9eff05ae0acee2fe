import type { AgentToolResult, AgentToolUpdate, ExecuteToolCallContext, PolicyService } from "@toolhost/core";
import { messageOf } from "@toolhost/core";
import { decisionOf } from "./_decision.js";
import { type CallJob, type Delivery, contentHash, deliveryOf, errorResult } from "./_job.js";
import { type QueueKeys, keysOf, shardOf } from "./_keys.js";
import { type CallRecord, queuedRecord, readRecord } from "./_records.js";
import { type RedisClient, type RedisTarget, isReady, openClient, recover } from "./_redis.js";
import { badResult, openReply, replyCallId } from "./_replies.js";
import { ReplyReader } from "./_reply-reader.js";
import { type Scripts, type Signed, scriptsOf } from "./_scripts.js";
import { type Keyring, canonicalJson, sign } from "./_signing.js";
import { QueueErrorCode } from "./errors.js";
import type { QueueOptions } from "./options.js";

/** A call sent and not answered yet. */
interface Pending {
  id: string;
  name: string;
  queue: QueueLink;
  delivery: Delivery;
  hash: string;
  /** The call signed for sending (again: a fresh signature each time). */
  job(): Signed;
  /** Its entry in the jobs stream, once added (a cancel removes it). */
  entry?: string;
  settle(result: AgentToolResult): void;
  onUpdate(update: AgentToolUpdate): void;
  /** Set while a retryable call waits for a lost connection to come back: when it fires, the call is lost. */
  waiting?: NodeJS.Timeout;
  /** Set while a retryable call is to be sent again soon (the connection is back, the last try failed). */
  retry?: NodeJS.Timeout;
  /** Set while the call id is in flight from elsewhere (another host, or before a restart). */
  polling?: NodeJS.Timeout;
}

/** One of the host's queues: its keys, and the reader of this host's answers on it. */
interface QueueLink {
  keys: QueueKeys;
  reader: ReplyReader;
  lost: boolean;
}

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
  readonly #queues: QueueLink[] = [];
  /** The readers of this host's answers, started with the first call (a host that sends none keeps no stream). */
  #opened: Promise<void> | undefined;
  readonly #pending = new Map<string, Pending>();
  /** Calls whose callers aborted: cancel is repeated until their answer comes (a worker may be just taking them). */
  readonly #cancelling = new Map<string, NodeJS.Timeout>();
  #closing = false;

  constructor(client: RedisClient, target: RedisTarget, options: QueueOptions, signer: Signer, hostId: string) {
    this.#client = client;
    this.#scripts = scriptsOf(client);
    this.#target = target;
    this.#options = options;
    this.#signer = signer;
    this.#hostId = hostId;
  }

  /** Starts reading this host's answers on every queue before its first call is sent, so that none is missed. */
  #open(): Promise<void> {
    this.#opened ??= (async () => {
      const names = typeof this.#options.queue === "string" ? [this.#options.queue] : this.#options.queue;
      for (const name of names) {
        const keys = keysOf(this.#options.prefix, name);
        const client = openClient(this.#target, "blocking", `toolhost-replies:${name}:${this.#hostId}`);
        const link: QueueLink = { keys, lost: false, reader: undefined as unknown as ReplyReader };
        link.reader = new ReplyReader(client, keys, this.#hostId, {
          reply: (entry) => this.#answer(entry),
          lost: () => this.#lost(link),
          back: () => this.#back(link),
        });
        this.#queues.push(link);
        await link.reader.start();
      }
    })();
    return this.#opened;
  }

  /** Sends one call and resolves to the worker's result; never rejects. */
  async run(ctx: ExecuteToolCallContext, signal: AbortSignal): Promise<AgentToolResult> {
    const { toolCall } = ctx;
    if (!isReady(this.#client)) return this.#unavailable(toolCall.name, `the connection is ${this.#client.status}`);
    if (signal.aborted) return aborted(toolCall.name);
    try {
      await this.#open();
    } catch (error) {
      // Tried again with the next call.
      this.#opened = undefined;
      await Promise.all(this.#queues.splice(0).map((link) => link.reader.close(this.#client)));
      return this.#unavailable(toolCall.name, messageOf(error));
    }
    if (this.#pending.has(toolCall.id)) {
      return errorResult(QueueErrorCode.CALL_ID_REUSED, `Not run: call id "${toolCall.id}" is already running on this host. Give each call its own id.`);
    }
    const queue = this.#queues[shardOf(toolCall.id, this.#queues.length)] as QueueLink;
    const call = await this.#callJob(ctx, queue.keys.queue);
    return new Promise<AgentToolResult>((resolve) => {
      const pending: Pending = {
        id: toolCall.id,
        name: toolCall.name,
        queue,
        delivery: call.delivery,
        hash: contentHash(toolCall.name, call.args),
        job: () => this.#sign({ ...call, at: Date.now() }),
        onUpdate: ctx.execution.onUpdate,
        settle: (result) => {
          if (this.#pending.get(pending.id) !== pending) return;
          this.#pending.delete(pending.id);
          clearTimeout(pending.waiting);
          clearTimeout(pending.retry);
          clearTimeout(pending.polling);
          signal.removeEventListener("abort", onAbort);
          resolve(result);
        },
      };
      const onAbort = (): void => {
        this.#startCancel(pending);
        pending.settle(aborted(pending.name));
      };
      this.#pending.set(pending.id, pending);
      signal.addEventListener("abort", onAbort, { once: true });
      void this.#send(pending, false);
    });
  }

  /** The call as this host's pipeline left it, with the decision, for the worker. */
  async #callJob(ctx: ExecuteToolCallContext, queue: string): Promise<CallJob> {
    const { toolCall, tool, execution } = ctx;
    const decision = await decisionOf(ctx, this.#signer.judges(), this.#signer.policy());
    const { maxResultBytes, maxUpdateBytes, updateIntervalMs, retention } = this.#options;
    return {
      v: 3,
      queue,
      call: { id: toolCall.id, name: toolCall.name },
      args: ctx.args,
      delivery: deliveryOf(tool),
      decision: { ...decision, decidedBy: this.#hostId, approved: execution.approval?.approved === true, ...(ctx.access && { access: ctx.access }) },
      reply: this.#hostId,
      at: Date.now(),
      limits: { maxResultBytes, maxUpdateBytes, updateIntervalMs },
      retention: { completedSeconds: retention.completedSeconds, failedSeconds: retention.failedSeconds },
    };
  }

  #sign(call: CallJob): Signed {
    const text = canonicalJson(call);
    return { text, sig: this.#signer.keyring ? sign(this.#signer.keyring, "job", text) : "" };
  }

  /** Adds the call's job (`again`: a retryable call whose connection was lost), or learns what its id already holds. */
  async #send(pending: Pending, again: boolean): Promise<void> {
    const { keys } = pending.queue;
    try {
      const added = await this.#scripts.add({ record: keys.call(pending.id), jobs: keys.jobs }, queuedRecord(pending.hash), pending.job(), again);
      clearTimeout(pending.waiting);
      pending.waiting = undefined;
      if (added.added) pending.entry = added.entry;
      else this.#known(pending, readRecord(added.record));
    } catch (error) {
      recover(this.#client);
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
    if (!record || record.hash !== pending.hash) {
      pending.settle(
        errorResult(
          QueueErrorCode.CALL_ID_REUSED,
          `Not run: call id "${pending.id}" was already used on queue "${pending.queue.keys.queue}" for another call (other tool or arguments) within the retention time. Give each call its own id.`,
        ),
      );
      return;
    }
    if (record.state === "done") {
      const opened = openReply(this.#signer.keyring, record.answer, pending.id);
      pending.settle(opened && "result" in opened ? opened.result : badResult());
      return;
    }
    // In flight from elsewhere (another host, or this one before a restart): its answer goes there; watch the record.
    pending.polling = setTimeout(() => void this.#poll(pending), POLL_MS);
  }

  async #poll(pending: Pending): Promise<void> {
    try {
      const record = readRecord(await this.#client.get(pending.queue.keys.call(pending.id)));
      if (record) return this.#known(pending, record);
      pending.settle(this.#lostResult(pending, "its record in Redis is gone (it expired or was removed) while it ran elsewhere"));
    } catch (error) {
      pending.settle(this.#lostResult(pending, messageOf(error)));
    }
  }

  /** An entry of a reply stream: the answer (or an update) of a pending call. */
  #answer(entry: Signed): void {
    const callId = replyCallId(entry.text);
    if (callId === undefined) return;
    this.#stopCancel(callId);
    const pending = this.#pending.get(callId);
    if (!pending) return;
    const opened = openReply(this.#signer.keyring, entry, callId);
    if (!opened) return;
    if ("update" in opened) pending.onUpdate(opened.update);
    else pending.settle(opened.result);
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
    const { keys } = pending.queue;
    if (pending.entry !== undefined) {
      this.#client.multi().xdel(keys.jobs, pending.entry).del(keys.call(pending.id)).exec().catch(() => undefined);
    }
    const send = (): void => {
      this.#client.publish(keys.cancel, pending.id).catch(() => undefined);
    };
    send();
    const started = Date.now();
    const timer = setInterval(() => {
      if (Date.now() - started > CANCEL_GIVE_UP_MS || this.#closing) this.#stopCancel(pending.id);
      else send();
    }, CANCEL_REPEAT_MS);
    timer.unref();
    this.#cancelling.set(pending.id, timer);
  }

  #stopCancel(callId: string): void {
    const timer = this.#cancelling.get(callId);
    if (!timer) return;
    clearInterval(timer);
    this.#cancelling.delete(callId);
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
    );
  }

  async close(): Promise<void> {
    this.#closing = true;
    await this.#opened?.catch(() => undefined);
    for (const timer of this.#cancelling.values()) clearInterval(timer);
    for (const pending of [...this.#pending.values()]) pending.settle(aborted(pending.name));
    await Promise.all(this.#queues.map((link) => link.reader.close(this.#client)));
  }
}

function aborted(name: string): AgentToolResult {
  return errorResult("TOOLHOST_ABORTED", `Tool "${name}" aborted.`);
}
