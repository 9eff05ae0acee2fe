import { createRequire } from "node:module";
import { isAbsolute, resolve } from "node:path";
import { type AgentHarness, type AnyAgentTool, type PluginReport, type QueueWorkOptions, definePlugin } from "@toolhost/core";
import { keysOf, processId } from "./_keys.js";
import { Producer } from "./_producer.js";
import { type RedisClient, closeClient, connectClient, redisTarget } from "./_redis.js";
import { type StandInContext, readRemoteTool, readRemoteTools } from "./_remote.js";
import { Routing, checkRoutedTools, judgesAccess } from "./_routing.js";
import { type Keyring, keyIds, readKeyring } from "./_signing.js";
import { work } from "./_worker.js";
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
    }, hostId);
    const routing = new Routing(options.tools);
    await offerRemoteTools(harness, client, options, routing);
    // A stand-in at the execute stage and nothing more: the kernel's update path, the approval and
    // the decision come with the call (`ctx.execution`).
    harness.hooks.executeToolCall.tapPromise(NAME, async (ctx, signal) => (routing.routes(ctx.tool.name) ? producer.run(ctx, signal) : undefined));
    harness.provideService("queue", {
      async work(workOptions: QueueWorkOptions) {
        routing.working = true;
        await work(harness, (name) => routing.remote.has(name), target, options, workOptions);
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
