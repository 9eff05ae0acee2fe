import { createRequire } from "node:module";
import { type AnyAgentTool, type QueueWorkOptions, definePlugin } from "@toolhost/core";
import picomatch from "picomatch";
import { connectClient, redisTarget, settleWithin } from "./_connection.js";
import { keysOf } from "./_job.js";
import { QueueOptionsSchema } from "./options.js";
import { Producer } from "./_producer.js";
import { readRemoteTool, readRemoteTools } from "./_remote.js";
import { readKeyring } from "./_signing.js";
import { work } from "./_worker.js";

const { version } = createRequire(import.meta.url)("../package.json") as { version: string };
const NAME = "@toolhost/queue";

/**
 * The `@toolhost/queue` plugin. On a host, the calls its `tools` select (and the calls of tools
 * only its workers have) are sent to a BullMQ queue on Redis once the host's own pipeline has
 * decided them, and the worker's result is the call's result. It also offers the service
 * `"queue"`, with which `toolhost worker` runs the queue's calls on this harness instead.
 */
const queuePlugin = definePlugin({
  name: NAME,
  version,
  options: QueueOptionsSchema,
  async apply(harness, options) {
    const target = redisTarget(options.redis, harness.workspace);
    const client = await connectClient(target, options.connectTimeoutMs, `toolhost-producer:${options.queue}`);
    client.on("error", () => undefined);
    let producer: Producer | undefined;
    try {
      const keyring = readKeyring(options.signing, harness.workspace);
      producer = await Producer.open(client, options, target, {
        keyring,
        policy: () => harness.getService("policy"),
        judges: () => harness.hooks.beforeToolCall.taps.map((tap) => tap.name),
      });
    } catch (error) {
      client.disconnect();
      throw error;
    }
    const selected = picomatch(options.tools);
    const remote = new Set<string>();
    const toolsKey = keysOf(options.prefix, options.queue).tools;
    let working = false;
    if (options.discoverTools) {
      for (const tool of await readRemoteTools(client, toolsKey)) {
        if (harness.getTool(tool.name)) continue;
        harness.registerTool(tool);
        remote.add(tool.name);
      }
      // A tool published after this host loaded (a worker started later) is found when first called.
      const late = new Map<string, AnyAgentTool>();
      harness.hooks.resolveTool.tapPromise(NAME, async (call) => {
        if (working || harness.getTool(call.name) || client.status !== "ready") return undefined;
        const known = late.get(call.name) ?? (await readRemoteTool(client, toolsKey, call.name));
        if (!known) return undefined;
        late.set(call.name, known);
        remote.add(call.name);
        return known;
      });
    }

    // A stand-in at the execute stage and nothing more: the kernel's update path and the approval
    // come with the call (`ctx.execution`).
    harness.hooks.executeToolCall.tapPromise(NAME, async (ctx, signal) => {
      if (working || !(remote.has(ctx.tool.name) || selected(ctx.tool.name))) return undefined;
      return (producer as Producer).run(ctx, signal);
    });

    harness.provideService("queue", {
      async work(workOptions: QueueWorkOptions) {
        working = true;
        await work(harness, (name) => remote.has(name), target, options, workOptions);
      },
    });

    harness.hooks.dispose.tapPromise(NAME, async () => {
      await producer?.close();
      if (!(await settleWithin(client.quit(), 2000))) client.disconnect();
    });
  },
});

export default queuePlugin;
