import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { ToolhostError, messageOf } from "@toolhost/core";
import type { ConnectionOptions } from "bullmq";
import { Redis, type RedisOptions as IORedisOptions } from "ioredis";
import { QueueErrorCode } from "./errors.js";
import type { QueueOptions } from "./options.js";

/** How to reach Redis, resolved from the options: ioredis options and a safe name for messages. */
export interface RedisTarget {
  options: IORedisOptions;
  /** host:port/db, never the password. */
  display: string;
}

/** Resolves the `redis` option (files relative to `baseDir`, the password from its variable). */
export function redisTarget(option: QueueOptions["redis"], baseDir: string): RedisTarget {
  const config = typeof option === "string" ? { url: option } : option;
  const url = new URL(config.url ?? "redis://127.0.0.1:6379");
  if (url.protocol !== "redis:" && url.protocol !== "rediss:") {
    throw new ToolhostError(
      QueueErrorCode.UNREACHABLE,
      `The redis URL must start with redis:// or rediss:// (TLS), got "${url.protocol}//…".`,
    );
  }
  const password = config.passwordEnv !== undefined ? envPassword(config.passwordEnv) : config.password;
  const db = config.db ?? (url.pathname.length > 1 ? Number(url.pathname.slice(1)) : 0);
  const options: IORedisOptions = {
    host: url.hostname || "127.0.0.1",
    port: url.port ? Number(url.port) : 6379,
    db,
    ...(url.username || config.username ? { username: config.username ?? decodeURIComponent(url.username) } : {}),
    ...(password !== undefined || url.password ? { password: password ?? decodeURIComponent(url.password) } : {}),
  };
  const tls = config.tls ?? (url.protocol === "rediss:" ? true : false);
  if (tls !== false) {
    const files = tls === true ? {} : tls;
    const read = (file: string | undefined) => (file === undefined ? undefined : readFileSync(resolve(baseDir, file)));
    options.tls = {
      ...(files.caFile !== undefined ? { ca: read(files.caFile) } : {}),
      ...(files.certFile !== undefined ? { cert: read(files.certFile) } : {}),
      ...(files.keyFile !== undefined ? { key: read(files.keyFile) } : {}),
      ...(files.servername !== undefined ? { servername: files.servername } : {}),
      ...(files.rejectUnauthorized !== undefined ? { rejectUnauthorized: files.rejectUnauthorized } : {}),
    };
  }
  return { options, display: `${tls !== false ? "rediss" : "redis"}://${options.host}:${options.port}/${db}` };
}

function envPassword(name: string): string {
  const value = process.env[name];
  if (value === undefined || value === "") {
    throw new ToolhostError(
      QueueErrorCode.UNREACHABLE,
      `The Redis password variable ${name} (redis.passwordEnv) is not set. Set it in the environment, or remove passwordEnv.`,
    );
  }
  return value;
}

/**
 * A client that fails fast while disconnected (no offline queue) and reconnects in the background;
 * resolves once connected, or rejects with a clear error after `timeoutMs`.
 */
export async function connectClient(target: RedisTarget, timeoutMs: number, name: string): Promise<Redis> {
  const client = new Redis({
    ...target.options,
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: timeoutMs,
    connectionName: name,
    retryStrategy: (times) => Math.min(times * 200, 2000),
  });
  let lastError: unknown;
  client.on("error", (error) => {
    lastError = error;
  });
  try {
    await withTimeout(
      (async () => {
        await client.connect();
        await client.ping();
      })(),
      timeoutMs,
    );
    return client;
  } catch (error) {
    client.disconnect();
    throw new ToolhostError(
      QueueErrorCode.UNREACHABLE,
      `Could not reach Redis at ${target.display} within ${timeoutMs} ms: ${messageOf(lastError ?? error)}. Start Redis there (redis-server), or fix the "redis" option of @toolhost/queue (URL, password, TLS).`,
      { cause: error },
    );
  }
}

/** Rejects when `promise` takes longer than `ms`. */
export function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error("timed out")), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Options for BullMQ's blocking connections (worker, events): they must wait on commands forever. */
export function blockingOptions(target: RedisTarget, name: string): IORedisOptions & ConnectionOptions {
  return {
    ...target.options,
    maxRetriesPerRequest: null,
    connectionName: name,
    retryStrategy: (times) => Math.min(times * 200, 2000),
  };
}

/** Waits for a closing step at most `ms` (Redis may be gone, and closing must not hang); never rejects. */
export async function settleWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  try {
    await withTimeout(promise, ms);
    return true;
  } catch {
    return false;
  }
}
