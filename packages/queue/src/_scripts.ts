import { GROUP } from "./_keys.js";
import type { RedisClient } from "./_redis.js";

/*
 * The queue's Lua scripts: each runs on the master of its queue's hash slot (every key it touches
 * shares the queue's tag) and is one round trip. What a call costs in Redis commands (the scripts'
 * own commands included, as INFO commandstats counts them):
 *
 *   host    add      EVALSHA, SET NX GET, XADD                          3
 *   worker  read     XREADGROUP (one per batch of jobs)                 ≤1
 *           start    SET NX (its run count)                             1
 *           finish   EVALSHA, SET EX, XADD NOMKSTREAM, XACK, XDEL       5
 *   host    read     XREAD (one per batch of answers), XTRIM (~1/s)     ≤1
 */

/** A reply stream keeps at most about this many entries: a host that stopped reading loses the oldest. */
export const REPLY_STREAM_MAX = 10_000;

const ADD = `
-- KEYS[1] the call's record, KEYS[2] the jobs stream
-- ARGV[1] the record while queued, ARGV[2] the job's text, ARGV[3] its signature ("" none),
-- ARGV[4] "1" to send a queued call again
local old = redis.call("SET", KEYS[1], ARGV[1], "NX", "GET")
if old then
  if ARGV[4] ~= "1" or old ~= ARGV[1] then return {0, old} end
end
return {1, redis.call("XADD", KEYS[2], "*", "j", ARGV[2], "s", ARGV[3])}
`;

const FINISH = `
-- KEYS[1] the call's record, KEYS[2] the jobs stream, KEYS[3] the host's reply stream
-- ARGV[1] the record with the answer, ARGV[2] how long it is kept (s; 0: not kept, "-": left alone),
-- ARGV[3] the job's entry ("" none), ARGV[4] the answer's text, ARGV[5] its signature, ARGV[6] the group,
-- ARGV[7] the reply stream's bound
if ARGV[2] ~= "-" then
  if tonumber(ARGV[2]) > 0 then redis.call("SET", KEYS[1], ARGV[1], "EX", ARGV[2]) else redis.call("DEL", KEYS[1]) end
end
redis.call("XADD", KEYS[3], "NOMKSTREAM", "MAXLEN", "~", ARGV[7], "*", "r", ARGV[4], "s", ARGV[5])
if ARGV[3] ~= "" then
  redis.call("XACK", KEYS[2], ARGV[5], ARGV[3])
  redis.call("XDEL", KEYS[2], ARGV[3])
end
return 1
`;

const REQUEUE = `
-- KEYS[1] the jobs stream, KEYS[2] the call's run count
-- ARGV[1] the job's entry, ARGV[2] its text, ARGV[3] its signature, ARGV[4] the group
redis.call("XADD", KEYS[1], "*", "j", ARGV[2], "s", ARGV[3])
redis.call("XACK", KEYS[1], ARGV[4], ARGV[1])
redis.call("XDEL", KEYS[1], ARGV[1])
redis.call("DECR", KEYS[2])
return 1
`;

const RENEW = `
-- KEYS[1] the jobs stream; ARGV[1] the group, ARGV[2] this worker, ARGV[3...] the entries it runs
-- Resets the idle time of each entry still this worker's; returns those that are no longer.
local lost = {}
for i = 3, #ARGV do
  local pending = redis.call("XPENDING", KEYS[1], ARGV[1], ARGV[i], ARGV[i], 1)
  if pending[1] and pending[1][2] == ARGV[2] then
    redis.call("XCLAIM", KEYS[1], ARGV[1], ARGV[2], 0, ARGV[i], "JUSTID")
  else
    lost[#lost + 1] = ARGV[i]
  end
end
return lost
`;

/** The answer to `add`: the job's entry id, or the record the call id already has. */
export type Added = { added: true; entry: string } | { added: false; record: string };

/** A text as it lies in Redis with its signature ("" when unsigned). */
export interface Signed {
  text: string;
  sig: string;
}

/** The scripts on one client, typed. */
export interface Scripts {
  /** Adds a job, unless its call id has a record already (then the record); `again` sends a queued one again. */
  add(keys: { record: string; jobs: string }, queued: string, job: Signed, again: boolean): Promise<Added>;
  /** Answers a job: its record (unless `keepSeconds` is "-"), the answer in the host's stream, the entry acknowledged. */
  finish(keys: { record: string; jobs: string; reply: string }, answer: { record: string; keepSeconds: number | "-"; entry: string; reply: Signed }): Promise<void>;
  /** Hands a job back to the queue, its start not counted. */
  requeue(keys: { jobs: string; run: string }, entry: string, job: Signed): Promise<void>;
  /** Renews this worker's hold on the entries it runs; returns those another worker took. */
  renew(jobs: string, worker: string, entries: string[]): Promise<string[]>;
}

type Defined = Record<string, (...args: Array<string | number>) => Promise<unknown>>;

/** Defines the scripts on a client (each is sent once, then called by its SHA). */
export function scriptsOf(client: RedisClient): Scripts {
  client.defineCommand("toolhostAdd", { numberOfKeys: 2, lua: ADD });
  client.defineCommand("toolhostFinish", { numberOfKeys: 3, lua: FINISH });
  client.defineCommand("toolhostRequeue", { numberOfKeys: 2, lua: REQUEUE });
  client.defineCommand("toolhostRenew", { numberOfKeys: 1, lua: RENEW });
  const run = client as unknown as Defined;
  return {
    async add(keys, queued, job, again) {
      const [added, value] = (await run.toolhostAdd!(keys.record, keys.jobs, queued, job.text, job.sig, again ? "1" : "0")) as [number, string];
      return added === 1 ? { added: true, entry: value } : { added: false, record: value };
    },
    async finish(keys, answer) {
      const { record, keepSeconds, entry, reply } = answer;
      await run.toolhostFinish!(keys.record, keys.jobs, keys.reply, record, String(keepSeconds), entry, reply.text, reply.sig, GROUP, REPLY_STREAM_MAX);
    },
    async requeue(keys, entry, job) {
      await run.toolhostRequeue!(keys.jobs, keys.run, entry, job.text, job.sig, GROUP);
    },
    async renew(jobs, worker, entries) {
      if (entries.length === 0) return [];
      return (await run.toolhostRenew!(jobs, GROUP, worker, ...entries)) as string[];
    },
  };
}
