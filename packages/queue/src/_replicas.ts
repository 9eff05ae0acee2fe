import calculateSlot from "cluster-key-slot";
import { Cluster, type Redis } from "ioredis";
import type { QueueKeys } from "./_keys.js";
import type { RedisClient } from "./_redis.js";

/** How long a start waits for a replica to confirm it. */
const CONFIRM_MS = 2_000;

/**
 * Confirms the start of a call that may not run twice on a replica of its queue's master (WAIT),
 * when the master has replicas: replication is asynchronous, and a master that fails right after a
 * worker took a job could otherwise be replaced by a replica that never saw it taken, which would
 * hand it out again. With no replica there is no failover to fear, and nothing to wait for.
 */
export class Replicas {
  readonly #client: RedisClient;
  /** Online replicas of each queue's master, by the queue's tag, as last seen. */
  readonly #online = new Map<string, number>();

  constructor(client: RedisClient) {
    this.#client = client;
  }

  /** Looks again how many replicas each queue's master has (the worker does so with its health reports). */
  async refresh(queues: QueueKeys[]): Promise<void> {
    for (const queue of queues) {
      try {
        this.#online.set(queue.tag, await this.#count(queue));
      } catch {
        // Unknown while Redis is away: the last count stands.
      }
    }
  }

  /** True when the start is safe from a failover: confirmed on a replica, or there is none. */
  async confirm(queue: QueueKeys): Promise<boolean> {
    if ((this.#online.get(queue.tag) ?? 0) === 0) return true;
    const master = this.#masterOf(queue);
    if (!master) return false;
    const acknowledged = (await master.wait(1, CONFIRM_MS)) as number;
    if (acknowledged >= 1) return true;
    // A replica gone since the last count (or promoted, leaving this master without one) is no risk.
    await this.refresh([queue]);
    return (this.#online.get(queue.tag) ?? 0) === 0;
  }

  async #count(queue: QueueKeys): Promise<number> {
    const master = this.#masterOf(queue);
    if (!master) return 0;
    const info = await master.info("replication");
    return [...info.matchAll(/^slave\d+:.*state=online/gm)].length;
  }

  /** The connection to the master that holds the queue's keys (the one a cluster routes its tag to). */
  #masterOf(queue: QueueKeys): Redis | undefined {
    if (!(this.#client instanceof Cluster)) return this.#client;
    const nodeKey = this.#client.slots[calculateSlot(queue.tag)]?.[0];
    return this.#client.nodes("master").find((node) => `${node.options.host}:${node.options.port}` === nodeKey);
  }
}
