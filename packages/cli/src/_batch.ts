import { ErrorCode, resultCode, type ToolCall, type ToolResultMessage } from "@toolhost/core";
import type { Host } from "@toolhost/core/config";
import type { Cli } from "./cli.js";
import { ExitCode } from "./_output.js";
import { startProgress } from "./_progress.js";

/** Result codes that mean the call was refused before its tool ran. */
const REFUSED = new Set<string>([
  ErrorCode.TOOL_NOT_FOUND,
  ErrorCode.TOOL_RESOLVE_FAILED,
  ErrorCode.PREPARE_FAILED,
  ErrorCode.VALIDATION_FAILED,
  ErrorCode.INVALID_ARGUMENTS,
  ErrorCode.BLOCKED,
  ErrorCode.NOT_APPROVED,
  ErrorCode.POLICY_FAILED,
]);

/** 0 done, 1 the tool reported an error, 2 refused, 130 interrupted. */
export function exitCodeOf(result: ToolResultMessage, interrupted: boolean): number {
  if (!result.isError) return ExitCode.OK;
  const code = resultCode(result);
  if (code === ErrorCode.ABORTED && interrupted) return ExitCode.INTERRUPTED;
  return code !== undefined && REFUSED.has(code) ? ExitCode.REFUSED : ExitCode.TOOL_ERROR;
}

/** Runs one batch with Ctrl-C wired to its signal and progress on stderr while it runs. */
export async function runBatch(cli: Cli, host: Host, calls: ToolCall[], title: string): Promise<ToolResultMessage[]> {
  const signal = cli.interruptSignal();
  cli.progress = await startProgress(host.harness, title, !cli.globals.quiet);
  try {
    return await host.harness.executeToolCalls(calls, { signal });
  } finally {
    cli.progress.stop();
    cli.progress = undefined;
  }
}
