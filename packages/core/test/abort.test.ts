import { AgentHarness, ErrorCode, type AgentTool, Type } from "@toolhost/core";
import { describe, expect, it } from "vitest";
import { deferred, recordEvents, textOf } from "./_helpers.js";

const schema = Type.Object({ tag: Type.String() });

/** A tool that starts, tells the test, and then never settles unless its signal aborts (and maybe not even then). */
function hangingTool(options: { name?: string; honorsAbort: boolean; executionMode?: "sequential" }) {
  const started: string[] = [];
  const signals: AbortSignal[] = [];
  const firstStart = deferred();
  const tool: AgentTool<typeof schema> = {
    name: options.name ?? "hang",
    label: "Hang",
    description: "waits forever",
    parameters: schema,
    ...(options.executionMode ? { executionMode: options.executionMode } : {}),
    execute(_id, { tag }, signal) {
      started.push(tag);
      signals.push(signal);
      firstStart.resolve();
      return new Promise((_resolve, reject) => {
        if (options.honorsAbort) signal.addEventListener("abort", () => reject(new Error("stopped")), { once: true });
      });
    },
  };
  return { tool, started, signals, firstStart: firstStart.promise };
}

describe("abort and timeout", () => {
  it("ends every unfinished call of a batch with an aborted result and aborts each tool's signal", async () => {
    const { tool, started, signals, firstStart } = hangingTool({ honorsAbort: true });
    const controller = new AbortController();
    const harness = new AgentHarness({ tools: [tool] });
    const pending = harness.executeToolCalls(
      [
        { id: "1", name: "hang", arguments: { tag: "a" } },
        { id: "2", name: "hang", arguments: { tag: "b" } },
      ],
      { signal: controller.signal },
    );
    await firstStart;
    controller.abort();
    const results = await pending;
    expect(results.map((r) => [r.isError, textOf(r)])).toEqual([
      [true, 'Tool "hang" aborted.'],
      [true, 'Tool "hang" aborted.'],
    ]);
    expect(results.every((r) => (r.details as { code: string }).code === ErrorCode.ABORTED)).toBe(true);
    expect(started).toEqual(["a", "b"]);
    expect(signals.every((signal) => signal.aborted)).toBe(true);
  });

  it("returns without waiting for a tool that ignores its signal", async () => {
    const { tool, signals, firstStart } = hangingTool({ honorsAbort: false });
    const controller = new AbortController();
    const harness = new AgentHarness({ tools: [tool] });
    const pending = harness.executeToolCalls([{ id: "1", name: "hang", arguments: { tag: "a" } }], {
      signal: controller.signal,
    });
    await firstStart;
    controller.abort();
    const [result] = await pending;
    expect(result && textOf(result)).toBe('Tool "hang" aborted.');
    expect(signals[0]?.aborted).toBe(true);
  });

  it("aborts mid-batch: calls waiting behind a barrier never start and still get a result", async () => {
    const { tool, started, firstStart } = hangingTool({ honorsAbort: true });
    const log: string[] = [];
    const later: AgentTool<typeof schema> = {
      name: "later",
      label: "Later",
      description: "records",
      parameters: schema,
      executionMode: "sequential",
      async execute(_id, { tag }) {
        log.push(tag);
        return { content: [], details: {} };
      },
    };
    const controller = new AbortController();
    const harness = new AgentHarness({ tools: [tool, later] });
    const { names } = recordEvents(harness);
    const pending = harness.executeToolCalls(
      [
        { id: "1", name: "hang", arguments: { tag: "a" } },
        { id: "2", name: "later", arguments: { tag: "b" } },
        { id: "3", name: "later", arguments: { tag: "c" } },
      ],
      { signal: controller.signal },
    );
    await firstStart;
    controller.abort();
    const results = await pending;
    expect(started).toEqual(["a"]);
    expect(log).toEqual([]);
    expect(results.map((r) => r.isError)).toEqual([true, true, true]);
    expect(results.map((r) => r.toolCallId)).toEqual(["1", "2", "3"]);
    expect(names().filter((n) => n.startsWith("message_end"))).toEqual(["message_end:1", "message_end:2", "message_end:3"]);
  });

  it("gives aborted results without running anything when the signal is already aborted", async () => {
    const { tool, started } = hangingTool({ honorsAbort: true });
    const harness = new AgentHarness({ tools: [tool] });
    const results = await harness.executeToolCalls([{ id: "1", name: "hang", arguments: { tag: "a" } }], {
      signal: AbortSignal.abort(),
    });
    expect(started).toEqual([]);
    expect(results[0]?.isError).toBe(true);
    expect((results[0]?.details as { code: string }).code).toBe(ErrorCode.ABORTED);
  });

  it("times a call out after toolTimeoutMs with its signal aborted, and lets the other calls finish", async () => {
    const { tool, signals } = hangingTool({ honorsAbort: false });
    const quick: AgentTool<typeof schema> = {
      name: "quick",
      label: "Quick",
      description: "returns",
      parameters: schema,
      async execute(_id, { tag }) {
        return { content: [{ type: "text", text: `ok ${tag}` }], details: {} };
      },
    };
    const harness = new AgentHarness({ tools: [tool, quick], toolTimeoutMs: 50 });
    const results = await harness.executeToolCalls([
      { id: "1", name: "hang", arguments: { tag: "a" } },
      { id: "2", name: "quick", arguments: { tag: "b" } },
    ]);
    expect(results[0] && textOf(results[0])).toBe('Tool "hang" timed out after 50 ms.');
    expect(results[0]?.details).toMatchObject({ code: ErrorCode.TIMED_OUT, timeoutMs: 50 });
    expect(signals[0]?.aborted).toBe(true);
    expect(results[1] && textOf(results[1])).toBe("ok b");
  });

  it("takes a per-batch timeout that overrides the harness's", async () => {
    const { tool } = hangingTool({ honorsAbort: true });
    const harness = new AgentHarness({ tools: [tool], toolTimeoutMs: 60_000 });
    const [result] = await harness.executeToolCalls([{ id: "1", name: "hang", arguments: { tag: "a" } }], { timeoutMs: 20 });
    expect(result && textOf(result)).toBe('Tool "hang" timed out after 20 ms.');
  });

  it("aborts a call waiting for approval", async () => {
    const { tool, started } = hangingTool({ honorsAbort: true });
    const controller = new AbortController();
    const asked = deferred();
    const harness = new AgentHarness({ tools: [tool], beforeToolCall: () => ({ ask: true, reason: "r" }) });
    harness.hooks.approve.tapPromise("slow-human", () => {
      asked.resolve();
      return new Promise(() => {});
    });
    const pending = harness.executeToolCalls([{ id: "1", name: "hang", arguments: { tag: "a" } }], {
      signal: controller.signal,
    });
    await asked.promise;
    controller.abort();
    const [result] = await pending;
    expect((result?.details as { code: string }).code).toBe(ErrorCode.ABORTED);
    expect(started).toEqual([]);
  });

  it("ignores updates a tool sends after its call was aborted", async () => {
    let late: (() => void) | undefined;
    const started = deferred();
    const tool: AgentTool<typeof schema> = {
      name: "chatty",
      label: "Chatty",
      description: "updates late",
      parameters: schema,
      execute(_id, _args, _signal, onUpdate) {
        late = () => onUpdate({ content: [{ type: "text", text: "late" }] });
        started.resolve();
        return new Promise(() => {});
      },
    };
    const controller = new AbortController();
    const harness = new AgentHarness({ tools: [tool] });
    const { names } = recordEvents(harness);
    const pending = harness.executeToolCalls([{ id: "1", name: "chatty", arguments: { tag: "a" } }], { signal: controller.signal });
    await started.promise;
    controller.abort();
    await pending;
    late?.();
    expect(names().some((n) => n.startsWith("tool_execution_update"))).toBe(false);
  });
});

describe("large batches", () => {
  it("lets every call of a large batch listen to its signal without a listener-leak warning, and aborts them all", async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`);
    process.on("warning", onWarning);
    let started = 0;
    const allStarted = deferred();
    const listening: AgentTool<typeof schema> = {
      name: "listen",
      label: "Listen",
      description: "waits for its signal",
      parameters: schema,
      execute(_id, _args, signal) {
        started += 1;
        if (started === 50) allStarted.resolve();
        return new Promise((_r, reject) => signal.addEventListener("abort", () => reject(new Error("stop")), { once: true }));
      },
    };
    const controller = new AbortController();
    const harness = new AgentHarness({ tools: [listening] });
    const pending = harness.executeToolCalls(
      Array.from({ length: 50 }, (_, i) => ({ id: String(i), name: "listen", arguments: { tag: String(i) } })),
      { signal: controller.signal },
    );
    await allStarted.promise;
    controller.abort();
    const results = await pending;
    await new Promise((r) => setImmediate(r));
    process.off("warning", onWarning);
    expect(results.every((r) => (r.details as { code: string }).code === ErrorCode.ABORTED)).toBe(true);
    expect(warnings.filter((w) => w.includes("MaxListeners"))).toEqual([]);
  });
});
