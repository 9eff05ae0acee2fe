import { randomUUID } from "node:crypto";
import { statSync } from "node:fs";
import { resolve } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { type AgentToolResult, type AgentToolUpdateCallback, messageOf } from "@toolhost/core";
import { type Options, execa } from "execa";
import type { FullOutputFiles } from "./_full-output.js";
import { type RenderedStream, StreamCapture, streamText } from "./_output.js";
import { type CommandOutputs, commandOutputs } from "./_pipes.js";
import { findOnPath, isExecutable } from "./_probe.js";
import { type SandboxPlan, SandboxSetupError, planSandbox } from "./_sandbox.js";
import { type SandboxUse, sandboxNotes } from "./_sandbox-use.js";
import type { BashToolDetails } from "./details.js";
import { BashAbortedError, BashErrorCode } from "./errors.js";
import { Spill } from "./_spill.js";
import { ProcessTree, killTreeOnExit } from "./_tree.js";

/** Everything one call needs, resolved from the tool's options and the call's arguments. */
export interface RunSettings {
  command: string;
  cwd: string;
  /** Seconds; undefined for no limit. */
  timeoutSeconds: number | undefined;
  maxStdoutLines: number | undefined;
  maxStderrLines: number | undefined;
  maxOutputBytes: number;
  shell: string | undefined;
  env: Record<string, string>;
  killGraceMs: number;
  /** Run before the command, on a line of its own. */
  commandPrefix: string | undefined;
  sandbox: SandboxUse;
  /** Where full outputs go; undefined: none is kept. */
  fullOutput: FullOutputFiles | undefined;
  /** Applied to the full-output file's lines (the harness's `redact` hook, when tapped). */
  redact: ((text: string) => string) | undefined;
}

/** A running call, as the tool's `dispose` sees it. */
interface RunningCommand {
  /** Ends the command's tree; the call then throws as aborted. */
  stop(): void;
  readonly settled: Promise<unknown>;
}

/** The calls of one tool still running, and whether the tool was disposed (a call starting after it is stopped at once). */
export class RunningCommands {
  readonly #calls = new Set<RunningCommand>();
  #disposed = false;

  get disposed(): boolean {
    return this.#disposed;
  }

  add(call: RunningCommand): void {
    this.#calls.add(call);
    if (this.#disposed) call.stop();
  }

  delete(call: RunningCommand): void {
    this.#calls.delete(call);
  }

  /** Stops every call and waits until each has settled. */
  async dispose(): Promise<void> {
    this.#disposed = true;
    const calls = [...this.#calls];
    for (const call of calls) call.stop();
    await Promise.all(calls.map((call) => call.settled));
  }
}

/** The environment variable every command of a call inherits, to find its processes after they leave the tree. */
export const CALL_MARKER = "TOOLHOST_BASH_CALL";

const UPDATE_INTERVAL_MS = 100;
const TRACK_INTERVAL_MS = 200;
/** After the tree is ended, reading stops once the pipes are quiet this long (an escaped holder may never close them). */
const QUIET_MS = 250;
const DRAIN_LIMIT_MS = 5000;
/** Sandboxed, the pipes end once bwrap has exited; this only bounds a kernel that would not say so. */
const SANDBOX_DRAIN_LIMIT_MS = 60_000;
const MAX_TIMER_MS = 2 ** 31 - 1;

export async function runCommand(
  settings: RunSettings,
  signal: AbortSignal | undefined,
  onUpdate: AgentToolUpdateCallback<BashToolDetails> | undefined,
  running: RunningCommands,
): Promise<AgentToolResult<BashToolDetails>> {
  const started = performance.now();
  const { command, cwd } = settings;
  let sandboxDetails = settings.sandbox.details;
  const base = (): BashToolDetails => ({
    command,
    cwd,
    exitCode: null,
    signal: null,
    stdout: "",
    stderr: "",
    truncated: false,
    fullOutputPath: null,
    fullOutputExpiresAt: null,
    durationMs: Math.round(performance.now() - started),
    sandbox: sandboxDetails,
  });
  const cannotStart = (code: string, text: string): AgentToolResult<BashToolDetails> => ({
    content: [{ type: "text", text }],
    details: { ...base(), code },
    isError: true,
  });
  if (signal?.aborted || running.disposed) {
    const what = signal?.aborted ? "Aborted" : "Not run: the harness was disposed";
    throw new BashAbortedError(`${what} before the command started.`, { content: [], details: base(), isError: true });
  }

  const problem = checkCwd(cwd);
  if (problem) return cannotStart(BashErrorCode.CWD_NOT_FOUND, problem);
  const pathVariable = settings.env.PATH ?? process.env.PATH;
  const shell = findShell(settings.shell, pathVariable, cwd);
  if (shell === undefined) {
    return cannotStart(
      BashErrorCode.SHELL_NOT_FOUND,
      settings.shell
        ? `Cannot run the command: the shell "${settings.shell}" was not found or is not executable (PATH: ${pathVariable ?? "unset"}). Install it, or set the bash tool's "shell" option to an existing shell.`
        : `Cannot run the command: neither bash nor sh was found on PATH (${pathVariable ?? "unset"}). Install bash, or set the bash tool's "shell" option.`,
    );
  }

  const use = settings.sandbox;
  if (use.kind === "refuse") {
    return cannotStart(
      BashErrorCode.SANDBOX_UNAVAILABLE,
      `Refused: the bash tool must run commands in a sandbox ("sandbox": "required"), and none can be made here: ${use.reason} No command runs until then. Tell the user; they may also set "sandbox": "auto" to run commands unsandboxed.`,
    );
  }
  let plan: SandboxPlan | undefined;
  if (use.kind === "bwrap") {
    try {
      const folder = settings.fullOutput?.tryFolder();
      const visible = folder !== undefined ? [folder] : [];
      plan = await planSandbox({ ...use.settings, visible }, cwd, use.policy());
    } catch (error) {
      const why = error instanceof SandboxSetupError ? error.message : `setting it up failed: ${messageOf(error)}`;
      return cannotStart(BashErrorCode.SANDBOX_FAILED, `Refused: the command's sandbox could not be made: ${why}`);
    }
    sandboxDetails = { ...sandboxDetails, writable: plan.writable, readOnly: plan.readOnly, hidden: plan.hidden, ...(plan.unbounded.length > 0 && { unbounded: plan.unbounded }) };
  }

  const marker = `${CALL_MARKER}=${randomUUID()}`;
  const outputs = await commandOutputs();
  let child: ReturnType<typeof spawnShell>;
  try {
    child = spawnShell(shell, settings, marker, outputs.stdio, plan && use.kind === "bwrap" ? { bwrap: use.settings.bwrap, args: plan.args } : undefined);
  } catch (error) {
    outputs.abandon();
    return cannotStart(BashErrorCode.SPAWN_FAILED, `Cannot run the command: starting ${shell} failed: ${messageOf(error)}`);
  }
  if (child.pid === undefined) {
    outputs.abandon();
    const failure = await child.then(
      (result) => result.originalMessage ?? result.shortMessage,
      (error: unknown) => messageOf(error),
    );
    return cannotStart(
      BashErrorCode.SPAWN_FAILED,
      `Cannot run the command: starting ${shell} in ${cwd} failed: ${failure}. Check that the shell and the folder exist and can be used.`,
    );
  }
  // The result promise waits on the pipes, which an escaped process may hold: it is not awaited.
  child.then(
    () => {},
    () => {},
  );

  const pid = child.pid;
  const tree = new ProcessTree(pid, marker);
  const unmarkExit = killTreeOnExit(tree);
  const tracker = setInterval(() => tree.track(), TRACK_INTERVAL_MS);
  tracker.unref();

  const [stdout, stderr] = outputs.spawned(child);
  const out = new StreamCapture(settings.maxOutputBytes);
  const err = new StreamCapture(settings.maxOutputBytes);
  let paused = false;
  let lastData = performance.now();
  const resume = (): void => {
    if (!paused) return;
    paused = false;
    stdout.resume();
    stderr.resume();
  };
  const pause = (): void => {
    paused = true;
    stdout.pause();
    stderr.pause();
  };
  const fullOutput = settings.fullOutput;
  const spill = new Spill(resume, fullOutput ? () => fullOutput.next() : undefined, settings.redact);

  let settled = false;
  let updateTimer: NodeJS.Timeout | undefined;
  // The first update comes one interval after the start, like every other: at most 10 a second.
  let lastUpdate = started;
  const sendUpdate = (): void => {
    updateTimer = undefined;
    if (settled || !onUpdate) return;
    lastUpdate = performance.now();
    const o = out.render(settings.maxStdoutLines);
    const e = err.render(settings.maxStderrLines);
    const note = "full output will be saved to a file";
    const details: BashToolDetails = {
      ...base(),
      stdout: streamText(o, note),
      stderr: streamText(e, note),
      truncated: o.truncated || e.truncated,
      fullOutputPath: spill.path ?? null,
    };
    try {
      onUpdate({ content: [{ type: "text", text: assemble(details.stdout, details.stderr, undefined) }], details });
    } catch {
      // A listener's failure is not the command's.
    }
  };
  const scheduleUpdate = (): void => {
    if (updateTimer !== undefined || settled || !onUpdate) return;
    updateTimer = setTimeout(sendUpdate, Math.max(0, lastUpdate + UPDATE_INTERVAL_MS - performance.now()));
  };
  const reader = (capture: StreamCapture, stream: 0 | 1) => (chunk: Buffer, release: () => void) => {
    lastData = performance.now();
    capture.push(chunk);
    if (!spill.record(chunk, release, stream)) pause();
    if (capture.overflowed && !spill.started) spill.start();
    scheduleUpdate();
  };
  stdout.start(reader(out, 0));
  stderr.start(reader(err, 1));
  const streamsClosed = Promise.all([stdout.closed, stderr.closed]);

  let stopReason: "aborted" | "disposed" | "timeout" | undefined;
  let onStop: () => void = () => {};
  const stopped = new Promise<void>((resolve) => {
    onStop = resolve;
  });
  const stop = (reason: "aborted" | "disposed" | "timeout"): void => {
    if (stopReason !== undefined || settled) return;
    stopReason = reason;
    onStop();
  };
  const onAbort = (): void => stop("aborted");
  signal?.addEventListener("abort", onAbort, { once: true });
  // Aborted while the pipes were made: the listener above will never fire.
  if (signal?.aborted) stop("aborted");
  // Beyond setTimeout's range (about 24.8 days) Node would fire at once: such a limit is no limit.
  const timeoutMs = settings.timeoutSeconds === undefined ? undefined : settings.timeoutSeconds * 1000;
  const timer =
    timeoutMs !== undefined && timeoutMs <= MAX_TIMER_MS ? setTimeout(() => stop("timeout"), timeoutMs) : undefined;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once("exit", (code, exitSignal) => resolve({ code, signal: exitSignal }));
  });

  let finish!: () => void;
  const handle: RunningCommand = {
    stop: () => stop("disposed"),
    settled: new Promise<void>((resolve) => {
      finish = resolve;
    }),
  };
  running.add(handle);

  try {
    await Promise.race([exited, stopped]);
    // Whether the shell exited or is being stopped: whatever is left of its tree is ended now.
    await tree.end(settings.killGraceMs);
    clearInterval(tracker);
    // The shell is gone by now (SIGKILL at worst); the wait is bounded all the same.
    const gone = new AbortController();
    const exit = await Promise.race([
      exited.then((status) => ({ ...status, seen: true })),
      delay(1000, undefined, { signal: gone.signal }).then(
        () => ({ code: null, signal: null, seen: false }),
        () => ({ code: null, signal: null, seen: false }),
      ),
    ]);
    gone.abort();
    // Sandboxed, bwrap has exited only once every process of its PID namespace has: no one holds
    // the pipes any more, so they end; unsandboxed, an escaped process may hold them for ever.
    await drain(streamsClosed, plan !== undefined && exit.seen, () => ({ paused, lastData }));
    settled = true;
    clearTimeout(updateTimer);
    stdout.destroy();
    stderr.destroy();

    const o = out.render(settings.maxStdoutLines);
    const e = err.render(settings.maxStderrLines);
    const truncated = o.truncated || e.truncated;
    if (truncated && !spill.started) spill.start();
    await spill.finish();
    const fullOutputPath = truncated && spill.path !== undefined && spill.error === undefined ? spill.path : null;
    const fullOutputExpiresAt = fullOutputPath !== null ? (spill.expiresAt ?? null) : null;
    const note = fullOutputPath
      ? `full output: ${fullOutputPath}${fullOutputExpiresAt ? ` (kept until ${fullOutputExpiresAt})` : ""}`
      : !fullOutput
        ? `the full output is not kept (keepFullOutput: false)`
        : `the full output could not be saved (${spill.error ? messageOf(spill.error) : "no file"})`;
    const details: BashToolDetails = {
      ...base(),
      exitCode: exit.code,
      signal: exit.signal,
      stdout: streamText(o, note),
      stderr: streamText(e, note),
      truncated,
      fullOutputPath,
      fullOutputExpiresAt,
    };
    const failed = stopReason !== undefined || exit.code !== 0;
    const notes = plan && use.kind === "bwrap" ? sandboxNotes(plan, use.settings.network, command, `${details.stdout}\n${details.stderr}`, failed) : "";

    if (stopReason === "aborted" || stopReason === "disposed") {
      const what = stopReason === "aborted" ? "Aborted" : "Ended because the harness was disposed";
      const result = { content: [{ type: "text" as const, text: assemble(details.stdout, details.stderr, "[aborted]") + notes }], details, isError: true };
      throw new BashAbortedError(
        `${what} after ${formatSeconds(details.durationMs)}; the command and every process it started were ended.${outputSoFar(o, e, details)}`,
        result,
      );
    }
    if (stopReason === "timeout") {
      const seconds = settings.timeoutSeconds as number;
      const status = `[timed out after ${seconds} s; the command and every process it started were ended]`;
      return {
        content: [{ type: "text", text: assemble(details.stdout, details.stderr, status) + notes }],
        details: { ...details, code: BashErrorCode.TIMED_OUT, timeoutSeconds: seconds },
        isError: true,
      };
    }
    const status =
      exit.signal !== null ? `[ended by signal ${exit.signal}]` : exit.code !== 0 ? `[exit code ${exit.code}]` : undefined;
    const text = assemble(details.stdout, details.stderr, status) + notes;
    if (status === undefined) return { content: [{ type: "text", text }], details };
    return { content: [{ type: "text", text }], details: { ...details, code: BashErrorCode.COMMAND_FAILED }, isError: true };
  } finally {
    settled = true;
    clearTimeout(timer);
    clearTimeout(updateTimer);
    clearInterval(tracker);
    signal?.removeEventListener("abort", onAbort);
    running.delete(handle);
    unmarkExit();
    finish();
  }
}

function spawnShell(
  shell: string,
  settings: RunSettings,
  marker: string,
  [out, err]: CommandOutputs["stdio"],
  sandbox: { bwrap: string; args: string[] } | undefined,
) {
  const separator = marker.indexOf("=");
  const options: Options = {
    cwd: settings.cwd,
    env: { ...settings.env, [marker.slice(0, separator)]: marker.slice(separator + 1) },
    extendEnv: true,
    // Its own process group and session, so that the whole tree can be signalled at once.
    detached: true,
    stdin: "ignore",
    // A file descriptor of our FIFO; execa's types list only 3 to 9, its runtime takes any.
    stdout: out as Options["stdout"],
    stderr: err as Options["stderr"],
    // Read here, chunk by chunk, in bounded memory; execa keeps nothing.
    buffer: false,
    encoding: "buffer",
    stripFinalNewline: false,
    reject: false,
    cleanup: false,
    forceKillAfterDelay: false,
  };
  const command = settings.commandPrefix !== undefined ? `${settings.commandPrefix}\n${settings.command}` : settings.command;
  if (sandbox) return execa(sandbox.bwrap, [...sandbox.args, "--", shell, "-c", command], options);
  return execa(shell, ["-c", command], options);
}

/**
 * Reads what is left in the pipes after the tree has ended. It waits for their end when nothing
 * can hold them (`untilEnd`), else until they are quiet for `QUIET_MS` after the tree ended.
 * Each check first lets the event loop poll the pipes: a timer that comes due in the same turn as
 * their data (a loaded machine) must not end the reading before that data is read.
 */
async function drain(closed: Promise<unknown>, untilEnd: boolean, reading: () => { paused: boolean; lastData: number }): Promise<void> {
  const start = performance.now();
  let done = false;
  void closed.then(() => {
    done = true;
  });
  while (!done) {
    await Promise.race([closed, delay(50)]);
    await new Promise<void>((resolve) => setImmediate(resolve));
    if (done) return;
    const now = performance.now();
    if (untilEnd) {
      if (now - start > SANDBOX_DRAIN_LIMIT_MS) return;
      continue;
    }
    const { paused, lastData } = reading();
    if ((!paused && now - Math.max(lastData, start) > QUIET_MS) || now - start > DRAIN_LIMIT_MS) return;
  }
}

/** stdout, then stderr under a mark, then the status line. */
function assemble(stdout: string, stderr: string, status: string | undefined): string {
  const parts: string[] = [];
  if (stdout.length > 0) parts.push(stdout);
  if (stderr.length > 0) parts.push(`[stderr]\n${stderr}`);
  if (status !== undefined) parts.push(status);
  return parts.length > 0 ? parts.join("\n") : "(no output)";
}

function outputSoFar(o: RenderedStream, e: RenderedStream, details: BashToolDetails): string {
  if (o.totalBytes === 0 && e.totalBytes === 0) return " It wrote no output.";
  return ` Output so far:\n${assemble(details.stdout, details.stderr, undefined)}`;
}

function formatSeconds(ms: number): string {
  return `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;
}

function checkCwd(cwd: string): string | undefined {
  try {
    if (statSync(cwd).isDirectory()) return undefined;
    return `Cannot run the command: the working directory ${cwd} is not a folder. Set the bash tool's "cwd" option to a folder.`;
  } catch {
    return `Cannot run the command: the working directory ${cwd} does not exist. Create it, or set the bash tool's "cwd" option to an existing folder.`;
  }
}

function findShell(option: string | undefined, pathVariable: string | undefined, cwd: string): string | undefined {
  for (const name of option !== undefined ? [option] : ["bash", "sh"]) {
    if (name.includes("/")) {
      const path = resolve(cwd, name);
      if (isExecutable(path)) return path;
      continue;
    }
    const path = findOnPath(name, pathVariable);
    if (path !== undefined) return path;
  }
  return undefined;
}
