import { setMaxListeners } from "node:events";
import { ErrorCode, ToolhostError } from "./errors.js";
import type { AnyAgentHarness } from "./harness.js";
import { preview } from "./preview.js";
import { nameOf, resolveTool, runCall } from "./_pipeline.js";
import { redactArgs, redactResult, redactText } from "./_redact.js";
import { resultCode, toolError } from "./results.js";
import { StopReason, abortReason, stoppedResult, timeoutReason } from "./_stop.js";
import type { AgentToolResult, AnyAgentTool, ExecuteToolCallsOptions, ToolCall, ToolResultMessage } from "./types.js";

/*
 * Scheduling a batch: its calls checked and their tools resolved first, then run between barriers
 * (calls of a sequential tool, or every call in sequential mode) up to `maxConcurrency` at once;
 * abort, time-outs with a bounded grace for the tool's output so far, events, and redaction of
 * everything that leaves.
 */

type Harness = AnyAgentHarness;

/** One call of a batch, checked: its tool, or the result that ends it before it runs. */
interface Entry {
  call: ToolCall;
  tool?: AnyAgentTool;
  result?: AgentToolResult;
  /** The name events and the result message carry: the tool's, or the call's redacted when no tool has it. */
  name?: string;
}

/** Everything a batch needs to run its calls. */
interface Batch {
  harness: Harness;
  entries: Entry[];
  results: AgentToolResult[];
  abort: BatchAbort;
  timeoutMs: number | undefined;
  graceMs: number;
}

export async function runBatch(harness: Harness, calls: unknown, options: ExecuteToolCallsOptions): Promise<ToolResultMessage[]> {
  const list = listOf(calls);
  const entries = list.map(entryOf);
  const resolving = entries.map((entry) => resolveEntry(harness, entry));
  if (resolving.some((pending) => pending !== undefined)) await Promise.all(resolving);
  const batch: Batch = {
    harness,
    entries,
    results: new Array<AgentToolResult>(entries.length),
    abort: new BatchAbort(options.signal),
    timeoutMs: options.timeoutMs ?? harness.toolTimeoutMs,
    graceMs: options.abortGraceMs ?? harness.abortGraceMs,
  };
  const sequential = (options.toolExecution ?? harness.toolExecution) === "sequential";
  const isBarrier = (index: number): boolean => sequential || entries[index]?.tool?.executionMode === "sequential";
  try {
    for (let index = 0; index < entries.length; ) {
      let end = index + 1;
      if (!isBarrier(index)) while (end < entries.length && !isBarrier(end)) end += 1;
      await runPool(index, end, harness.maxConcurrency, (i) => runEntry(batch, i));
      index = end;
    }
  } finally {
    batch.abort.detach();
  }
  return entries.map((entry, i) => {
    const message = toMessage(entry.call.id, entry.name ?? entry.call.name, batch.results[i] as AgentToolResult);
    harness.emit({ type: "message_start", message });
    harness.emit({ type: "message_end", message });
    return message;
  });
}

/** The calls as an array, or one clear error before anything runs. */
function listOf(calls: unknown): unknown[] {
  let list: unknown[] | undefined;
  try {
    if (Array.isArray(calls)) list = Array.from(calls);
  } catch {
    list = undefined;
  }
  if (list === undefined) {
    throw new ToolhostError(
      ErrorCode.INVALID_BATCH,
      `executeToolCalls takes an array of tool calls ({ id, name, arguments }), but was given ${preview(calls, 200)}. Nothing was run.`,
    );
  }
  return list;
}

/** A call of the batch, read once: what is not a tool call ends as an error result. */
function entryOf(value: unknown, index: number): Entry {
  let id: unknown;
  let name: unknown;
  let args: unknown;
  let type: unknown;
  try {
    if (value !== null && typeof value === "object") ({ id, name, arguments: args, type } = value as ToolCall);
  } catch {
    // read below as not a tool call
  }
  const call: ToolCall = { id: typeof id === "string" ? id : "", name: typeof name === "string" ? name : "", arguments: args };
  if (type === "toolCall") call.type = "toolCall";
  if (typeof id === "string" && typeof name === "string" && name !== "") return { call };
  const text = `Call ${index + 1} of the batch is not a tool call: expected { id: string, name: string, arguments }, got ${preview(value, 200)}.`;
  return { call, result: toolError(ErrorCode.INVALID_CALL, text) };
}

/** Resolves an entry's tool (stage resolve), at once when the registry answers alone. */
function resolveEntry(harness: Harness, entry: Entry): Promise<void> | undefined {
  if (entry.result) return undefined;
  const found = resolveTool(harness, entry.call);
  if (found instanceof Promise) return found.then((tool) => settle(entry, tool));
  settle(entry, found);
  return undefined;
}

function settle(entry: Entry, found: AnyAgentTool | AgentToolResult): void {
  if (typeof (found as AnyAgentTool).execute === "function") entry.tool = found as AnyAgentTool;
  else entry.result = found as AgentToolResult;
}

/** Runs one call with its events: start, the result (redacted), end. */
async function runEntry(batch: Batch, index: number): Promise<void> {
  const { harness } = batch;
  const { redact } = harness.hooks;
  const entry = batch.entries[index] as Entry;
  const { call } = entry;
  const name = (entry.name = entry.tool ? call.name : redactText(redact, call.name));
  harness.emit({ type: "tool_execution_start", toolCallId: call.id, toolName: name, args: redactArgs(redact, call.arguments) });
  const started = harness.hooks.event.isUsed() ? performance.now() : 0;
  const tool = entry.tool as AnyAgentTool;
  const { abort } = batch;
  const guarded = batch.timeoutMs !== undefined || abort.stopped !== undefined;
  const result = redactResult(
    redact,
    entry.result ?? (guarded ? await runGuarded(batch, call, tool) : await runCall(harness, call, tool, abort.signal)),
  );
  batch.results[index] = result;
  harness.emit({
    type: "tool_execution_end",
    toolCallId: call.id,
    toolName: name,
    result,
    isError: result.isError === true,
    durationMs: started === 0 ? 0 : performance.now() - started,
  });
}

/**
 * Runs one call; on abort or time-out its signal is aborted and the tool gets `graceMs` to return
 * its output so far, which the caller gets marked as stopped. The kernel waits no longer.
 */
async function runGuarded(batch: Batch, call: ToolCall, tool: AnyAgentTool): Promise<AgentToolResult> {
  const { abort, timeoutMs, harness } = batch;
  if (abort.reason) return stoppedResult(nameOf(call), abort.reason);
  if (timeoutMs === undefined) {
    // Only the batch can stop it: its one promise is raced, nothing made per call.
    const running = runCall(harness, call, tool, abort.signal);
    const first = await Promise.race([running, abort.stopped as Promise<StopReason>]);
    return first instanceof StopReason ? withGrace(running, nameOf(call), first, batch.graceMs) : first;
  }
  const controller = abort.own();
  let timer: NodeJS.Timeout | undefined;
  const stopped = new Promise<StopReason>((resolve) => {
    abort.stopped?.then(resolve);
    timer = setTimeout(() => {
      const reason = timeoutReason(timeoutMs);
      controller.abort(reason);
      resolve(reason);
    }, timeoutMs);
  });
  try {
    const running = runCall(harness, call, tool, controller.signal);
    const first = await Promise.race([running, stopped]);
    return first instanceof StopReason ? await withGrace(running, nameOf(call), first, batch.graceMs) : first;
  } finally {
    clearTimeout(timer);
    abort.release(controller);
  }
}

/** The call's own result if it comes within the grace, marked as stopped; else the stop's result. */
async function withGrace(running: Promise<AgentToolResult>, name: string, reason: StopReason, graceMs: number): Promise<AgentToolResult> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(resolve, graceMs, undefined);
  });
  try {
    const result = await Promise.race([running, late]);
    if (result === undefined) return stoppedResult(name, reason);
    const code = resultCode(result);
    return code === ErrorCode.ABORTED || code === ErrorCode.TIMED_OUT ? result : stoppedResult(name, reason, result);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * One batch's abort, with one listener on the caller's signal however large the batch.
 *
 * Calls without a timeout share the batch's signal; a call with a timeout gets a signal of its
 * own, so that its timeout aborts it alone; the batch keeps those and aborts them with it.
 */
class BatchAbort {
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

/** Runs `run(i)` for i in [start, end) with at most `limit` at once. */
async function runPool(start: number, end: number, limit: number, run: (index: number) => Promise<void>): Promise<void> {
  const size = end - start;
  if (size <= limit) {
    const pending = new Array<Promise<void>>(size);
    for (let i = 0; i < size; i++) pending[i] = run(start + i);
    await Promise.all(pending);
    return;
  }
  let next = start;
  const worker = async (): Promise<void> => {
    while (next < end) await run(next++);
  };
  await Promise.all(Array.from({ length: limit }, worker));
}

function toMessage(toolCallId: string, toolName: string, result: AgentToolResult): ToolResultMessage {
  const message: ToolResultMessage = {
    role: "toolResult",
    toolCallId,
    toolName,
    content: result.content,
    details: result.details,
    isError: result.isError === true,
    timestamp: Date.now(),
  };
  if (result.usage) message.usage = result.usage;
  if (result.addedToolNames) message.addedToolNames = result.addedToolNames;
  if (result.terminate) message.terminate = true;
  return message;
}
