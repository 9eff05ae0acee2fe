import { setTimeout as delay } from "node:timers/promises";
import { messageOf } from "@toolhost/core";
import { GROUP, type QueueKeys } from "./_keys.js";
import { type RedisClient, recover } from "./_redis.js";
import type { Taken } from "./_run-job.js";
import type { Slots } from "./_slots.js";

/** How long one blocking read of a queue's jobs waits at most before it reads again. */
const BLOCK_MS = 5_000;
/** The most jobs one read takes. */
const BATCH = 100;

type StreamEntries = Array<[string, string[] | null]>;

/** What a queue's consumer hands its worker. */
export interface ConsumerOwner {
  /** A job taken (one slot of `slots` is held for it: the owner gives it back when the job is done). */
  take(taken: Taken): void;
  problem(message: string): void;
}

/**
 * A worker's reader of one queue: blocking reads of the jobs stream in the queue's consumer group
 * (each job to one worker), as many as the worker has free slots, on a connection of its own; and,
 * on the worker's command connection, the jobs of workers that stopped (idle longer than the lock
 * duration, as their worker no longer renews them), taken over as re-deliveries.
 */
export class Consumer {
  readonly queue: QueueKeys;
  readonly #reader: RedisClient;
  readonly #command: RedisClient;
  readonly #workerId: string;
  readonly #slots: Slots;
  readonly #owner: ConsumerOwner;
  readonly #lockDurationMs: number;
  readonly #stop = new AbortController();
  #loop: Promise<void> | undefined;

  constructor(queue: QueueKeys, links: { reader: RedisClient; command: RedisClient }, worker: { id: string; lockDurationMs: number; slots: Slots }, owner: ConsumerOwner) {
    this.queue = queue;
    this.#lockDurationMs = worker.lockDurationMs;
    this.#reader = links.reader;
    this.#command = links.command;
    this.#workerId = worker.id;
    this.#slots = worker.slots;
    this.#owner = owner;
  }

  /** Makes the consumer group (reading the stream from its start, so jobs added before any worker ran are kept) and starts reading. */
  async start(): Promise<void> {
    await this.#ensureGroup();
    this.#loop = this.#run();
  }

  async #ensureGroup(): Promise<void> {
    try {
      await this.#command.xgroup("CREATE", this.queue.jobs, GROUP, "0", "MKSTREAM");
    } catch (error) {
      if (!/BUSYGROUP/.test(messageOf(error))) throw error;
    }
  }

  /**
   * Reads while the worker has free slots. Once per lock duration the read is preceded by a look
   * for stalled jobs (with the same slots), so a blocked read never keeps them from being taken over.
   */
  async #run(): Promise<void> {
    let failures = 0;
    let claimAt = Date.now() + this.#lockDurationMs;
    while (!this.#stop.signal.aborted) {
      await this.#slots.whenFree(this.#stop.signal);
      const count = this.#slots.take(BATCH);
      if (count === 0) continue;
      let taken: Taken[] = [];
      try {
        if (Date.now() >= claimAt) {
          claimAt = Date.now() + this.#lockDurationMs;
          taken = await this.#claimStalled(count);
        }
        if (taken.length === 0) taken = await this.#read(count);
        failures = 0;
      } catch (error) {
        if (this.#stop.signal.aborted) return this.#slots.release(count);
        recover(this.#reader);
        recover(this.#command);
        // A Redis that restarted (or a replica that took over) may have lost the stream and the group.
        if (/NOGROUP/.test(messageOf(error))) await this.#ensureGroup().catch(() => undefined);
        else if (failures++ === 0) this.#owner.problem(`reading queue "${this.queue.queue}" failed: ${messageOf(error)}; trying again`);
        await delay(Math.min(200 * failures, 2_000));
      }
      this.#slots.release(count - taken.length);
      for (const job of taken) this.#owner.take(job);
    }
  }

  async #read(count: number): Promise<Taken[]> {
    const block = Math.min(BLOCK_MS, this.#lockDurationMs);
    const answer = (await this.#reader.xreadgroup("GROUP", GROUP, this.#workerId, "COUNT", count, "BLOCK", block, "STREAMS", this.queue.jobs, ">")) as Array<[string, StreamEntries]> | null;
    return (answer?.[0]?.[1] ?? []).map(([entry, fields]) => ({ queue: this.queue, entry, fields: fields ?? [], redelivery: false }));
  }

  /** Takes over up to `count` jobs idle longer than the lock duration: their worker stopped renewing them. */
  async #claimStalled(count: number): Promise<Taken[]> {
    const answer = (await this.#command.xautoclaim(this.queue.jobs, GROUP, this.#workerId, this.#lockDurationMs, "0-0", "COUNT", count)) as [string, StreamEntries, string[]?];
    const deleted = [...(answer[2] ?? []), ...answer[1].filter(([, fields]) => fields === null).map(([entry]) => entry)];
    // Entries removed while pending (a cancelled job): nothing to run, only to acknowledge.
    if (deleted.length > 0) await this.#command.xack(this.queue.jobs, GROUP, ...deleted);
    return answer[1].filter(([, fields]) => fields !== null).map(([entry, fields]) => ({ queue: this.queue, entry, fields: fields ?? [], redelivery: true }));
  }

  /** Stops taking jobs: the blocked read is cut off with its connection. */
  async stop(): Promise<void> {
    this.#stop.abort();
    this.#reader.disconnect();
    await this.#loop?.catch(() => undefined);
  }
}
