import type { AgentToolResult, AgentToolUpdateCallback, ToolExecution } from "@toolhost/core";
import type { BashToolDetails } from "../details.js";
import { BashErrorCode } from "../errors.js";
import { drain } from "./_drain.js";
import { type CallSettings, type PreparedCall, prepareCall } from "./_prepare.js";
import type { ShellProcess } from "../_shell-process.js";
import { type ReadingSettings, OutputReading } from "./_reading.js";
import { CallRecord, finalResult } from "./_result.js";
import type { RunningCommands } from "./_running.js";
import { StopControl } from "./_stop.js";
import { mark } from "./_timeline.js";
import { Updates } from "./_updates.js";

/** Everything one call needs, resolved from the tool's options and the call's arguments. */
export interface RunSettings extends CallSettings, ReadingSettings {
  /** The call's id (its phases are told by it, for the benchmark's timeline). */
  callId: string;
  /** Seconds; undefined for no limit. */
  timeoutSeconds: number | undefined;
  killGraceMs: number;
}

/**
 * Runs one call: prepare (folder, shell, sandbox), start the process, follow it to its end, and
 * make the result. Every failure to start is an error result; abort and dispose throw
 * `BashAbortedError`.
 */
export async function runCommand(
  settings: RunSettings,
  signal: AbortSignal | undefined,
  onUpdate: AgentToolUpdateCallback<BashToolDetails> | undefined,
  running: RunningCommands,
  execution?: ToolExecution,
): Promise<AgentToolResult<BashToolDetails>> {
  const call = new CallRecord(settings.command, settings.cwd, settings.sandbox.details);
  mark(settings.callId, "start");
  if (signal?.aborted || running.disposed) throw call.stoppedBeforeStart(signal?.aborted === true);
  const prepared = await prepareCall(settings, call, execution, signal);
  if ("refusal" in prepared) return prepared.refusal;
  mark(settings.callId, "prepared");
  const started = await prepared.start();
  if ("failure" in started) {
    await prepared.sandbox?.release(settings.env);
    return call.refusal(BashErrorCode.SPAWN_FAILED, spawnFailure(prepared, started));
  }
  mark(settings.callId, "spawned");
  return follow(settings, call, prepared, started, { signal, onUpdate, running });
}

/**
 * Reads the output while the command runs (streaming updates), ends its tree when it exits or is
 * stopped (its signal, its timeout, the tool's dispose, a limit reached), drains the pipes, and
 * makes the result; whatever happens, releases the call's sandbox.
 */
async function follow(
  settings: RunSettings,
  call: CallRecord,
  { sandbox }: PreparedCall,
  started: ShellProcess,
  { signal, onUpdate, running }: { signal: AbortSignal | undefined; onUpdate: AgentToolUpdateCallback<BashToolDetails> | undefined; running: RunningCommands },
): Promise<AgentToolResult<BashToolDetails>> {
  const id = settings.callId;
  void started.exited.then(() => mark(id, "exit"));
  const updates = new Updates(onUpdate, call);
  const reading = new OutputReading(started.pipes, settings, (first) => {
    if (first) mark(id, "first-byte");
    updates.schedule();
  });
  updates.follow(reading);
  const stop = new StopControl(signal, settings.timeoutSeconds);
  const unwatch = sandbox?.watch(() => stop.stop("limit"));
  const settle = running.track(() => stop.stop("disposed"));
  try {
    const exit = await started.end(stop.stopped, settings.killGraceMs, sandbox !== undefined);
    mark(id, "tree-checked");
    // Sandboxed, bwrap has exited only once every process of its PID namespace has: no one holds
    // the pipes any more, so they end; unsandboxed, an escaped process may hold them for ever.
    await drain(reading.closed, sandbox !== undefined && exit.seen, () => reading.state());
    mark(id, "drained");
    sandbox?.settleControlFiles();
    updates.end();
    const output = await reading.finish();
    if (sandbox) call.sandbox = sandbox.details(call.sandbox);
    const limitFor = sandbox ? (shown: string) => sandbox.limitEnding(exit, shown) : undefined;
    const notes = (shown: string, failed: boolean): string => sandbox?.notes(settings.command, shown, failed) ?? "";
    const result = finalResult(call, output, exit, { reason: stop.reason, timeoutSeconds: settings.timeoutSeconds, ...(limitFor && { limitFor }) }, notes);
    mark(id, "result");
    return result;
  } finally {
    updates.end();
    stop.end();
    unwatch?.();
    started.release();
    // Its cgroups go once the kernel has reaped the namespace's processes: not the result's wait.
    void sandbox?.release(settings.env);
    settle();
  }
}

function spawnFailure(prepared: PreparedCall, { failure, refused }: { failure: string; refused: boolean }): string {
  // Refused by Node before any process existed, or the process failed to start.
  if (refused) return `Cannot run the command: starting ${prepared.shell} failed: ${failure}`;
  return `Cannot run the command: starting ${prepared.shell} in ${prepared.cwd} failed: ${failure}. Check that the shell and the folder exist and can be used.`;
}
