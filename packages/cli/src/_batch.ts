import { type AgentHarness, ErrorCode, resultCode, type ToolCall, type ToolResultMessage } from "@toolhost/core";
import type { Host } from "@toolhost/core/config";
import type { Cli } from "./cli.js";
import { LastLines, markInterrupted } from "./_interrupted.js";
import { ExitCode } from "./_output.js";
import { startProgress } from "./_progress.js";

/**
 * The kernel's codes for a call it refused before the tool ran (the prepare and authorize stages):
 * a stand-in that ran the call elsewhere (a queue's worker) hands them on in its result.
 */
const KERNEL_REFUSALS = new Set<string>([
  ErrorCode.TOOL_NOT_FOUND,
  ErrorCode.TOOL_RESOLVE_FAILED,
  ErrorCode.PREPARE_FAILED,
  ErrorCode.VALIDATION_FAILED,
  ErrorCode.INVALID_ARGUMENTS,
  ErrorCode.ACCESS_FAILED,
  ErrorCode.BLOCKED,
  ErrorCode.NOT_APPROVED,
  ErrorCode.POLICY_FAILED,
]);

/** A batch's results, and the ids of the calls that reached the execute stage (their tool, or a stand-in, ran). */
export interface BatchResults {
  results: ToolResultMessage[];
  ran: ReadonlySet<string>;
}

/**
 * 0 done, 1 the tool reported an error, 2 refused, 130 interrupted. Refused: the call ended before
 * the execute stage (unknown tool, invalid arguments, a tool's `access` that refused it, a policy, no
 * approval), whatever its code; or its result says `refused: true` (a tool that found, while
 * running, that it must refuse and changed nothing); or it carries one of the kernel's refusal codes.
 */
export function exitCodeOf(result: ToolResultMessage, interrupted: boolean, ran: ReadonlySet<string>): number {
  if (!result.isError) return ExitCode.OK;
  const code = resultCode(result);
  if (code === ErrorCode.ABORTED && interrupted) return ExitCode.INTERRUPTED;
  if (code === ErrorCode.ABORTED || code === ErrorCode.TIMED_OUT) return ExitCode.TOOL_ERROR;
  const marked = (result.details as { refused?: unknown } | null | undefined)?.refused === true;
  const refused = !ran.has(result.toolCallId) || marked || (code !== undefined && KERNEL_REFUSALS.has(code));
  return refused ? ExitCode.REFUSED : ExitCode.TOOL_ERROR;
}

/**
 * Runs one batch with Ctrl-C wired to its signal and progress on stderr while it runs. A call
 * stopped by Ctrl-C says so in its result, with the last output line it showed.
 */
export async function runBatch(cli: Cli, host: Host, calls: ToolCall[], title: string): Promise<BatchResults> {
  const signal = cli.interruptSignal();
  const ran = watchExecution(host.harness);
  const lastLines = new LastLines(host.harness);
  cli.progress = await startProgress(host.harness, title, !cli.globals.quiet);
  try {
    const results = await host.harness.executeToolCalls(calls, { signal });
    const by = cli.interruptedBy;
    return {
      results: by === undefined ? results : results.map((result) => (resultCode(result) === ErrorCode.ABORTED ? markInterrupted(result, by, lastLines.get(result.toolCallId)) : result)),
      ran,
    };
  } finally {
    lastLines.stop();
    cli.progress.stop();
    cli.progress = undefined;
  }
}

const watched = new WeakMap<AgentHarness, Set<string>>();

/**
 * The ids of the calls that reach the execute stage, seen by a tap of `executeToolCall` before
 * every other (it answers nothing, so the tool or a stand-in runs as without it).
 */
function watchExecution(harness: AgentHarness): ReadonlySet<string> {
  let ids = watched.get(harness);
  if (ids === undefined) {
    const seen = new Set<string>();
    harness.hooks.executeToolCall.tap({ name: "@toolhost/cli (exit code)", stage: Number.MIN_SAFE_INTEGER }, ({ toolCall }) => {
      seen.add(toolCall.id);
      return undefined;
    });
    watched.set(harness, seen);
    ids = seen;
  }
  return ids;
}
