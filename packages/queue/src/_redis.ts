import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import type { ConnectionOptions } from "node:tls";
import { ToolhostError, messageOf } from "@toolhost/core";
import { Cluster, type ClusterOptions, Redis, type RedisOptions as IORedisOptions } from "ioredis";
import { QueueErrorCode } from "./errors.js";
import type { QueueOptions, RedisOptions } from "./options.js";

/** A connection to Redis: one server's (alone or found through Sentinel), or a cluster's. */
export type RedisClient = Redis | Cluster;

/**
 * What a client is for:
 * - `command`: short commands, failing at once while disconnected (a call then is refused, not queued);
 * - `blocking`: one blocking read loop (XREAD, XREADGROUP); a dropped connection rejects the read at
 *   once, so the loop knows it was cut off;
 * - `subscriber`: the cancel channel, subscribed again after each reconnect.
 */
export type ClientRole = "command" | "blocking" | "subscriber";

/** How to reach Redis, resolved from the options: a factory of clients, and a name for messages. */
export interface RedisTarget {
  kind: "single" | "cluster" | "sentinel";
  /** redis://host:port/db, the cluster's seeds or the sentinels and master name; never a password. */
  display: string;
  client(role: ClientRole, name: string): RedisClient;
}

const backoff = (times: number): number => Math.min(times * 200, 2000);

/** Resolves the `redis` option (files relative to `baseDir`, passwords from their variables). */
export function redisTarget(option: QueueOptions["redis"], baseDir: string): RedisTarget {
  const config: RedisOptions = typeof option === "string" ? { url: option } : option;
  const kinds = [config.url, config.cluster, config.sentinels].filter((given) => given !== undefined).length;
  if (kinds > 1) throw new ToolhostError(QueueErrorCode.UNREACHABLE, 'The "redis" option names more than one of url, cluster and sentinels: give one.');
  if (config.sentinels && !config.name) {
    throw new ToolhostError(QueueErrorCode.UNREACHABLE, 'The "redis" option gives sentinels without "name", the master they watch (sentinel monitor <name> …): add it.');
  }
  const auth = credentials(config, baseDir);
  if (config.cluster) return clusterTarget(config.cluster.map(nodeOf), auth);
  if (config.sentinels) return sentinelTarget(config, auth);
  return singleTarget(nodeOf(config.url ?? "redis://127.0.0.1:6379"), config, auth);
}

/** A node of a URL list: host, port, and what the URL itself says of TLS and credentials. */
interface Node {
  host: string;
  port: number;
  tls: boolean;
  username?: string;
  password?: string;
  db?: number;
}

function nodeOf(text: string): Node {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ToolhostError(QueueErrorCode.UNREACHABLE, `"${text.replace(/\/\/[^@/]*@/, "//…@")}" in the "redis" option is not a URL: write redis://host:port.`);
  }
  if (url.protocol !== "redis:" && url.protocol !== "rediss:") {
    throw new ToolhostError(QueueErrorCode.UNREACHABLE, `The redis URL must start with redis:// or rediss:// (TLS), got "${url.protocol}//…".`);
  }
  return {
    host: url.hostname || "127.0.0.1",
    port: url.port ? Number(url.port) : 6379,
    tls: url.protocol === "rediss:",
    ...(url.username && { username: decodeURIComponent(url.username) }),
    ...(url.password && { password: decodeURIComponent(url.password) }),
    ...(url.pathname.length > 1 && { db: Number(url.pathname.slice(1)) }),
  };
}

/** What every connection of the target shares: credentials and TLS. */
interface Credentials {
  username?: string;
  password?: string;
  sentinelPassword?: string;
  tls?: ConnectionOptions;
}

function credentials(config: RedisOptions, baseDir: string): Credentials {
  const password = config.passwordEnv !== undefined ? fromEnv(config.passwordEnv, "redis.passwordEnv") : config.password;
  const sentinelPassword = config.sentinelPasswordEnv !== undefined ? fromEnv(config.sentinelPasswordEnv, "redis.sentinelPasswordEnv") : undefined;
  const first = [config.url, ...(config.cluster ?? []), ...(config.sentinels ?? [])].find((url) => url !== undefined);
  const tls = config.tls ?? (first?.startsWith("rediss:") === true);
  return {
    ...(config.username !== undefined && { username: config.username }),
    ...(password !== undefined && { password }),
    ...(sentinelPassword !== undefined && { sentinelPassword }),
    ...(tls !== false && { tls: tlsOf(tls, baseDir) }),
  };
}

function tlsOf(tls: true | Exclude<RedisOptions["tls"], boolean | undefined>, baseDir: string): ConnectionOptions {
  const files = tls === true ? {} : tls;
  const read = (file: string | undefined) => (file === undefined ? undefined : readFileSync(resolve(baseDir, file)));
  return {
    ...(files.caFile !== undefined && { ca: read(files.caFile) }),
    ...(files.certFile !== undefined && { cert: read(files.certFile) }),
    ...(files.keyFile !== undefined && { key: read(files.keyFile) }),
    ...(files.servername !== undefined && { servername: files.servername }),
    ...(files.rejectUnauthorized !== undefined && { rejectUnauthorized: files.rejectUnauthorized }),
  };
}

function fromEnv(name: string, option: string): string {
  const value = process.env[name];
  if (value === undefined || value === "") {
    throw new ToolhostError(QueueErrorCode.UNREACHABLE, `The Redis password variable ${name} (${option}) is not set. Set it in the environment, or remove ${option.split(".")[1]}.`);
  }
  return value;
}

/** ioredis options of a role (for one server's connections, and each node's in a cluster). */
function roleOptions(role: ClientRole, name: string): IORedisOptions {
  const common = { connectionName: name, retryStrategy: backoff };
  if (role === "command") return { ...common, enableOfflineQueue: false, maxRetriesPerRequest: 1 };
  if (role === "blocking") return { ...common, maxRetriesPerRequest: 0, autoResendUnfulfilledCommands: false };
  return { ...common, maxRetriesPerRequest: null };
}

function singleTarget(node: Node, config: RedisOptions, auth: Credentials): RedisTarget {
  const db = config.db ?? node.db ?? 0;
  const base: IORedisOptions = {
    host: node.host,
    port: node.port,
    db,
    ...(node.username !== undefined && { username: node.username }),
    ...(node.password !== undefined && { password: node.password }),
    ...auth,
  };
  return {
    kind: "single",
    display: `${auth.tls ? "rediss" : "redis"}://${node.host}:${node.port}/${db}`,
    client: (role, name) => new Redis({ ...base, ...roleOptions(role, name), lazyConnect: true }),
  };
}

function sentinelTarget(config: RedisOptions, auth: Credentials): RedisTarget {
  const sentinels = (config.sentinels ?? []).map(nodeOf);
  const { sentinelPassword, ...master } = auth;
  const base: IORedisOptions = {
    sentinels: sentinels.map(({ host, port }) => ({ host, port })),
    name: config.name as string,
    db: config.db ?? 0,
    ...master,
    ...(sentinelPassword !== undefined && { sentinelPassword }),
    ...(auth.tls && { enableTLSForSentinelMode: true, sentinelTLS: auth.tls }),
    sentinelRetryStrategy: backoff,
  };
  return {
    kind: "sentinel",
    display: `sentinel master "${config.name}" via ${sentinels.map(({ host, port }) => `${host}:${port}`).join(",")}`,
    client: (role, name) => new Redis({ ...base, ...roleOptions(role, name), lazyConnect: true }),
  };
}

function clusterTarget(seeds: Node[], auth: Credentials): RedisTarget {
  return {
    kind: "cluster",
    display: `cluster ${seeds.map(({ host, port }) => `${auth.tls ? "rediss" : "redis"}://${host}:${port}`).join(",")}`,
    client(role, name) {
      const { retryStrategy: _each, ...node } = roleOptions(role, name);
      const options: ClusterOptions = {
        lazyConnect: true,
        redisOptions: { ...auth, ...node },
        clusterRetryStrategy: backoff,
        slotsRefreshTimeout: 2000,
        // Commands and blocking reads fail when their node's connection closes (the caller knows
        // it was cut off, and retries as its delivery allows); the subscriber waits for a new node.
        // (A cluster queues commands while a node's connection opens; a host checks `status` first.)
        retryDelayOnFailover: role === "subscriber" ? 200 : 0,
        // CLUSTERDOWN (another master failing over) comes back as itself: a live server's refusal, nothing lost.
        retryDelayOnClusterDown: role === "subscriber" ? 200 : 0,
      };
      return new Cluster(seeds.map(({ host, port }) => ({ host, port })), options);
    },
  };
}

/**
 * A command client, connected: resolves once Redis answers, or rejects with a clear error after
 * `timeoutMs`. It fails fast while disconnected (no offline queue) and reconnects in the background.
 */
export async function connectClient(target: RedisTarget, timeoutMs: number, name: string): Promise<RedisClient> {
  const client = target.client("command", name);
  let lastError: unknown;
  client.on("error", (error: unknown) => {
    lastError = error;
  });
  try {
    await withTimeout(
      (async () => {
        await client.connect();
        await client.ping();
        // Every master's connection open before the first call, not while it waits.
        if (client instanceof Cluster) await Promise.all(client.nodes("master").map((node) => node.ping()));
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

/** Connects a client of another role in the background (its first command waits for it). */
export function openClient(target: RedisTarget, role: ClientRole, name: string): RedisClient {
  const client = target.client(role, name);
  client.on("error", () => undefined);
  client.connect().catch(() => undefined);
  return client;
}

/**
 * After a command failed for want of a connection: a cluster client looks again which node serves
 * which slots (a replica may have taken over a failed master), as it does not on its own when its
 * commands fail at once instead of being retried.
 */
export function recover(client: RedisClient): void {
  if (client instanceof Cluster) client.refreshSlotsCache();
}

/** Whether a client can send commands now. */
export function isReady(client: RedisClient): boolean {
  return client.status === "ready";
}

/** Rejects when `promise` takes longer than `ms`. */
export function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error("timed out")), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
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

/** Ends a client: politely when Redis answers within 2 s, else at once. */
export async function closeClient(client: RedisClient): Promise<void> {
  if (!(await settleWithin(client.quit(), 2000))) client.disconnect();
}
