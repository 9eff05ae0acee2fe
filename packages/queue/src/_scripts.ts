import { GROUP } from "./_keys.js";
import type { RedisClient } from "./_redis.js";

/*
 * The queue's Lua scripts: each runs on the master of its queue's hash slot (every key it touches
 * shares the queue's tag) and is one round trip. What a call costs in Redis commands (the scripts'
 * own commands included, as INFO commandstats counts them):
 *
 *   host    add      EVALSHA, SET NX GET, XADD                          3
 *   worker  read     XREADGROUP (one per batch of jobs)                 ≤1
 *           start    SET NX GET (its run count: the job that started)   1
 *           finish   EVALSHA, SET EX, XADD NOMKSTREAM, XACK, XDEL       5
 *   host    read     XREAD (one per batch of answers), XTRIM (~1/s)     ≤1
 *
 * A script's keys and arguments are named, never numbered: each script is defined from a table of
 * its KEYS and ARGV names, its Lua reads `key.<name>` and `arg.<name>`, and the caller passes an
 * object by those names, put in the table's order here. (A positional ARGV[5] for ARGV[6] once
 * passed a signature where the group belongs, and no answered job was ever acknowledged.)
 */

/** A reply stream keeps at most about this many entries: a host that stopped reading loses the oldest. */
export const REPLY_STREAM_MAX = 10_000;

type Value = string | number;

/** A script defined by the names of its keys and arguments. */
interface Script<K extends string, A extends string> {
  name: string;
  keys: readonly K[];
  args: readonly A[];
  lua: string;
}

function script<const K extends string, const A extends string>(name: string, keys: readonly K[], args: readonly A[], body: string): Script<K, A> {
  const table = (local: string, names: readonly string[], array: string) => `local ${local} = {${names.map((item, i) => `${item} = ${array}[${i + 1}]`).join(", ")}}`;
  return { name, keys, args, lua: `${table("key", keys, "KEYS")}\n${table("arg", args, "ARGV")}\n${body}` };
}

/** The positional KEYS and ARGV of a call, from values by name (a missing one is a bug: thrown). */
export function positional<K extends string, A extends string>(definition: Script<K, A>, keys: Record<K, string>, args: Record<A, Value>): Value[] {
  const out: Value[] = [];
  for (const name of definition.keys) out.push(required(definition, name, keys[name]));
  for (const name of definition.args) out.push(required(definition, name, args[name]));
  return out;
}

function required(definition: Script<string, string>, name: string, value: Value | undefined): Value {
  if (value === undefined) throw new TypeError(`script ${definition.name}: no value for "${name}"`);
  return value;
}

export const ADD = script(
  "toolhostAdd",
  ["record", "jobs"],
  [
    /** The record while queued (`q:<digest>`). */
    "queued",
    /** The job's text and signature ("" none). */
    "job",
    "sig",
    /** "1" to send a queued call again (a retryable call whose connection was lost). */
    "again",
  ],
  `
local old = redis.call("SET", key.record, arg.queued, "NX", "GET")
if old then
  if arg.again ~= "1" or old ~= arg.queued then return {0, old} end
end
return {1, redis.call("XADD", key.jobs, "*", "j", arg.job, "s", arg.sig)}
`,
);

export const FINISH = script(
  "toolhostFinish",
  ["record", "jobs", "reply"],
  [
    /** The record with the answer; how long it is kept (s; 0: not kept; "-": left alone). */
    "record",
    "keepSeconds",
    /** The job's entry ("" none), acknowledged in `group` and removed. */
    "entry",
    "group",
    /** The answer's text and signature, for the host's reply stream (bounded to about `replyMax`). */
    "reply",
    "sig",
    "replyMax",
  ],
  `
if arg.keepSeconds ~= "-" then
  if tonumber(arg.keepSeconds) > 0 then redis.call("SET", key.record, arg.record, "EX", arg.keepSeconds) else redis.call("DEL", key.record) end
end
redis.call("XADD", key.reply, "NOMKSTREAM", "MAXLEN", "~", arg.replyMax, "*", "r", arg.reply, "s", arg.sig)
if arg.entry ~= "" then
  redis.call("XACK", key.jobs, arg.group, arg.entry)
  redis.call("XDEL", key.jobs, arg.entry)
end
return 1
`,
);

export const REQUEUE = script(
  "toolhostRequeue",
  ["jobs", "run"],
  ["entry", "job", "sig", "group"],
  `
redis.call("XADD", key.jobs, "*", "j", arg.job, "s", arg.sig)
redis.call("XACK", key.jobs, arg.group, arg.entry)
redis.call("XDEL", key.jobs, arg.entry)
-- The start is not counted: the run count (<at>:<nonce>:<starts>) goes back by one.
local old = redis.call("GET", key.run)
local at, nonce, starts = string.match(old or "", "^(%d+):([^:]+):(%d+)$")
if at and tonumber(starts) > 0 then redis.call("SET", key.run, at .. ":" .. nonce .. ":" .. (tonumber(starts) - 1), "KEEPTTL") end
return 1
`,
);

/**
 * A start of a call whose run count exists already (the first start is a plain SET NX GET). The
 * count is `<job's time>:<job's nonce>:<starts>`: the same job again is a re-delivery (a stalled
 * worker's job taken over, a failover, a copy); a newer job of the call id is the host's own
 * (a retryable call sent again counts on; a new call under a reused id starts at 1); an older
 * job than the one counted is a copy put back, never run.
 *
 * A newer job of a call that is answered already (its record holds the answer for this content)
 * is not run: "answered", its answer is the record's. Nor is a newer job of a retryable call
 * started twice already by an earlier job that is not answered yet (the record still queued):
 * "covered", the earlier job (re-delivered after a failover, say) is running, and its answer (or,
 * if its worker stops, its third start's "may or may not have run") is the call's. Neither
 * changes the count, so the earlier job's re-delivery still counts as itself.
 */
export const RESTART = script(
  "toolhostRestart",
  ["run", "record"],
  [
    "at",
    "nonce",
    "retry",
    "ttl",
    /** The call's record while queued (`q:<digest>`), and the head of its record once answered (`d:<digest>:`). */
    "queued",
    "done",
  ],
  `
local old = redis.call("GET", key.run)
if not old then
  redis.call("SET", key.run, arg.at .. ":" .. arg.nonce .. ":1", "PX", arg.ttl)
  return {"first", 1}
end
local at, nonce, starts = string.match(old, "^(%d+):([^:]+):(%d+)$")
if not at then return {"older", 0} end
starts = tonumber(starts)
if nonce == arg.nonce then
  redis.call("SET", key.run, at .. ":" .. nonce .. ":" .. (starts + 1), "KEEPTTL")
  return {"again", starts + 1}
end
if tonumber(at) >= tonumber(arg.at) then return {"older", starts} end
local record = redis.call("GET", key.record)
if record and string.sub(record, 1, #arg.done) == arg.done then return {"answered", starts} end
if arg.retry == "1" and starts >= 2 and record == arg.queued then return {"covered", starts} end
local next = 1
if arg.retry == "1" then next = starts + 1 end
redis.call("SET", key.run, arg.at .. ":" .. arg.nonce .. ":" .. next, "PX", arg.ttl)
return {"newer", next}
`,
);

export const RENEW = script(
  "toolhostRenew",
  ["jobs"],
  [
    "group",
    "worker",
    /** The entries this worker runs, separated by spaces. */
    "entries",
  ],
  `
-- Resets the idle time of each entry still this worker's; returns those that are no longer.
local lost = {}
for entry in string.gmatch(arg.entries, "%S+") do
  local pending = redis.call("XPENDING", key.jobs, arg.group, entry, entry, 1)
  if pending[1] and pending[1][2] == arg.worker then
    redis.call("XCLAIM", key.jobs, arg.group, arg.worker, 0, entry, "JUSTID")
  else
    lost[#lost + 1] = entry
  end
end
return lost
`,
);

export const WITHDRAW = script(
  "toolhostWithdraw",
  ["record", "jobs"],
  ["entry", "group"],
  `
-- A job no worker has taken yet is removed with its record (1); one a worker holds stays (0).
local ok, pending = pcall(redis.call, "XPENDING", key.jobs, arg.group, arg.entry, arg.entry, 1)
if ok and pending[1] then return 0 end
if redis.call("XDEL", key.jobs, arg.entry) == 0 then return 0 end
redis.call("DEL", key.record)
return 1
`,
);

const SCRIPTS = [ADD, FINISH, REQUEUE, RESTART, RENEW, WITHDRAW] as const;

/** How a start relates to the call's count (see RESTART). */
export type RestartKind = "first" | "again" | "newer" | "older" | "answered" | "covered";

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
  /** Counts a start of a job whose call id was started before: how this start relates to the one counted, and the starts. */
  restart(
    keys: { run: string; record: string },
    job: { at: number; nonce: string; retry: boolean; ttlMs: number; record: { queued: string; doneHead: string } },
  ): Promise<{ kind: RestartKind; starts: number }>;
  /** Renews this worker's hold on the entries it runs; returns those another worker took. */
  renew(jobs: string, worker: string, entries: string[]): Promise<string[]>;
  /** Removes a job no worker has taken yet, with its record: true; false when a worker has it (or it was answered). */
  withdraw(keys: { record: string; jobs: string }, entry: string): Promise<boolean>;
}

type Defined = Record<string, (...args: Value[]) => Promise<unknown>>;

/** Defines the scripts on a client (each is sent once, then called by its SHA). */
export function scriptsOf(client: RedisClient): Scripts {
  for (const { name, keys, lua } of SCRIPTS) client.defineCommand(name, { numberOfKeys: keys.length, lua });
  const run = client as unknown as Defined;
  return {
    async add(keys, queued, job, again) {
      const [added, value] = (await run[ADD.name]!(...positional(ADD, keys, { queued, job: job.text, sig: job.sig, again: again ? "1" : "0" }))) as [number, string];
      return added === 1 ? { added: true, entry: value } : { added: false, record: value };
    },
    async finish(keys, answer) {
      const { record, keepSeconds, entry, reply } = answer;
      const args = { record, keepSeconds: String(keepSeconds), entry, group: GROUP, reply: reply.text, sig: reply.sig, replyMax: REPLY_STREAM_MAX };
      await run[FINISH.name]!(...positional(FINISH, keys, args));
    },
    async requeue(keys, entry, job) {
      await run[REQUEUE.name]!(...positional(REQUEUE, keys, { entry, job: job.text, sig: job.sig, group: GROUP }));
    },
    async restart(keys, job) {
      const args = { at: job.at, nonce: job.nonce, retry: job.retry ? "1" : "0", ttl: job.ttlMs, queued: job.record.queued, done: job.record.doneHead };
      const [kind, starts] = (await run[RESTART.name]!(...positional(RESTART, keys, args))) as [RestartKind, number];
      return { kind, starts };
    },
    async renew(jobs, worker, entries) {
      if (entries.length === 0) return [];
      return (await run[RENEW.name]!(...positional(RENEW, { jobs }, { group: GROUP, worker, entries: entries.join(" ") }))) as string[];
    },
    async withdraw(keys, entry) {
      return (await run[WITHDRAW.name]!(...positional(WITHDRAW, keys, { entry, group: GROUP }))) === 1;
    },
  };
}
