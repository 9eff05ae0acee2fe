import { hostname } from "node:os";
import {
  type AgentHarness,
  type AgentToolResult,
  type AgentToolUpdate,
  type QueueWorkOptions,
  type ToolResultMessage,
  messageOf,
} from "@toolhost/core";
import { type Job, WaitingError, Worker } from "bullmq";
import { Redis } from "ioredis";
import { bound } from "./_bound.js";
import { blockingOptions, type RedisTarget, settleWithin } from "./_connection.js";
import { type CallJob, type PublishedTool, deliveryOf, errorResult, keysOf, parseCallJob } from "./_job.js";
import type { QueueOptions } from "./_options.js";
import { workerLostResult } from "./_producer.js";
import { QueueErrorCode } from "./errors.js";

const CLOSE_MS = 2000;

/** A call running on this worker. */
interface Running {
  controller: AbortController;
  /** Set when the worker's shutdown grace ran out: a retryable call is handed back, not answered. */
  shuttingDown: boolean;
}

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
  const healthEvery = options.healthIntervalMs ?? 30_000;
  const running = new Map<string, Running>();
  const counts = { completed: 0, failed: 0 };
  const tools = harness.tools.filter((tool) => !isRemoteOnly(tool.name));

  const control = new Redis(blockingOptions(target, `toolhost-worker-control:${id}`));
  const subscriber = new Redis(blockingOptions(target, `toolhost-worker-cancel:${id}`));
  control.on("error", () => undefined);
  subscriber.on("error", () => undefined);
  await subscriber.subscribe(keys.cancel);
  subscriber.on("message", (_channel, jobId: string) => running.get(jobId)?.controller.abort(new Error("cancelled by the caller")));

  const publish = async (): Promise<void> => {
    const now = Date.now();
    const entries = tools.flatMap((tool) => {
      const published: PublishedTool = {
        name: tool.name,
        label: tool.label,
        description: tool.description,
        parameters: tool.parameters,
        ...(tool.annotations ? { annotations: tool.annotations } : {}),
        ...(tool.executionMode ? { executionMode: tool.executionMode } : {}),
        worker: id,
        at: now,
      };
      return [tool.name, JSON.stringify(published)];
    });
    const heartbeat = JSON.stringify({ worker: id, tools: tools.map((tool) => tool.name), running: running.size, at: now });
    const batch = control.multi().set(keys.worker(id), heartbeat, "PX", healthEvery * 3);
    if (entries.length > 0) batch.hset(keys.tools, ...entries);
    await batch.exec();
  };

  const processor = async (job: Job, _token?: string, bullSignal?: AbortSignal): Promise<AgentToolResult> => {
    const data = parseCallJob(job.data);
    if (!data) {
      counts.failed += 1;
      return errorResult(QueueErrorCode.BAD_JOB, `Job ${job.id} on queue "${options.queue}" is not a toolhost call; it was not run.`);
    }
    // The stricter of the producer's and this worker's view of the tool decides.
    const delivery = data.delivery === "retry" && deliveryOf(harness.getTool(data.call.name)) === "retry" ? "retry" : "at-most-once";
    if (delivery === "at-most-once" && job.attemptsStarted > 1) {
      counts.failed += 1;
      return { ...workerLostResult(), details: { code: QueueErrorCode.WORKER_LOST, delivery, attempts: job.attemptsStarted } };
    }
    const entry: Running = { controller: new AbortController(), shuttingDown: false };
    running.set(job.id as string, entry);
    bullSignal?.addEventListener("abort", () => entry.controller.abort(bullSignal.reason), { once: true });
    const stopUpdates = forwardUpdates(harness, data, job);
    try {
      const [message] = await harness.executeToolCalls(
        [{ id: data.call.id, name: data.call.name, arguments: data.args }],
        { signal: entry.controller.signal },
      );
      if (entry.shuttingDown && delivery === "retry") {
        await job.moveToWait(_token);
        throw new WaitingError();
      }
      const result = entry.shuttingDown
        ? errorResult(
            QueueErrorCode.WORKER_SHUT_DOWN,
            `The worker shut down while "${data.call.name}" ran, and its shutdown grace ran out: the call was ended and may have partly run.`,
          )
        : message
          ? resultOf(message)
          : errorResult(QueueErrorCode.WORKER_FAILED, "The worker's harness gave no result.");
      counts[result.isError ? "failed" : "completed"] += 1;
      return bound(result, data.limits.maxResultBytes);
    } finally {
      stopUpdates();
      running.delete(job.id as string);
    }
  };

  const worker = new Worker(options.queue, processor, {
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

  await publish();
  const health = (event: string): void =>
    options.onHealth({
      event,
      worker: id,
      queue: options.queue,
      concurrency: options.concurrency,
      running: running.size,
      completed: counts.completed,
      failed: counts.failed,
      redis: control.status,
      ...(event === "ready" ? { tools: tools.map((tool) => tool.name) } : {}),
    });
  const timer = setInterval(() => {
    health("health");
    publish().catch(() => undefined);
  }, healthEvery);

  const stopped = worker.run();
  await worker.waitUntilReady();
  health("ready");
  await new Promise<void>((resolve) => {
    if (options.signal.aborted) resolve();
    else options.signal.addEventListener("abort", () => resolve(), { once: true });
  });

  clearInterval(timer);
  health("stopping");
  await shutDown(worker, stopped, running, options.shutdownGraceMs ?? 30_000);
  if (control.status === "ready") await settleWithin(control.del(keys.worker(id)), CLOSE_MS);
  health("stopped");
  control.disconnect();
  subscriber.disconnect();
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

/** Sends the tool's updates as job progress, at most one per `updateIntervalMs` (the latest wins). */
function forwardUpdates(harness: AgentHarness, data: CallJob, job: Job): () => void {
  let latest: AgentToolUpdate | undefined;
  let timer: NodeJS.Timeout | undefined;
  let last = 0;
  const flush = (): void => {
    timer = undefined;
    if (!latest) return;
    const update = bound({ content: latest.content, details: latest.details }, data.limits.maxUpdateBytes);
    latest = undefined;
    last = Date.now();
    job.updateProgress(update as never).catch(() => undefined);
  };
  const stop = harness.subscribe((event) => {
    if (event.type !== "tool_execution_update" || event.toolCallId !== data.call.id) return;
    latest = event.partialResult;
    if (timer) return;
    const wait = data.limits.updateIntervalMs - (Date.now() - last);
    if (wait <= 0) flush();
    else timer = setTimeout(flush, wait);
  });
  return () => {
    stop();
    if (timer) clearTimeout(timer);
  };
}

function resultOf(message: ToolResultMessage): AgentToolResult {
  const result: AgentToolResult = { content: [...message.content], details: message.details, isError: message.isError };
  if (message.usage) result.usage = message.usage;
  if (message.terminate) result.terminate = true;
  return result;
}
