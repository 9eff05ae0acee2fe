import { AgentHarness, ErrorCode, type AgentTool, Type } from "@toolhost/core";
import { describe, expect, it } from "vitest";
import { deferred, recordEvents, textOf } from "./_helpers.js";

// A stopped call (aborted, timed out) gets a bounded grace to return its output so far.

const schema = Type.Object({ tag: Type.String() });

/** Starts, then on abort returns what it "printed" after `delayMs` (or never, with `ignores`). */
function partialTool(options: { delayMs?: number; ignores?: boolean } = {}) {
  const started = deferred();
  let count = 0;
  const tool: AgentTool<typeof schema> = {
    name: "partial",
    label: "Partial",
    description: "prints, then waits",
    parameters: schema,
    execute(_id, { tag }, signal) {
      count += 1;
      started.resolve();
      return new Promise((resolve) => {
        if (options.ignores) return;
        signal.addEventListener("abort", () => {
          setTimeout(() => resolve({ content: [{ type: "text", text: `printed ${tag}` }], details: { tag } }), options.delayMs ?? 0);
        });
      });
    },
  };
  return { tool, started: started.promise, count: () => count };
}

describe("the grace of a stopped call", () => {
  it("gives the caller the output a tool returns after its abort, marked aborted", async () => {
    const { tool, started } = partialTool({ delayMs: 20 });
    const harness = new AgentHarness({ tools: [tool], abortGraceMs: 30_000 });
    const controller = new AbortController();
    const pending = harness.executeToolCalls([{ id: "1", name: "partial", arguments: { tag: "a" } }], { signal: controller.signal });
    await started;
    controller.abort();
    const [result] = await pending;
    expect(textOf(result as never)).toBe('printed a\nTool "partial" aborted.');
    expect(result?.details).toEqual({ tag: "a", code: ErrorCode.ABORTED });
    expect(result?.isError).toBe(true);
  });

  it("marks the output of a timed-out call with the time-out and its limit", async () => {
    const { tool } = partialTool();
    const harness = new AgentHarness({ tools: [tool], toolTimeoutMs: 30, abortGraceMs: 30_000 });
    const [result] = await harness.executeToolCalls([{ id: "1", name: "partial", arguments: { tag: "t" } }]);
    expect(textOf(result as never)).toBe('printed t\nTool "partial" timed out after 30 ms.');
    expect(result?.details).toEqual({ tag: "t", code: ErrorCode.TIMED_OUT, timeoutMs: 30 });
  });

  it("answers without the tool when the grace ends, once per call, even for calls a full pool never started", async () => {
    const { tool, started, count } = partialTool({ ignores: true });
    const harness = new AgentHarness({ tools: [tool], abortGraceMs: 20, maxConcurrency: 1 });
    const { names } = recordEvents(harness);
    const controller = new AbortController();
    const pending = harness.executeToolCalls(
      ["1", "2", "3"].map((id) => ({ id, name: "partial", arguments: { tag: id } })),
      { signal: controller.signal },
    );
    await started;
    controller.abort();
    const results = await pending;
    expect(results.map((r) => [r.toolCallId, textOf(r), (r.details as { code: string }).code])).toEqual([
      ["1", 'Tool "partial" aborted.', ErrorCode.ABORTED],
      ["2", 'Tool "partial" aborted.', ErrorCode.ABORTED],
      ["3", 'Tool "partial" aborted.', ErrorCode.ABORTED],
    ]);
    expect(count()).toBe(1);
    const told = names();
    await new Promise((r) => setTimeout(r, 50));
    expect(names()).toEqual(told);
    for (const id of ["1", "2", "3"]) {
      expect(told.filter((n) => n === `tool_execution_start:${id}`)).toHaveLength(1);
      expect(told.filter((n) => n === `tool_execution_end:${id}`)).toHaveLength(1);
    }
  });

  it("refuses a negative grace", () => {
    expect(() => new AgentHarness({ abortGraceMs: -1 })).toThrow(/abortGraceMs must be 0 or more/);
  });
});
