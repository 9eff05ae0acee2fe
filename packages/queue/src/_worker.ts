import { type AgentHarness, type QueueWorkOptions, ToolhostError } from "@toolhost/core";
import type { Admission } from "./_admit.js";
import { Consumer } from "./_consumer.js";
import { GROUP, type QueueKeys, keysOf, processId } from "./_keys.js";
import { publishTools } from "./_publish.js";
import { type RedisClient, type RedisTarget, closeClient, connectClient, openClient, recover, settleWithin } from "./_redis.js";
import { Replicas } from "./_replicas.js";
import { type Running, type Taken, type WorkerContext, runJob } from "./_run-job.js";
import { scriptsOf } from "./_scripts.js";
import { type Keyring, keyIds, readKeyring } from "./_signing.js";
import { Slots } from "./_slots.js";
import { QueueErrorCode } from "./errors.js";
import type { QueueOptions } from "./options.js";

const CLOSE_MS = 2000;

/** The queues a worker serves: `--queue a,b,c`. */
export function queueNames(text: string): string[] {
  return [...new Set(text.split(",").map((name) => name.trim()).filter((name) => name !== ""))];
}

/**
 * Runs the calls of the queues `options.queue` names (comma-separated) through
 * `harness.executeToolCalls` (its own tools, roots, sandbox and policy) until `options.signal`
 * aborts; then takes no new call and lets the running ones finish for `shutdownGraceMs`, after
 * which retryable calls go back to the queue and the others are ended (`TOOLHOST_QUEUE_WORKER_SHUT_DOWN`).
 */
export async function work(harness: AgentHarness, isRemoteOnly: (name: string) => boolean, target: RedisTarget, queueOptions: QueueOptions, options: QueueWorkOptions): Promise<void> {
  const id = processId();
  const queues = queueNames(options.queue).map((name) => keysOf(queueOptions.prefix, name));
  const lockDuration = options.lockDurationMs ?? 30_000;
  const healthEveryMs = options.healthIntervalMs ?? 30_000;
  const keyring = workerKeyring(harness, queueOptions, options);
  const client = await connectClient(target, queueOptions.connectTimeoutMs, `toolhost-worker:${id}`);
  const admission: Admission = { keyring, maxAgeMs: queueOptions.signing.maxAgeSeconds * 1000, seen: new Map() };
  const slots = new Slots(options.concurrency);
  const context: WorkerContext = {
    id,
    harness,
    client,
    scripts: scriptsOf(client),
    admission,
    replicas: new Replicas(client),
    running: new Map(),
    counts: { completed: 0, failed: 0 },
    problem: (message) => options.onHealth({ event: "error", worker: id, message }),
  };
  const owner = { take: (taken: Taken) => void runJob(context, taken).finally(() => slots.release(1)), problem: context.problem };
  const consumers = queues.map(
    (queue) => new Consumer(queue, { reader: openClient(target, "blocking", `toolhost-jobs:${queue.queue}:${id}`), command: client }, { id, lockDurationMs: lockDuration, slots }, owner),
  );
  const subscriber = await subscribeCancels(target, id, queues, context.running);
  const tools = harness.tools.filter((tool) => !isRemoteOnly(tool.name));
  const publish = () => Promise.all(queues.map((queue) => publishTools(client, queue, { id, tools, running: context.running.size, healthEveryMs })));
  const health = healthReporter(context, { id, options, queues, keyring, client, tools: tools.map((tool) => tool.name) });
  await publish();
  await context.replicas.refresh(queues);
  for (const consumer of consumers) await consumer.start();
  const timers = [
    setInterval(() => {
      health("health");
      publish().catch(() => undefined);
      void context.replicas.refresh(queues);
    }, healthEveryMs),
    setInterval(() => void renew(context, id, queues), Math.max(250, Math.floor(lockDuration / 2))),
  ];
  health("ready");
  await untilAborted(options.signal);
  for (const timer of timers) clearInterval(timer);
  health("stopping");
  await shutDown(context, consumers, slots, options.shutdownGraceMs ?? 30_000);
  await leave(client, id, queues);
  health("stopped");
  subscriber.disconnect();
  await closeClient(client);
}

/**
 * The keys this worker checks jobs with (`--key-file`, else the plugin's signing options). Without
 * one it refuses to start, unless told to run every job unchecked.
 */
function workerKeyring(harness: AgentHarness, queueOptions: QueueOptions, options: QueueWorkOptions): Keyring | undefined {
  const signing = options.keyFile !== undefined ? { ...queueOptions.signing, keyFile: options.keyFile } : queueOptions.signing;
  const keyring = readKeyring(signing, options.keyFile !== undefined ? process.cwd() : harness.workspace);
  if (keyring || options.noAuthorityCheck) return keyring;
  const where = signing.keyFile !== undefined ? `the file ${signing.keyFile}` : `the variable ${signing.keyEnv}`;
  throw new ToolhostError(
    QueueErrorCode.NO_KEY,
    `No key to check jobs with: ${where} holds none, so this worker cannot tell a job a host signed from one anyone with access to Redis wrote. Give it the hosts' key (export ${signing.keyEnv}=…, or --key-file FILE, or signing.keyFile in the queue plugin's options; make one with openssl rand -hex 32), or start it with --no-auth to run every job unchecked.`,
  );
}

/** What a health report says about the authority check. */
function authOf(keyring: Keyring | undefined): Record<string, unknown> {
  if (keyring) return { auth: "hmac-sha256", keys: keyIds(keyring) };
  return { auth: "none", warning: "no authority check (--no-auth): this worker runs any job anyone with access to its Redis writes" };
}

function healthReporter(
  context: WorkerContext,
  about: { id: string; options: QueueWorkOptions; queues: QueueKeys[]; keyring: Keyring | undefined; client: RedisClient; tools: string[] },
): (event: string) => void {
  const { id, options, queues, keyring, client, tools } = about;
  return (event) =>
    options.onHealth({
      event,
      worker: id,
      queue: queues.map((queue) => queue.queue).join(","),
      concurrency: options.concurrency,
      running: context.running.size,
      ...context.counts,
      redis: client.status,
      ...authOf(keyring),
      ...(event === "ready" ? { tools } : {}),
    });
}

/** The worker's subscription to its queues' cancel channels: a caller's abort ends the call here. */
async function subscribeCancels(target: RedisTarget, id: string, queues: QueueKeys[], running: Map<string, Running>): Promise<RedisClient> {
  const subscriber = openClient(target, "subscriber", `toolhost-cancel:${id}`);
  subscriber.on("message", (channel: string, nonce: string) => {
    for (const call of running.values()) {
      if (call.nonce === nonce && call.queue.cancel === channel) call.controller.abort(new Error("cancelled by the caller"));
    }
  });
  await subscriber.subscribe(...queues.map((queue) => queue.cancel));
  return subscriber;
}

/** Keeps this worker's hold on the jobs it runs (their idle time is what tells the others it stopped). */
async function renew(context: WorkerContext, id: string, queues: QueueKeys[]): Promise<void> {
  for (const queue of queues) {
    const entries = [...context.running.values()].filter((call) => call.queue === queue).map((call) => call.entry);
    await context.scripts.renew(queue.jobs, id, entries).catch(() => recover(context.client));
  }
}

function untilAborted(signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener("abort", () => resolve(), { once: true });
  });
}

/**
 * Takes no new call; running calls have `grace` ms to finish, then are ended (a retryable one is
 * handed back to the queue). Every step is bounded: with Redis gone, nothing may wait for ever.
 */
async function shutDown(context: WorkerContext, consumers: Consumer[], slots: Slots, grace: number): Promise<void> {
  await Promise.all(consumers.map((consumer) => consumer.stop()));
  if (await slots.drained(grace)) return;
  for (const call of context.running.values()) {
    call.shuttingDown = true;
    call.controller.abort(new Error("the worker is shutting down"));
  }
  await slots.drained(CLOSE_MS * 5);
}

/** Removes the heartbeat, and this worker from each queue's group when it holds no job there. */
async function leave(client: RedisClient, id: string, queues: QueueKeys[]): Promise<void> {
  for (const queue of queues) {
    await settleWithin(client.del(queue.worker(id)), CLOSE_MS);
    await settleWithin(
      (async () => {
        const pending = (await client.xpending(queue.jobs, GROUP, "-", "+", 1, id)) as unknown[];
        if (pending.length === 0) await client.xgroup("DELCONSUMER", queue.jobs, GROUP, id);
      })(),
      CLOSE_MS,
    );
  }
}
