import { setMaxListeners } from "node:events";
import { ErrorCode, ToolhostError } from "./errors.js";
import { checkedResult, resultCode, toolError } from "./results.js";
import type { AgentToolResult } from "./types/index.js";

/**
 * Why a call was stopped: the reason its signal is aborted with. `message` completes
 * `Tool "x" …` ("aborted", "timed out after 50 ms"); `details` go into the result.
 */
export class StopReason extends ToolhostError {
  constructor(
    code: typeof ErrorCode.ABORTED | typeof ErrorCode.TIMED_OUT,
    message: string,
    details: Record<string, unknown> = {},
    options?: { cause?: unknown },
  ) {
    super(code, message, { ...options, details });
  }

  declare readonly details: Record<string, unknown>;
}

export function abortReason(cause?: unknown): StopReason {
  return new StopReason(ErrorCode.ABORTED, "aborted", {}, { cause });
}

export function timeoutReason(timeoutMs: number): StopReason {
  return new StopReason(ErrorCode.TIMED_OUT, `timed out after ${timeoutMs} ms`, { timeoutMs });
}

/** The reason an aborted signal carries; an abort the kernel did not make is an abort. */
export function stopReasonOf(signal: AbortSignal): StopReason {
  return signal.reason instanceof StopReason ? signal.reason : abortReason(signal.reason);
}

/**
 * What a tool gave back when it was stopped: the output so far it threw (an error with a `result`,
 * as tool-bash's `BashAbortedError`), or undefined.
 */
export function partialResultOf(error: unknown): AgentToolResult | undefined {
  try {
    return error !== null && typeof error === "object" && "result" in error ? checkedResult(error.result) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The result of a stopped call: the tool's own (partial) result marked with the stop's code and a
 * last line saying so, or, when it gave none in time, the line alone.
 */
export function stoppedResult(toolName: string, reason: StopReason, partial?: AgentToolResult): AgentToolResult {
  const line = `Tool "${toolName}" ${reason.message}.`;
  if (partial === undefined) return toolError(reason.code, line, reason.details);
  if (resultCode(partial) === reason.code && partial.isError === true) return partial;
  try {
    const details = partial.details !== null && typeof partial.details === "object" ? partial.details : {};
    return {
      ...partial,
      content: [...partial.content, { type: "text", text: line }],
      details: { ...details, ...reason.details, code: reason.code },
      isError: true,
    };
  } catch {
    return toolError(reason.code, line, reason.details);
  }
}

/**
 * One batch's abort, with one listener on the caller's signal however large the batch.
 *
 * Calls without a timeout share the batch's signal; a call with a timeout gets a signal of its
 * own, so that its timeout aborts it alone; the batch keeps those and aborts them with it.
 */
export class BatchAbort {
  /** Settles with the reason when the batch is aborted; undefined when nothing can abort it. */
  readonly stopped: Promise<StopReason> | undefined;
  /** Why the batch was aborted, once it was. */
  reason: StopReason | undefined;
  readonly #shared = new AbortController();
  readonly #own = new Set<AbortController>();
  readonly #detach: (() => void) | undefined;

  constructor(signal: AbortSignal | undefined) {
    // Every running call of a large batch may listen to the shared signal.
    setMaxListeners(0, this.#shared.signal);
    if (signal === undefined) return;
    let resolveStopped!: (reason: StopReason) => void;
    this.stopped = new Promise((resolve) => {
      resolveStopped = resolve;
    });
    const abort = (): void => {
      const reason = abortReason(signal.reason);
      this.reason = reason;
      this.#shared.abort(reason);
      for (const controller of this.#own) controller.abort(reason);
      resolveStopped(reason);
    };
    if (signal.aborted) {
      abort();
      return;
    }
    signal.addEventListener("abort", abort, { once: true });
    this.#detach = () => signal.removeEventListener("abort", abort);
  }

  /** The batch's signal, shared by the calls without a timeout. */
  get signal(): AbortSignal {
    return this.#shared.signal;
  }

  /** A controller of one call's own, aborted with the batch. */
  own(): AbortController {
    const controller = new AbortController();
    if (this.reason) controller.abort(this.reason);
    else if (this.stopped) this.#own.add(controller);
    return controller;
  }

  release(controller: AbortController): void {
    this.#own.delete(controller);
  }

  detach(): void {
    this.#detach?.();
  }
}
