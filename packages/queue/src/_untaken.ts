import { messageOf } from "@toolhost/core";
import { errorResult } from "./_job.js";
import { GROUP } from "./_keys.js";
import type { Pending, QueueLink } from "./_pending.js";
import type { RedisClient } from "./_redis.js";
import type { Scripts } from "./_scripts.js";
import { QueueErrorCode } from "./errors.js";

const TICK_MS = 1_000;
/** A consumer that read the queue within this time is a worker at work (its blocking reads are 5 s long). */
const LIVE_MS = 15_000;

/** When the host says a call waits for a worker, and when it gives up on it. */
export interface UntakenBounds {
  /** A call no worker has taken for this long is said (a warning, once per queue until one is taken). */
  noticeAfterMs: number;
  /** A call no worker has taken for this long is withdrawn and answered as not run. */
  waitAtMostMs: number;
  /** Where the bound comes from, for the message. */
  boundBy: string;
}

/**
 * Watches the host's sent calls that no worker has taken yet: a job whose entry lies past its
 * consumer group's last delivered id is still in the queue (entries are handed out in order).
 * Costs nothing while calls are taken in time: Redis is asked only about calls older than a bound.
 */
export class Untaken {
  readonly #client: RedisClient;
  readonly #scripts: Scripts;
  readonly #pending: () => Iterable<Pending>;
  readonly #bounds: UntakenBounds;
  readonly #noticed = new Set<string>();
  readonly #timer: NodeJS.Timeout;
  #ticking = false;

  constructor(client: RedisClient, scripts: Scripts, pending: () => Iterable<Pending>, bounds: UntakenBounds) {
    this.#client = client;
    this.#scripts = scripts;
    this.#pending = pending;
    this.#bounds = { ...bounds };
    this.#timer = setInterval(() => void this.#tick(), TICK_MS);
    this.#timer.unref();
  }

  /** Bounds the wait of every call from now on (`toolhost call --wait`). */
  waitAtMost(ms: number, by: string): void {
    this.#bounds.waitAtMostMs = ms;
    this.#bounds.boundBy = by;
  }

  close(): void {
    clearInterval(this.#timer);
  }

  async #tick(): Promise<void> {
    if (this.#ticking) return;
    this.#ticking = true;
    try {
      const now = Date.now();
      const first = Math.min(this.#bounds.noticeAfterMs, this.#bounds.waitAtMostMs);
      const old = new Map<QueueLink, Pending[]>();
      for (const pending of this.#pending()) {
        if (pending.taken || pending.entry === undefined || !pending.queue || now - pending.sentAt < first) continue;
        const list = old.get(pending.queue);
        if (list) list.push(pending);
        else old.set(pending.queue, [pending]);
      }
      for (const [queue, calls] of old) await this.#check(queue, calls, now).catch(() => undefined);
    } finally {
      this.#ticking = false;
    }
  }

  async #check(queue: QueueLink, calls: Pending[], now: number): Promise<void> {
    const delivered = await this.#lastDelivered(queue);
    const untaken = calls.filter((pending) => {
      if (compareIds(pending.entry as string, delivered) <= 0) pending.taken = true;
      return !pending.taken;
    });
    if (untaken.length < calls.length) this.#noticed.delete(queue.keys.queue);
    for (const pending of untaken) {
      if (now - pending.sentAt < this.#bounds.waitAtMostMs || pending.settled) continue;
      if (await this.#scripts.withdraw({ record: queue.keys.call(pending.id), jobs: queue.keys.jobs }, pending.entry as string)) {
        pending.settle(this.#notTaken(pending, await this.#workers(queue)));
      } else {
        pending.taken = true;
      }
    }
    const waiting = untaken.filter((pending) => !pending.settled && now - pending.sentAt >= this.#bounds.noticeAfterMs);
    if (waiting.length > 0 && !this.#noticed.has(queue.keys.queue)) {
      this.#noticed.add(queue.keys.queue);
      const seconds = Math.round(this.#bounds.noticeAfterMs / 1000);
      process.emitWarning(
        `@toolhost/queue: ${waiting.length === 1 ? `a call ("${waiting[0]?.name}") sent` : `${waiting.length} calls sent`} to queue "${queue.keys.queue}" ${seconds} s ago or more ${waiting.length === 1 ? "is" : "are"} not taken by any worker yet: ${await this.#workers(queue)}. ` +
          `Start a worker where the tools should run (toolhost worker --queue ${queue.keys.queue}, with this queue plugin in its config and the hosts' key), or bound the wait (toolhost call --wait <seconds>, or the queue plugin's waitForWorkerSeconds). Unanswered calls are withdrawn after ${Math.round(this.#bounds.waitAtMostMs / 1000)} s (${this.#bounds.boundBy}).`,
        { code: QueueErrorCode.NOT_TAKEN },
      );
    }
  }

  /** The id of the last entry the queue's consumer group handed out ("0-0" when no worker ever read it). */
  async #lastDelivered(queue: QueueLink): Promise<string> {
    const groups = (await this.#client.xinfo("GROUPS", queue.keys.jobs)) as unknown[][];
    for (const group of groups) {
      const field = (name: string) => group[group.indexOf(name) + 1];
      if (field("name") === GROUP) return String(field("last-delivered-id"));
    }
    return "0-0";
  }

  /** What the host knows of the queue's workers, for the messages. */
  async #workers(queue: QueueLink): Promise<string> {
    try {
      const consumers = (await this.#client.xinfo("CONSUMERS", queue.keys.jobs, GROUP)) as unknown[][];
      const live = consumers.filter((consumer) => Number(consumer[consumer.indexOf("idle") + 1]) < LIVE_MS).length;
      if (live === 0) return `no worker has read queue "${queue.keys.queue}" in the last ${LIVE_MS / 1000} s (none is running, or they serve another queue or Redis)`;
      return `${live} worker${live === 1 ? "" : "s"} read the queue in the last ${LIVE_MS / 1000} s, all busy with other calls`;
    } catch (error) {
      if (/NOGROUP|no such key/i.test(messageOf(error))) return `no worker has ever read queue "${queue.keys.queue}" on this Redis`;
      return `the workers could not be looked up (${messageOf(error)})`;
    }
  }

  #notTaken(pending: Pending, workers: string) {
    const seconds = Math.round(this.#bounds.waitAtMostMs / 1000);
    const queue = pending.queue?.keys.queue ?? "";
    return errorResult(
      QueueErrorCode.NOT_TAKEN,
      `Not run: no worker of queue "${queue}" took "${pending.name}" within ${seconds} s (${this.#bounds.boundBy}): ${workers}. It was withdrawn from the queue. Start a worker (toolhost worker --queue ${queue}), or wait longer, then run the call again.`,
      { refused: true, queue },
    );
  }
}

/** Orders two stream ids (`<ms>-<seq>`). */
export function compareIds(a: string, b: string): number {
  const [am, as] = a.split("-").map(BigInt) as [bigint, bigint?];
  const [bm, bs] = b.split("-").map(BigInt) as [bigint, bigint?];
  if (am !== bm) return am < bm ? -1 : 1;
  const x = as ?? 0n;
  const y = bs ?? 0n;
  return x === y ? 0 : x < y ? -1 : 1;
}
