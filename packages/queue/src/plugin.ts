import { createRequire } from "node:module";
import { isAbsolute, resolve } from "node:path";
import { type AgentHarness, type AnyAgentTool, type PluginReport, type QueueWorkOptions, definePlugin } from "@toolhost/core";
import { keysOf, processId } from "./_keys.js";
import { Producer } from "./_producer.js";
import { type RedisClient, closeClient, connectClient, redisTarget } from "./_redis.js";
import { type StandInContext, readRemoteTool, readRemoteTools } from "./_remote.js";
import { Routing, checkRoutedTools, judgesAccess, workerDescription } from "./_routing.js";
import { type Keyring, keyIds, readKeyring } from "./_signing.js";
import { work } from "./_worker.js";
import { QueueErrorCode } from "./errors.js";
import { type QueueOptions, QueueOptionsSchema } from "./options.js";

const { version } = createRequire(import.meta.url)("../package.json") as { version: string };
const NAME = "@toolhost/queue";

/**
 * The `@toolhost/queue` plugin. On a host, the calls its `tools` select (and the calls of tools
 * only its workers have) are sent to a queue on Redis once the host's own pipeline has decided
 * them, signed with the queue's key, and the worker's result is the call's result. It also offers
 * the service `"queue"`, with which `toolhost worker` runs the queue's calls on this harness instead.
 */
const queuePlugin = definePlugin({
  name: NAME,
  version,
  options: QueueOptionsSchema,
  async apply(harness, options): Promise<PluginReport> {
    checkRoutedTools(harness, options.tools, queueList(options));
    const target = redisTarget(options.redis, harness.workspace);
    const keyring = readKeyring(options.signing, harness.workspace);
    const hostId = processId();
    const client = await connectClient(target, options.connectTimeoutMs, `toolhost-producer:${hostId}`);
    const producer = new Producer(client, target, options, {
      keyring,
      policy: () => harness.getService("policy"),
      judges: () => harness.hooks.beforeToolCall.taps.map((tap) => tap.name),
    }, hostId, waitBounds(options));
    const routing = new Routing(options.tools);
    await offerRemoteTools(harness, client, options, routing);
    const unsignedWarning = keyring ? undefined : unsignedText(options);
    let warned = false;
    // A stand-in at the execute stage and nothing more: the kernel's update path, the approval and
    // the decision come with the call (`ctx.execution`).
    harness.hooks.executeToolCall.tapPromise(NAME, async (ctx, signal) => {
      if (!routing.routes(ctx.tool.name)) return undefined;
      // Said once, with the first call sent: a worker (which never sends) has its own refusal.
      if (unsignedWarning && !warned) process.emitWarning(unsignedWarning, { code: QueueErrorCode.UNSIGNED_HOST });
      warned = true;
      return producer.run(ctx, signal);
    });
    harness.provideService("queue", {
      async work(workOptions: QueueWorkOptions) {
        routing.working = true;
        routing.restoreDescriptions();
        await work(harness, (name) => routing.remote.has(name), target, options, workOptions);
      },
      waitAtMost(ms: number, by: string) {
        producer.waitAtMost(Math.min(ms, options.signing.maxAgeSeconds * 1000), by);
      },
    });
    harness.hooks.dispose.tapPromise(NAME, async () => {
      await producer.close();
      await closeClient(client);
    });
    return report(target.display, options, keyring, harness.workspace);
  },
});

/**
 * Registers a stand-in for each tool the workers published that this host lacks, finds one
 * published later when it is first called, and hands the pipeline the host's own tool of a routed
 * call as the host judges it (`Routing.judged`).
 */
async function offerRemoteTools(harness: AgentHarness, client: RedisClient, options: QueueOptions, routing: Routing): Promise<void> {
  const queue = typeof options.queue === "string" ? options.queue : (options.queue[0] as string);
  // Every worker of a host's queues publishes its tools in each: the first queue's list is theirs.
  const toolsKey = keysOf(options.prefix, queue).tools;
  const here: StandInContext = { queue, judgesAccess: () => judgesAccess(harness) };
  if (options.discoverTools) {
    for (const tool of await readRemoteTools(client, toolsKey, here)) {
      if (harness.getTool(tool.name)) continue;
      harness.registerTool(tool);
      routing.remote.add(tool.name);
    }
  }
  if (options.discoverTools) await describeRoutedTools(harness, client, toolsKey, queue, routing);
  const late = new Map<string, AnyAgentTool>();
  harness.hooks.resolveTool.tapPromise(NAME, async (call) => {
    if (routing.working) return undefined;
    const own = harness.getTool(call.name);
    if (own) return routing.routes(call.name) ? routing.judged(own) : undefined;
    // A tool published after this host loaded (a worker started later) is found when first called.
    if (!options.discoverTools || client.status !== "ready") return undefined;
    const known = late.get(call.name) ?? (await readRemoteTool(client, toolsKey, call.name, here));
    if (!known) return undefined;
    late.set(call.name, known);
    routing.remote.add(call.name);
    return known;
  });
}

/**
 * A tool of this host whose calls run on the workers is described as the workers publish it (their
 * folder, their sandbox), not as this host's copy describes itself: the model reads where it runs.
 */
async function describeRoutedTools(harness: AgentHarness, client: RedisClient, toolsKey: string, queue: string, routing: Routing): Promise<void> {
  const own = harness.tools.filter((tool) => routing.routes(tool.name));
  if (own.length === 0) return;
  const published = await client.hmget(toolsKey, ...own.map((tool) => tool.name));
  for (const [i, tool] of own.entries()) {
    routing.describe(tool, workerDescription(published[i] ?? null, queue, tool.description));
  }
}

/** When no call waits, and when a call is given up on: the options, never past a job's age limit. */
function waitBounds(options: QueueOptions): { noticeAfterMs: number; waitAtMostMs: number; boundBy: string } {
  const maxAgeMs = options.signing.maxAgeSeconds * 1000;
  const given = options.waitForWorkerSeconds === undefined ? undefined : options.waitForWorkerSeconds * 1000;
  return {
    noticeAfterMs: options.noticeAfterSeconds * 1000,
    waitAtMostMs: Math.min(given ?? maxAgeMs, maxAgeMs),
    boundBy: given !== undefined && given <= maxAgeMs ? "the queue plugin's waitForWorkerSeconds" : "signing.maxAgeSeconds: a worker would refuse the job as expired after it",
  };
}

function unsignedText(options: QueueOptions): string {
  const where = options.signing.keyFile !== undefined ? `the key file ${options.signing.keyFile}` : `the variable ${options.signing.keyEnv}`;
  return `@toolhost/queue: this host holds no queue key (${where} holds none), so the jobs it sends are unsigned: a worker that holds the key refuses them, and only a worker started with --no-auth runs them. Give this host the workers' key (export ${options.signing.keyEnv}=…, or signing.keyFile), the same on every host and worker.`;
}

/** What `toolhost config` shows of the plugin: where calls go, and how they are signed. */
function report(redis: string, options: QueueOptions, keyring: Keyring | undefined, workspace: string): PluginReport {
  const keyFile = options.signing.keyFile === undefined ? undefined : resolve(workspace, options.signing.keyFile);
  return {
    settings: {
      redis,
      queue: queueList(options),
      tools: options.tools,
      signing: keyring ? `hmac-sha256, key ${keyIds(keyring).join(", ")} from ${keyring.source}` : `none: no key in ${keyFile ?? `$${options.signing.keyEnv}`} (only a worker started with --no-auth runs these jobs)`,
    },
    ...(keyFile !== undefined && isAbsolute(keyFile) && { sources: [keyFile] }),
  };
}

/** The host's queues, for messages. */
function queueList(options: QueueOptions): string {
  return typeof options.queue === "string" ? options.queue : options.queue.join(", ");
}

export default queuePlugin;
