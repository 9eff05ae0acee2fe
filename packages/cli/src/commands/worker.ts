import { resolve } from "node:path";
import type { QueueWorkOptions } from "@toolhost/core";
import type { Command } from "commander";
import { type Cli, type CommandModule, UsageError } from "../cli.js";
import { ExitCode } from "../_output.js";

/** The config offers no queue service: exit 2 before anything runs. */
class NoQueueError extends UsageError {
  override readonly code = "TOOLHOST_NO_QUEUE";
}

const QUEUE_NAME = /^[A-Za-z0-9_.-]{1,100}$/;

interface WorkerFlags {
  queue: string;
  concurrency: string;
  lockDuration: string;
  healthInterval: string;
  shutdownGrace: string;
  keyFile?: string;
  /** false with --no-auth. */
  auth: boolean;
}

export const worker: CommandModule = {
  register(program: Command, cli: Cli) {
    program
      .command("worker")
      .description("run the tool calls of a queue on this machine, with this config's tools, roots and policy")
      .requiredOption("--queue <names>", "the queue to take calls from, or several separated by commas (a host spreading its calls over queues)")
      .option("--concurrency <n>", "how many calls run at once", "4")
      .option("--lock-duration <ms>", "how soon a crashed worker's calls are noticed by the others", "30000")
      .option("--health-interval <s>", "seconds between two health lines", "30")
      .option("--shutdown-grace <s>", "on SIGTERM, seconds running calls may take before they are ended", "30")
      .option("--key-file <file>", "the file holding the key hosts sign jobs with (default: the queue plugin's signing options, or $TOOLHOST_QUEUE_KEY)")
      .option("--no-auth", "run every job without checking its signature (anyone who can write to Redis can then run calls here)")
      .addHelpText(
        "after",
        `
The queue and Redis come from a queue plugin in the config, e.g.
  "plugins": ["@toolhost/tool-bash", ["@toolhost/queue", { "redis": "redis://127.0.0.1:6379" }]]
The worker runs each call through this config's plugins (its own tools, roots, sandbox, and a
policy if one is configured, as a second gate: a call it would ask about is refused here).

A worker runs only jobs signed with the hosts' key (HMAC-SHA256; see docs/scaling.md, trust
model); without a key it refuses to start, unless --no-auth is given (and every health line says so).

Health is printed as JSON lines on stdout: ready, then every --health-interval, stopping, stopped.
SIGTERM or Ctrl-C stops taking calls and lets the running ones finish (a second one exits at once).
Exit codes: 0 stopped, 2 refused (config, no queue plugin, no key, Redis unreachable).`,
      )
      .action(
        cli.action(async (options: WorkerFlags) => {
          const settings = settingsOf(options, cli.globals.cwd);
          const host = await cli.host();
          const queue = host.harness.getService("queue");
          if (!queue) {
            const where = host.configPath ?? "a toolhost.config.json (toolhost init writes one)";
            throw new NoQueueError(
              `No queue is configured. Add one to "plugins" in ${where}, e.g. ["@toolhost/queue", { "redis": "redis://127.0.0.1:6379" }] (npm i -D @toolhost/queue).`,
            );
          }
          // Policy is decided where a call is made: a worker's own policy is a second gate, and its
          // "ask" is a refusal here, even in a terminal.
          const { HarnessStage } = await import("@toolhost/core");
          host.harness.hooks.approve.tap({ name: "toolhost worker", stage: HarnessStage.BUILT_IN_FIRST }, () => ({
            approved: false,
            reason: "a worker never asks: calls are approved on the host that makes them, and this worker's policy asked again",
          }));
          const signal = cli.interruptSignal();
          await queue.work({
            ...settings,
            signal,
            onHealth: (report) => {
              void cli.out(`${JSON.stringify({ ...report, time: new Date().toISOString() })}\n`);
            },
          });
          return ExitCode.OK;
        }),
      );
  },
};

/** The flags as the queue service takes them; a bad one is a usage error (exit 2). */
function settingsOf(options: WorkerFlags, cwd: string): Omit<QueueWorkOptions, "signal" | "onHealth"> {
  for (const name of options.queue.split(",")) {
    if (!QUEUE_NAME.test(name)) {
      throw new UsageError(`--queue must be queue names of 1 to 100 letters, digits, "_", "-" or ".", separated by commas; got "${options.queue}".`);
    }
  }
  return {
    queue: options.queue,
    concurrency: whole("--concurrency", options.concurrency, 1),
    lockDurationMs: whole("--lock-duration", options.lockDuration, 500),
    healthIntervalMs: whole("--health-interval", options.healthInterval, 1) * 1000,
    shutdownGraceMs: whole("--shutdown-grace", options.shutdownGrace, 0) * 1000,
    ...(options.keyFile !== undefined && { keyFile: resolve(cwd, options.keyFile) }),
    ...(options.auth === false && { noAuthorityCheck: true }),
  };
}

function whole(flag: string, text: string, min: number): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < min) throw new UsageError(`${flag} must be a whole number of at least ${min}, got "${text}".`);
  return value;
}
