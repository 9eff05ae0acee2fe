import type { AgentToolResult, AgentToolUpdateCallback, ToolExecution } from "@toolhost/core";
import type { BashToolDetails } from "../details.js";
import { BashErrorCode } from "../errors.js";
import { drain } from "./_drain.js";
import { type CallSettings, type PreparedCall, prepareCall } from "./_prepare.js";
import { ShellProcess } from "./_process.js";
import { type ReadingSettings, OutputReading } from "./_reading.js";
import { CallRecord, finalResult } from "./_result.js";
import type { RunningCommands } from "./_running.js";
import { StopControl } from "./_stop.js";
import { Updates } from "./_updates.js";

/** Everything one call needs, resolved from the tool's options and the call's arguments. */
export interface RunSettings extends CallSettings, ReadingSettings {
  /** Seconds; undefined for no limit. */
  timeoutSeconds: number | undefined;
  killGraceMs: number;
}

/**
 * Runs one call: prepare (folder, shell, sandbox), start the process, read its output while it
 * runs (streaming updates), end its tree when it exits or is stopped (its signal, its timeout,
 * the tool's dispose, a limit reached), drain the pipes, and make the result. Every failure to
 * start is an error result; abort and dispose throw `BashAbortedError`.
 */
export async function runCommand(
  settings: RunSettings,
  signal: AbortSignal | undefined,
  onUpdate: AgentToolUpdateCallback<BashToolDetails> | undefined,
  running: RunningCommands,
  execution?: ToolExecution,
): Promise<AgentToolResult<BashToolDetails>> {
  const call = new CallRecord(settings.command, settings.cwd, settings.sandbox.details);
  if (signal?.aborted || running.disposed) throw call.stoppedBeforeStart(signal?.aborted === true);
  const prepared = await prepareCall(settings, call, execution, signal);
  if ("refusal" in prepared) return prepared.refusal;
  const { sandbox } = prepared;
  const started = await ShellProcess.start(prepared.launch);
  if ("failure" in started) {
    await sandbox?.release();
    return call.refusal(BashErrorCode.SPAWN_FAILED, spawnFailure(prepared, started));
  }
  const updates = new Updates(onUpdate, call);
  const reading = new OutputReading(started.pipes, settings, () => updates.schedule());
  updates.follow(reading);
  const stop = new StopControl(signal, settings.timeoutSeconds);
  const unwatch = sandbox?.watch(() => stop.stop("limit"));
  const settle = running.track(() => stop.stop("disposed"));
  try {
    const exit = await started.end(stop.stopped, settings.killGraceMs, sandbox !== undefined);
    // Sandboxed, bwrap has exited only once every process of its PID namespace has: no one holds
    // the pipes any more, so they end; unsandboxed, an escaped process may hold them for ever.
    await drain(reading.closed, sandbox !== undefined && exit.seen, () => reading.state());
    updates.end();
    const output = await reading.finish();
    if (sandbox) call.sandbox = sandbox.details(call.sandbox);
    const limitFor = sandbox ? (shown: string) => sandbox.limitEnding(exit, shown) : undefined;
    const notes = (shown: string, failed: boolean): string => sandbox?.notes(settings.command, shown, failed) ?? "";
    return finalResult(call, output, exit, { reason: stop.reason, timeoutSeconds: settings.timeoutSeconds, ...(limitFor && { limitFor }) }, notes);
  } finally {
    updates.end();
    stop.end();
    unwatch?.();
    started.release();
    await sandbox?.release();
    settle();
  }
}

function spawnFailure(prepared: PreparedCall, { failure, refused }: { failure: string; refused: boolean }): string {
  // Refused by Node before any process existed, or the process failed to start.
  if (refused) return `Cannot run the command: starting ${prepared.shell} failed: ${failure}`;
  return `Cannot run the command: starting ${prepared.shell} in ${prepared.launch.cwd} failed: ${failure}. Check that the shell and the folder exist and can be used.`;
}
