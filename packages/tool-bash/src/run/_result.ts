import type { AgentToolResult } from "@toolhost/core";
import { type RenderedStream, streamText } from "../_output.js";
import type { BashSandboxDetails, BashToolDetails } from "../details.js";
import { BashAbortedError, BashErrorCode } from "../errors.js";
import type { LimitEnding } from "../limits/_exceeded.js";
import type { ExitStatus } from "../_shell-process.js";

/** Why a call was ended before its shell exited on its own. */
export type StopReason = "aborted" | "disposed" | "timeout" | "limit";

/** What the model sees of both streams at the end, and where the whole output went. */
export interface FinalOutput {
  stdout: RenderedStream;
  stderr: RenderedStream;
  truncated: boolean;
  fullOutputPath: string | null;
  fullOutputExpiresAt: string | null;
  /** When the file was cut at `fullOutputBytes`: the bytes it holds and the bytes the output had. */
  fullOutputCut?: { keptBytes: number; totalBytes: number };
  /** The notice a truncated stream carries (where the full output is, or why there is none). */
  note: string;
}

/** One call's fixed facts (what ran, where, since when) and the details every result of it starts from. */
export class CallRecord {
  readonly started = performance.now();
  /** How the call is confined; filled in once its sandbox is planned. */
  sandbox: BashSandboxDetails;

  constructor(
    readonly command: string,
    readonly cwd: string,
    sandbox: BashSandboxDetails,
  ) {
    this.sandbox = sandbox;
  }

  details(): BashToolDetails {
    return {
      command: this.command,
      cwd: this.cwd,
      exitCode: null,
      signal: null,
      stdout: "",
      stderr: "",
      truncated: false,
      fullOutputPath: null,
      fullOutputExpiresAt: null,
      durationMs: Math.round(performance.now() - this.started),
      sandbox: this.sandbox,
    };
  }

  /** A call that could not start: an error result with its code. */
  refusal(code: string, text: string, extra: Partial<BashToolDetails> = {}): AgentToolResult<BashToolDetails> {
    return { content: [{ type: "text", text }], details: { ...this.details(), ...extra, code }, isError: true };
  }

  /** The error a call throws when it is stopped before its command started. */
  stoppedBeforeStart(aborted: boolean): BashAbortedError {
    const what = aborted ? "Aborted" : "Not run: the harness was disposed";
    return new BashAbortedError(`${what} before the command started.`, { content: [], details: this.details(), isError: true });
  }
}

/** The result of a call whose shell ran: its output, how it ended, and what the sandbox adds. Throws when aborted or disposed. */
export function finalResult(
  call: CallRecord,
  output: FinalOutput,
  exit: ExitStatus,
  stopped: { reason: StopReason | undefined; timeoutSeconds: number | undefined; limitFor?: (shown: string) => LimitEnding | undefined },
  notesFor: (shown: string, failed: boolean) => string,
): AgentToolResult<BashToolDetails> {
  const details: BashToolDetails = {
    ...call.details(),
    exitCode: exit.code,
    signal: exit.signal,
    stdout: streamText(output.stdout, output.note),
    stderr: streamText(output.stderr, output.note),
    truncated: output.truncated,
    fullOutputPath: output.fullOutputPath,
    fullOutputExpiresAt: output.fullOutputExpiresAt,
    ...(output.fullOutputCut && { fullOutputCut: output.fullOutputCut }),
  };
  const shown = `${details.stdout}\n${details.stderr}`;
  const notes = notesFor(shown, stopped.reason !== undefined || exit.code !== 0);
  const text = (status: string | undefined): string => assemble(details.stdout, details.stderr, status) + notes;
  if (stopped.reason === "aborted" || stopped.reason === "disposed") {
    const what = stopped.reason === "aborted" ? "Aborted" : "Ended because the harness was disposed";
    const result = { content: [{ type: "text" as const, text: text("[aborted]") }], details, isError: true };
    throw new BashAbortedError(
      `${what} after ${formatSeconds(details.durationMs)}; the command and every process it started were ended.${outputSoFar(output, details)}`,
      result,
    );
  }
  if (stopped.reason === "timeout") {
    const seconds = stopped.timeoutSeconds as number;
    const status = `[timed out after ${seconds} s; the command and every process it started were ended]`;
    return { content: [{ type: "text", text: text(status) }], details: { ...details, code: BashErrorCode.TIMED_OUT, timeoutSeconds: seconds }, isError: true };
  }
  const limit = stopped.limitFor?.(shown);
  if (limit) {
    return { content: [{ type: "text", text: text(limit.status) }], details: { ...details, code: BashErrorCode.LIMIT_EXCEEDED, limitExceeded: limit.exceeded }, isError: true };
  }
  const status = exit.signal !== null ? `[ended by signal ${exit.signal}]` : exit.code !== 0 ? `[exit code ${exit.code}]` : undefined;
  if (status === undefined) return { content: [{ type: "text", text: text(undefined) }], details };
  return { content: [{ type: "text", text: text(status) }], details: { ...details, code: BashErrorCode.COMMAND_FAILED }, isError: true };
}

/** stdout, then stderr under a mark, then the status line. */
export function assemble(stdout: string, stderr: string, status: string | undefined): string {
  const parts: string[] = [];
  if (stdout.length > 0) parts.push(stdout);
  if (stderr.length > 0) parts.push(`[stderr]\n${stderr}`);
  if (status !== undefined) parts.push(status);
  return parts.length > 0 ? parts.join("\n") : "(no output)";
}

function outputSoFar(output: FinalOutput, details: BashToolDetails): string {
  if (output.stdout.totalBytes === 0 && output.stderr.totalBytes === 0) return " It wrote no output.";
  return ` Output so far:\n${assemble(details.stdout, details.stderr, undefined)}`;
}

function formatSeconds(ms: number): string {
  return `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;
}
