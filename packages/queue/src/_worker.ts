import { hostname } from "node:os";
import { type AgentHarness, type QueueWorkOptions, ToolhostError, messageOf } from "@toolhost/core";
import { Worker } from "bullmq";
import { Redis } from "ioredis";
import { blockingOptions, type RedisTarget, settleWithin } from "./_connection.js";
import { keysOf } from "./_job.js";
import { publishTools } from "./_publish.js";
import { type Running, type WorkerState, jobProcessor } from "./_run-job.js";
import { type Keyring, keyIds, readKeyring } from "./_signing.js";
import { QueueErrorCode } from "./errors.js";
import type { QueueOptions } from "./options.js";

const CLOSE_MS = 2000;

/**
 * Runs the calls of one queue through `harness.executeToolCalls` (its own tools, roots, sandbox and
 * policy) until `options.signal` aborts; then takes no new call and lets the running ones finish
 * for `shutdownGraceMs`, after which retryable calls go back to the queue and the others are ended
 * (`TOOLHOST_QUEUE_WORKER_SHUT_DOWN`).
 */
export async function work(
  harness: AgentHarness,
  isRemoteOnly: (name: string) => boolean,
  target: RedisTarget,
  queueOptions: QueueOptions,
  options: QueueWorkOptions,
): Promise<void> {
  const id = `${hostname()}:${process.pid}`;
  const keys = keysOf(queueOptions.prefix, options.queue);
  const lockDuration = options.lockDurationMs ?? 30_000;
  const healthEveryMs = options.healthIntervalMs ?? 30_000;
  const keyring = workerKeyring(harness, queueOptions, options);
  const admission = { keyring, queue: options.queue, maxAgeMs: queueOptions.signing.maxAgeSeconds * 1000, seen: new Map<string, number>() };
  const state: WorkerState = { harness, queue: options.queue, running: new Map(), counts: { completed: 0, failed: 0 }, admission };
  const tools = harness.tools.filter((tool) => !isRemoteOnly(tool.name));
  const { control, subscriber } = await controlLinks(target, id, keys.cancel, state.running);
  const worker = new Worker(options.queue, jobProcessor(state), {
    connection: blockingOptions(target, `toolhost-worker:${id}`),
    prefix: queueOptions.prefix,
    concurrency: options.concurrency,
    lockDuration,
    stalledInterval: lockDuration,
    // One stall puts a job back in the queue; the next worker runs it again only if it may be
    // retried, and answers the others with "may or may not have run". A second stall fails it.
    maxStalledCount: 1,
    autorun: false,
  });
  worker.on("error", (error) => options.onHealth({ event: "error", worker: id, message: messageOf(error) }));
  const publish = () => publishTools(control, keys, { id, tools, running: state.running.size, healthEveryMs });
  await publish();
  const health = (event: string): void =>
    options.onHealth({
      event,
      worker: id,
      queue: options.queue,
      concurrency: options.concurrency,
      running: state.running.size,
      ...state.counts,
      redis: control.status,
      ...authOf(keyring),
      ...(event === "ready" ? { tools: tools.map((tool) => tool.name) } : {}),
    });
  const timer = setInterval(() => {
    health("health");
    publish().catch(() => undefined);
  }, healthEveryMs);
  const stopped = worker.run();
  await worker.waitUntilReady();
  health("ready");
  await untilAborted(options.signal);
  clearInterval(timer);
  health("stopping");
  await shutDown(worker, stopped, state.running, options.shutdownGraceMs ?? 30_000);
  if (control.status === "ready") await settleWithin(control.del(keys.worker(id)), CLOSE_MS);
  health("stopped");
  control.disconnect();
  subscriber.disconnect();
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

/** The worker's own connections: one for its keys, one subscribed to the queue's cancel channel. */
async function controlLinks(target: RedisTarget, id: string, channel: string, running: Map<string, Running>): Promise<{ control: Redis; subscriber: Redis }> {
  const control = new Redis(blockingOptions(target, `toolhost-worker-control:${id}`));
  const subscriber = new Redis(blockingOptions(target, `toolhost-worker-cancel:${id}`));
  control.on("error", () => undefined);
  subscriber.on("error", () => undefined);
  await subscriber.subscribe(channel);
  subscriber.on("message", (_channel, jobId: string) => running.get(jobId)?.controller.abort(new Error("cancelled by the caller")));
  return { control, subscriber };
}

function untilAborted(signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener("abort", () => resolve(), { once: true });
  });
}

/**
 * Takes no new call; running calls have `grace` ms to finish, then are ended (a retryable one is
 * handed back to the queue). Every step is bounded: with Redis gone, BullMQ's close would wait for ever.
 */
async function shutDown(worker: Worker, stopped: Promise<void>, running: Map<string, Running>, grace: number): Promise<void> {
  const end = (): void => {
    for (const entry of running.values()) {
      entry.shuttingDown = true;
      entry.controller.abort(new Error("the worker is shutting down"));
    }
  };
  const timer = setTimeout(end, grace);
  if (!(await settleWithin(worker.close(), grace + CLOSE_MS))) {
    end();
    await settleWithin(worker.close(true), CLOSE_MS);
  }
  clearTimeout(timer);
  await settleWithin(stopped, CLOSE_MS);
  await settleWithin(worker.disconnect(), CLOSE_MS);
}
