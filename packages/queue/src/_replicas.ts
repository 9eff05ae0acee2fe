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
/** The starts waiting for a master's replicas: one WAIT in flight, the starts that came after it. */
interface WaitBatch {
  inFlight: boolean;
  waiters: Array<(acknowledged: number) => void>;
}

export class Replicas {
  readonly #client: RedisClient;
  /** Online replicas of each queue's master, by the queue's tag, as last seen. */
  readonly #online = new Map<string, number>();
  /** Counts to look at again before they are trusted: the connection came back (a failover may have changed the master). */
  readonly #stale = new Set<string>();
  /** The WAIT in flight on each master's connection, and the one that follows it, shared by every start that waits. */
  readonly #waits = new Map<Redis, WaitBatch>();

  constructor(client: RedisClient) {
    this.#client = client;
    const reconnected = (): void => {
      for (const tag of this.#online.keys()) this.#stale.add(tag);
    };
    client.on("ready", reconnected);
    client.on("+node", reconnected);
    client.on("-node", reconnected);
  }

  /** Looks again how many replicas each queue's master has (the worker does so with its health reports). */
  async refresh(queues: QueueKeys[]): Promise<void> {
    for (const queue of queues) {
      try {
        this.#online.set(queue.tag, await this.#count(queue));
        this.#stale.delete(queue.tag);
      } catch {
        // Unknown while Redis is away: the last count stands.
      }
    }
  }

  /** True when the start is safe from a failover: confirmed on a replica, or there is none. */
  async confirm(queue: QueueKeys): Promise<boolean> {
    if (this.#stale.has(queue.tag)) await this.refresh([queue]);
    if ((this.#online.get(queue.tag) ?? 0) === 0) return true;
    const master = this.#masterOf(queue);
    if (!master) return false;
    if ((await this.#wait(master)) >= 1) return true;
    // A replica gone since the last count (or promoted, leaving this master without one) is no risk.
    await this.refresh([queue]);
    return (this.#online.get(queue.tag) ?? 0) === 0;
  }

  /**
   * WAIT 1 on a master's connection, shared: a WAIT confirms every write sent on the connection
   * before it, so the starts that come while one is in flight share the next one. However many
   * starts wait, the connection holds at most one WAIT (up to 2 s) and one more after it, and none
   * more once one came back unconfirmed.
   */
  #wait(master: Redis): Promise<number> {
    let batch = this.#waits.get(master);
    if (!batch) {
      batch = { inFlight: false, waiters: [] };
      this.#waits.set(master, batch);
    }
    const waiting = batch;
    return new Promise<number>((resolve) => {
      waiting.waiters.push(resolve);
      if (!waiting.inFlight) this.#issue(master, waiting);
    });
  }

  #issue(master: Redis, batch: WaitBatch): void {
    const covered = batch.waiters.splice(0);
    batch.inFlight = true;
    (master.wait(1, CONFIRM_MS) as Promise<number>)
      .catch(() => 0)
      .then((acknowledged) => {
        batch.inFlight = false;
        // No replica answered in time: the starts that came since would wait as long for nothing.
        if (acknowledged === 0) covered.push(...batch.waiters.splice(0));
        for (const resolve of covered) resolve(acknowledged);
        if (batch.waiters.length > 0) this.#issue(master, batch);
        else this.#waits.delete(master);
      });
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
