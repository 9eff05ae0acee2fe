import { setTimeout as delay } from "node:timers/promises";
import { ReplyError } from "ioredis";
import type { QueueKeys } from "./_keys.js";
import { type RedisClient, recover, settleWithin } from "./_redis.js";
import type { Signed } from "./_scripts.js";

/** How long one blocking read waits before it reads again (and refreshes what needs refreshing). */
const BLOCK_MS = 5_000;
/** The reply stream expires this long after its host stopped refreshing it (a host that died). */
const STREAM_TTL_MS = 3_600_000;
const REFRESH_MS = 600_000;
/** Entries read are trimmed at most this often, or after this many: a trim is a command of its own. */
const TRIM_MS = 1_000;
const TRIM_EVERY = 200;

/** What a host's reader of one queue tells its producer. */
export interface ReplyListener {
  /** An answer or update of a worker (its signature not yet checked). */
  reply(entry: Signed): void;
  /** The connection to the queue's Redis was lost (a read failed): pending calls may never be answered. */
  lost(): void;
  /** The connection is back and the reply stream is there again: calls may be sent again. */
  back(): void;
}

/**
 * Reads a host's reply stream on one queue's Redis in a loop of blocking reads on a connection of
 * its own. A failed read means the connection was lost: the producer is told, the loop waits for
 * Redis, makes the stream again (a restarted or failed-over Redis may have lost it), and reads what
 * is left in it from the start.
 */
export class ReplyReader {
  readonly #client: RedisClient;
  readonly #key: string;
  readonly #listener: ReplyListener;
  #last = "0-0";
  #closing = false;
  #sinceTrim = 0;
  #trimmedAt = Date.now();
  #refreshedAt = 0;
  #loop: Promise<void> | undefined;

  constructor(client: RedisClient, keys: QueueKeys, hostId: string, listener: ReplyListener) {
    this.#client = client;
    this.#key = keys.reply(hostId);
    this.#listener = listener;
  }

  /** Makes the stream (so that workers' answers, added only to a stream that exists, are kept) and starts reading. */
  async start(): Promise<void> {
    await this.#ensureStream();
    this.#loop = this.#run();
  }

  async #run(): Promise<void> {
    let lost = false;
    for (let attempt = 0; !this.#closing; ) {
      try {
        if (lost) await this.#ensureStream();
        if (lost) this.#listener.back();
        lost = false;
        attempt = 0;
        await this.#readOnce();
      } catch (error) {
        if (this.#closing) return;
        recover(this.#client);
        // A refusal from a live server (CLUSTERDOWN while another master fails over, LOADING) loses
        // nothing of this stream: only a dropped connection may have.
        if (!(error instanceof ReplyError)) {
          if (!lost) this.#listener.lost();
          lost = true;
          this.#last = "0-0";
        }
        await delay(Math.min(200 * ++attempt, 2_000));
      }
    }
  }

  async #readOnce(): Promise<void> {
    if (Date.now() - this.#refreshedAt > REFRESH_MS) await this.#ensureStream();
    const answer = (await this.#client.xread("COUNT", 1000, "BLOCK", BLOCK_MS, "STREAMS", this.#key, this.#last)) as Array<[string, Array<[string, string[]]>]> | null;
    const entries = answer?.[0]?.[1] ?? [];
    for (const [id, fields] of entries) {
      this.#last = id;
      const entry = entryOf(fields);
      if (entry) this.#listener.reply(entry);
    }
    this.#sinceTrim += entries.length;
    if (this.#sinceTrim > 0 && (this.#sinceTrim >= TRIM_EVERY || Date.now() - this.#trimmedAt > TRIM_MS)) {
      // Everything up to the last entry read is handled: drop it (MINID keeps ids from the one given).
      await this.#client.xtrim(this.#key, "MINID", nextId(this.#last));
      this.#sinceTrim = 0;
      this.#trimmedAt = Date.now();
    }
  }

  async #ensureStream(): Promise<void> {
    await this.#client.xadd(this.#key, "*", "h", "1");
    await this.#client.pexpire(this.#key, STREAM_TTL_MS);
    this.#refreshedAt = Date.now();
  }

  /** Stops reading (the blocked read is cut off with the connection) and removes the stream. */
  async close(command: RedisClient): Promise<void> {
    this.#closing = true;
    this.#client.disconnect();
    await this.#loop?.catch(() => undefined);
    await settleWithin(command.del(this.#key), 2_000);
  }
}

/** An entry's answer fields: `r` (the text) and `s` (its signature); the stream's own marker has none. */
function entryOf(fields: string[]): Signed | undefined {
  let text: string | undefined;
  let sig = "";
  for (let i = 0; i + 1 < fields.length; i += 2) {
    if (fields[i] === "r") text = fields[i + 1];
    else if (fields[i] === "s") sig = fields[i + 1] as string;
  }
  return text === undefined ? undefined : { text, sig };
}

/** The stream id right after `id`. */
function nextId(id: string): string {
  const [ms, seq] = id.split("-");
  return `${ms}-${BigInt(seq ?? "0") + 1n}`;
}
