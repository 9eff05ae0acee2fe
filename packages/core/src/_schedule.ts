import { ErrorCode, ToolhostError } from "./errors.js";
import { preview } from "./preview.js";
import { runCall } from "./_pipeline.js";
import { nameOf, resolveTool } from "./_prepare.js";
import type { PipelineScope } from "./_scope.js";
import { redactArgs, redactResult, redactText } from "./_redact.js";
import { resultCode, toolError } from "./results.js";
import { Deadlines } from "./_deadline.js";
import { BatchAbort, StopReason, stoppedResult } from "./_stop.js";
import { isThenable } from "./_taps.js";
import type { AgentToolResult, AnyAgentTool, ExecuteToolCallsOptions, ToolCall, ToolResultMessage } from "./types/index.js";

/*
 * Scheduling a batch: its calls checked and their tools resolved first, then run between barriers
 * (calls of a sequential tool, or every call in sequential mode) up to `maxConcurrency` at once;
 * abort, time-outs with a bounded grace for the tool's output so far, events, and redaction of
 * everything that leaves.
 */

type Harness = PipelineScope;

/** One call of a batch, checked: its tool, or the result that ends it before it runs. */
interface Entry {
  call: ToolCall;
  tool?: AnyAgentTool;
  result?: AgentToolResult;
  /** The name events and the result message carry: the tool's, or the call's redacted when no tool has it. */
  name?: string;
  /** When the call started, for `durationMs`. */
  started?: number;
  /** Whether its result is in: a call still running after its grace is answered for, and its late result ignored. */
  done?: boolean;
}

/** Everything a batch needs to run its calls. */
interface Batch {
  harness: Harness;
  entries: Entry[];
  results: AgentToolResult[];
  abort: BatchAbort;
  timeoutMs: number | undefined;
  graceMs: number;
  /** The deadlines of its calls, made with the first call that has a time-out. */
  deadlines?: Deadlines;
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
      await runSegment(batch, index, end);
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

/**
 * Runs the calls of [start, end) together (up to `maxConcurrency`). When the batch is aborted,
 * its calls get the grace to return their output so far; then those still running are answered
 * for. One race for the whole segment: a race per call cost more than the rest of the pipeline.
 */
async function runSegment(batch: Batch, start: number, end: number): Promise<void> {
  const all = runPool(start, end, batch.harness.maxConcurrency, (i) => runEntry(batch, i));
  const { abort } = batch;
  if (abort.stopped === undefined) return all;
  const first = await Promise.race([all, abort.stopped]);
  if (!(first instanceof StopReason)) return;
  await settledWithin(all, batch.graceMs);
  for (let i = start; i < end; i++) {
    const entry = batch.entries[i] as Entry;
    if (entry.done) continue;
    if (entry.started === undefined) begin(batch, i);
    finish(batch, i, stoppedResult(nameOf(entry.call), first));
  }
}

/** Runs one call with its events: start, then `finish`. */
async function runEntry(batch: Batch, index: number): Promise<void> {
  const { harness, abort } = batch;
  const entry = batch.entries[index] as Entry;
  // Answered for already: its segment was stopped before a worker came to it.
  if (entry.started !== undefined) return;
  begin(batch, index);
  const { call } = entry;
  const tool = entry.tool as AnyAgentTool;
  let result = entry.result;
  if (result === undefined && abort.reason) result = stoppedResult(nameOf(call), abort.reason);
  result ??= batch.timeoutMs === undefined ? await runCall(harness, call, tool, abort.signal) : await runTimed(batch, call, tool);
  // Stopped by the batch: the result came within the grace, and says it was stopped.
  if (abort.reason && !isStopped(result)) result = stoppedResult(nameOf(call), abort.reason, result);
  finish(batch, index, result);
}

/** A call's start told: the name it carries (redacted when no tool has it) and its arguments (redacted). */
function begin(batch: Batch, index: number): void {
  const { harness } = batch;
  const { redact } = harness.hooks;
  const entry = batch.entries[index] as Entry;
  const { call } = entry;
  const name = (entry.name = entry.tool ? call.name : redactText(redact, call.name));
  // Redacting the arguments is a copy of them: made only when someone listens.
  if (!harness.hooks.event.isUsed()) {
    entry.started = 0;
    return;
  }
  harness.emit({ type: "tool_execution_start", toolCallId: call.id, toolName: name, args: redactArgs(redact, call.arguments) });
  entry.started = performance.now();
}

/** A call's result in, redacted, and its end told; nothing when the batch already answered for it. */
function finish(batch: Batch, index: number, raw: AgentToolResult): void {
  const entry = batch.entries[index] as Entry;
  if (entry.done) return;
  entry.done = true;
  const { harness } = batch;
  const result = redactResult(harness.hooks.redact, raw);
  batch.results[index] = result;
  const { started = 0 } = entry;
  harness.emit({
    type: "tool_execution_end",
    toolCallId: entry.call.id,
    toolName: entry.name ?? entry.call.name,
    result,
    isError: result.isError === true,
    durationMs: started === 0 ? 0 : performance.now() - started,
  });
}

function isStopped(result: AgentToolResult): boolean {
  const code = resultCode(result);
  return code === ErrorCode.ABORTED || code === ErrorCode.TIMED_OUT;
}

/**
 * Runs one call with a time-out: on time-out (or the batch's abort) its signal is aborted and the
 * tool gets `graceMs` to return its output so far, which the caller gets marked as stopped. The
 * kernel waits no longer. The calls that start in the same millisecond share a deadline.
 */
async function runTimed(batch: Batch, call: ToolCall, tool: AnyAgentTool): Promise<AgentToolResult> {
  const deadline = (batch.deadlines ??= new Deadlines(batch.abort, batch.timeoutMs as number)).join();
  try {
    const running = runCall(batch.harness, call, tool, deadline.signal);
    if (!isThenable(running)) return running;
    const first = await deadline.race(running);
    if (!(first instanceof StopReason)) return first;
    const result = await settledWithin(running, batch.graceMs);
    if (result === undefined) return stoppedResult(nameOf(call), first);
    return isStopped(result) ? result : stoppedResult(nameOf(call), first, result);
  } finally {
    deadline.leave();
  }
}

/** What `pending` settles with within `ms`, or undefined. */
async function settledWithin<T>(pending: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(resolve, ms, undefined);
  });
  try {
    return await Promise.race([pending, late]);
  } finally {
    clearTimeout(timer);
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
