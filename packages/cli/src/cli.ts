import { stat } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { Command } from "commander";
import type { Host } from "@toolhost/core/config";
import { CLI_DIR, cliHostOptions } from "./_defaults.js";
import type { InterruptedBy } from "./_interrupted.js";
import { ExitCode, painter, write } from "./_output.js";
import type { Progress } from "./_progress.js";
import { terminalText } from "./_terminal-text.js";
import { UsageError } from "./usage-error.js";

/** The options every command takes. */
export interface GlobalOptions {
  /** The config file, instead of searching upward from the working directory. */
  config?: string;
  /** The working directory. */
  cwd: string;
  /** Machine-readable output on stdout. */
  json: boolean;
  /** No progress and no notes on stderr. */
  quiet: boolean;
}

export { UsageError };

const CONFIG_ORDER = "toolhost.config.json, .yaml, .yml, .js, .mjs, .ts";

export { CLI_DIR };

/** What a command gets: the global options, the host (created once, on first use), output, and Ctrl-C. */
export class Cli {
  readonly stdout = process.stdout;
  readonly stderr = process.stderr;
  readonly paintOut = painter(process.stdout);
  readonly paintErr = painter(process.stderr);
  /** The exit code of the command that ran. */
  exitCode: number = ExitCode.OK;
  /** The progress line of the running command, paused while the approve prompt asks. */
  progress: Progress | undefined;
  /** The `--approve` values of call, run and agent; undefined for commands that take none. */
  approvals: readonly string[] | undefined;
  /** How long each call (by id) waited for a person to approve it, in ms: not the tool's own time. */
  readonly approvalWaitMs = new Map<string, number>();
  #host: Promise<Host> | undefined;
  /** The OTLP exporters started for this command (see _telemetry.ts), shut down in `close`. */
  #telemetry: { shutdown(): Promise<void> } | undefined;
  #interrupt: AbortController | undefined;
  #interruptedBy: InterruptedBy | undefined;

  constructor(readonly program: Command) {}

  get globals(): GlobalOptions {
    const options = this.program.opts<{ config?: string; cwd?: string; json?: boolean; quiet?: boolean }>();
    return {
      ...(options.config !== undefined ? { config: options.config } : {}),
      cwd: resolve(options.cwd ?? process.cwd()),
      json: options.json === true,
      quiet: options.quiet === true,
    };
  }

  /** Wraps a command's action: its return value is the exit code; a throw is reported by `fail`. */
  action<A extends unknown[]>(run: (...args: A) => Promise<number>): (...args: A) => Promise<void> {
    return async (...args: A) => {
      try {
        await this.#checkCwd();
        this.exitCode = await run(...args);
      } catch (error) {
        this.exitCode = await this.fail(error);
      }
    };
  }

  async #checkCwd(): Promise<void> {
    const { cwd } = this.globals;
    const isFolder = await stat(cwd).then(
      (info) => info.isDirectory(),
      () => false,
    );
    if (!isFolder) throw new UsageError(`The working directory ${cwd} (--cwd) is not a folder. Give an existing folder.`);
  }

  /** Whether a human can be asked: standard input and standard error are both terminals. */
  get interactive(): boolean {
    return process.stdin.isTTY === true && process.stderr.isTTY === true;
  }

  /** The host of the config, loaded once. Config errors reject with a `ConfigError`. */
  host(options: { needsModel?: boolean } = {}): Promise<Host> {
    this.#host ??= this.#createHost(options.needsModel === true);
    return this.#host;
  }

  async #createHost(needsModel: boolean): Promise<Host> {
    const { createHost } = await import("@toolhost/core/config");
    const { config, cwd, quiet } = this.globals;
    const { startTelemetry } = await import("./_telemetry.js");
    this.#telemetry = await startTelemetry((text) => void this.note(`warning: ${text}`));
    const host = await createHost(cliHostOptions(cwd, config));
    for (const ignored of host.ignoredConfigs) {
      await this.note(`using ${host.configPath}; ignoring ${ignored} beside it (a folder's first config file is read, in the order ${CONFIG_ORDER}). Remove the one you do not use.`);
    }
    // Not a note: --quiet does not hide why every call will be refused.
    for (const refusal of host.refused) await this.err(`${this.paintErr("red", "toolhost:")} ${refusal.message} (${refusal.code}) Every call is refused until this is fixed.\n`);
    await this.#checkModel(host, needsModel);
    if (host.configPath === undefined) {
      if (!quiet) {
        const missing = host.missing.length > 0 ? ` Not installed: ${host.missing.join(", ")} (npm i -D ${host.missing.join(" ")}).` : "";
        await this.note(`No toolhost config file found from ${cwd} upward; using the default plugins.${missing} Run "toolhost init" to create one.`);
      }
      if (host.harness.getService("policy") === undefined) {
        // Safety fails closed: with no config and no policy service, nothing has decided what may run.
        const why = host.missing.includes("@toolhost/hooks-policy") ? "@toolhost/hooks-policy is not installed" : "no plugin provides a policy";
        host.harness.hooks.beforeToolCall.tap("@toolhost/cli", () => ({ ask: true, reason: `there is no config file and ${why}, so no policy allows this call` }));
      }
    }
    if (this.approvals !== undefined) {
      // Before the prompt: a call an --approve value covers runs without asking.
      const { attachGivenApprovals } = await import("./approve/given.js");
      try {
        await attachGivenApprovals(host, this, this.approvals, this.interactive);
      } catch (error) {
        await host.harness.dispose().catch(() => undefined);
        throw error;
      }
    }
    if (this.interactive) {
      const { attachApprover } = await import("./approve/terminal.js");
      attachApprover(host, this);
    } else if (this.approvals !== undefined) {
      const { attachPageApprover } = await import("./approvals/ask.js");
      attachPageApprover(host);
    }
    return host;
  }

  /**
   * A provider that cannot work as configured (no API key) stops `toolhost agent`, which needs the
   * model; every other command only warns, since it needs no model.
   */
  async #checkModel(host: Host, needsModel: boolean): Promise<void> {
    try {
      host.harness.getService("model")?.check?.();
    } catch (error) {
      if (needsModel) {
        await host.harness.dispose().catch(() => undefined);
        throw error;
      }
      const code = (error as { code?: unknown }).code;
      await this.note(`warning: ${(error as Error).message}${typeof code === "string" ? ` (${code})` : ""}\nOnly "toolhost agent" needs the model; this command goes on without it.`);
    }
  }

  /**
   * The signal that Ctrl-C (SIGINT), SIGTERM or SIGHUP aborts. A second one exits at once with 130.
   */
  interruptSignal(): AbortSignal {
    if (this.#interrupt) return this.#interrupt.signal;
    const controller = new AbortController();
    this.#interrupt = controller;
    const onSignal = (signal: NodeJS.Signals): void => {
      if (this.#interruptedBy !== undefined) process.exit(ExitCode.INTERRUPTED);
      this.#interruptedBy = signal === "SIGINT" ? "Ctrl-C" : signal === "SIGHUP" ? "SIGHUP" : "SIGTERM";
      controller.abort(new Error("interrupted"));
    };
    process.on("SIGINT", onSignal);
    process.on("SIGTERM", onSignal);
    // A closed terminal: without a handler Node exits at once, and the tools' processes (in
    // sessions of their own, which the hangup does not reach) would outlive the call.
    process.on("SIGHUP", onSignal);
    return controller.signal;
  }

  /** Whether Ctrl-C (or SIGTERM, SIGHUP) stopped the run. */
  get interrupted(): boolean {
    return this.#interruptedBy !== undefined;
  }

  /** How the run was stopped, once it was. */
  get interruptedBy(): InterruptedBy | undefined {
    return this.#interruptedBy;
  }

  /** Aborts the batch as Ctrl-C would (the approve prompt's cancel). */
  interrupt(): void {
    this.#interruptedBy ??= "Ctrl-C";
    this.#interrupt?.abort(new Error("interrupted"));
  }

  out(text: string): Promise<void> {
    return write(this.stdout, text);
  }

  err(text: string): Promise<void> {
    return write(this.stderr, text);
  }

  /** A note for people on stderr, unless --quiet; what it quotes is shown escaped (`terminalText`). */
  async note(text: string): Promise<void> {
    if (!this.globals.quiet) await this.err(`${this.paintErr("dim", `toolhost: ${terminalText(text)}`)}\n`);
  }

  /**
   * Output of a tool or a model for stdout: escaped on a terminal (`terminalText`), as it is for a
   * pipe or a file, where it is data.
   */
  toolOutput(text: string): string {
    return this.stdout.isTTY === true ? terminalText(text) : text;
  }

  /** Reports a failure: JSON on stdout with --json, a message on stderr otherwise. Returns the exit code. */
  async fail(error: unknown): Promise<number> {
    const known = error instanceof Error && typeof (error as { code?: unknown }).code === "string";
    const code = known ? (error as unknown as { code: string }).code : "TOOLHOST_INTERNAL";
    const message = error instanceof Error ? error.message : String(error);
    const exitCode = known ? ExitCode.REFUSED : ExitCode.TOOL_ERROR;
    if (this.globals.json) {
      const { configPath, plugin, line, column } = error as Record<string, unknown>;
      await this.out(`${JSON.stringify({ error: { code, message, configPath, plugin, line, column } })}\n`);
    } else {
      const detail = known ? message : `unexpected error: ${error instanceof Error ? (error.stack ?? message) : message}`;
      await this.err(`${this.paintErr("red", "toolhost:")} ${terminalText(detail)}\n${this.paintErr("dim", `(${terminalText(code)})`)}\n`);
    }
    return exitCode;
  }

  /** Disposes the host, if one was made, then sends what telemetry is left. */
  async close(): Promise<void> {
    if (!this.#host) return;
    const host = await this.#host.catch(() => undefined);
    try {
      await host?.harness.dispose();
    } finally {
      await this.#telemetry?.shutdown().catch(() => undefined);
    }
  }
}

/** Adds `--approve` (repeatable) to call, run and agent. */
export function approveOption(command: Command): Command {
  return command
    .option(
      "--approve <rule-or-pattern>",
      "approve in advance the asks this covers: a rule id (toolhost policy rules) or <tool>:<command or path>; repeatable; never a deny nor a locked layer's ask",
      (value: string, previous: string[] | undefined) => [...(previous ?? []), value],
    )
    .addHelpText(
      "after",
      `
--approve 'bash:rm -rf out' passes the policy's ask for that command; 'bash:rm -rf out/*' for
rm -rf of one word out/… ("*" stays within a word); 'bash:git push origin *' for any further
words (a last "*"); 'write:dist/**' for writes under dist/; 'recommended:rules[18]' every ask of
that rule. TOOLHOST_APPROVE holds more, one a line. Never a deny, nor a locked layer's ask.
A value that approves nothing, or would approve everything ('*'), is a usage error (exit 2).`,
    );
}

/** A command of the CLI: adds itself to the program. */
export interface CommandModule {
  register(program: Command, cli: Cli): void;
}
