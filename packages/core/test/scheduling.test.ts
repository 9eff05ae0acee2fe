import { AgentHarness } from "@toolhost/core";
import { describe, expect, it, vi } from "vitest";
import { call, recordEvents, recordingTool } from "./_helpers.js";

describe("scheduling a batch", () => {
  it("runs calls in parallel by default: every call starts before any ends", async () => {
    const log: string[] = [];
    const harness = new AgentHarness({ tools: [recordingTool("p", log)] });
    await harness.executeToolCalls([call("p", "a"), call("p", "b"), call("p", "c")]);
    expect(log.slice(0, 3).sort()).toEqual(["start a", "start b", "start c"]);
    expect(log.slice(3).sort()).toEqual(["end a", "end b", "end c"]);
  });

  it("returns results in the calls' order, whatever order they finish in", async () => {
    const log: string[] = [];
    const slow = recordingTool("slow", log, { turns: 20 });
    const fast = recordingTool("fast", log, { turns: 1 });
    const harness = new AgentHarness({ tools: [slow, fast] });
    const results = await harness.executeToolCalls([call("slow", "1"), call("fast", "2"), call("slow", "3")]);
    expect(log.indexOf("end 2")).toBeLessThan(log.indexOf("end 1"));
    expect(results.map((r) => r.toolCallId)).toEqual(["id-1", "id-2", "id-3"]);
    expect(results.map((r) => r.content[0])).toEqual([
      { type: "text", text: "done 1" },
      { type: "text", text: "done 2" },
      { type: "text", text: "done 3" },
    ]);
  });

  it("makes a sequential tool a barrier: it waits for the calls before it, runs alone, and the calls after wait for it", async () => {
    const log: string[] = [];
    const harness = new AgentHarness({
      tools: [recordingTool("p", log), recordingTool("s", log, { executionMode: "sequential" })],
    });
    await harness.executeToolCalls([call("p", "p1"), call("p", "p2"), call("s", "s1"), call("p", "p3"), call("p", "p4")]);
    const at = (entry: string) => log.indexOf(entry);
    expect(at("start s1")).toBeGreaterThan(at("end p1"));
    expect(at("start s1")).toBeGreaterThan(at("end p2"));
    expect(at("end s1")).toBe(at("start s1") + 1);
    expect(at("start p3")).toBeGreaterThan(at("end s1"));
    expect(at("start p4")).toBeGreaterThan(at("end s1"));
    // the calls between barriers still run together
    expect(at("start p2")).toBeLessThan(at("end p1"));
    expect(at("start p4")).toBeLessThan(at("end p3"));
  });

  it("keeps two sequential calls in the model's order", async () => {
    const log: string[] = [];
    const harness = new AgentHarness({ tools: [recordingTool("s", log, { executionMode: "sequential" })] });
    await harness.executeToolCalls([call("s", "1"), call("s", "2"), call("s", "3")]);
    expect(log).toEqual(["start 1", "end 1", "start 2", "end 2", "start 3", "end 3"]);
  });

  it('runs the whole batch one call at a time with toolExecution: "sequential"', async () => {
    const log: string[] = [];
    const harness = new AgentHarness({ tools: [recordingTool("p", log)], toolExecution: "sequential" });
    await harness.executeToolCalls([call("p", "1"), call("p", "2"), call("p", "3")]);
    expect(log).toEqual(["start 1", "end 1", "start 2", "end 2", "start 3", "end 3"]);
  });

  it("lets a batch override the harness's toolExecution (the agent's setting)", async () => {
    const log: string[] = [];
    const harness = new AgentHarness({ tools: [recordingTool("p", log)] });
    await harness.executeToolCalls([call("p", "1"), call("p", "2")], { toolExecution: "sequential" });
    expect(log).toEqual(["start 1", "end 1", "start 2", "end 2"]);
  });

  it("caps parallel runs at maxConcurrency", async () => {
    const log: string[] = [];
    let running = 0;
    let most = 0;
    const tool = recordingTool("p", log, { turns: 5 });
    const execute = tool.execute.bind(tool);
    tool.execute = async (...args) => {
      running += 1;
      most = Math.max(most, running);
      try {
        return await execute(...args);
      } finally {
        running -= 1;
      }
    };
    const harness = new AgentHarness({ tools: [tool], maxConcurrency: 2 });
    const results = await harness.executeToolCalls(["1", "2", "3", "4", "5"].map((tag) => call("p", tag)));
    expect(most).toBe(2);
    expect(results.every((r) => !r.isError)).toBe(true);
    expect(log.filter((entry) => entry.startsWith("start"))).toHaveLength(5);
  });

  it("refuses a maxConcurrency below 1", () => {
    expect(() => new AgentHarness({ maxConcurrency: 0 })).toThrow(/maxConcurrency must be 1 or more/);
  });
});

describe("events", () => {
  it("tells start, end in completion order, then each result message in the calls' order (parallel)", async () => {
    const log: string[] = [];
    const harness = new AgentHarness({
      tools: [recordingTool("slow", log, { turns: 10 }), recordingTool("fast", log, { turns: 1 })],
    });
    const { names, events } = recordEvents(harness);
    await harness.executeToolCalls([call("slow", "a"), call("fast", "b")]);
    expect(names()).toEqual([
      "tool_execution_start:id-a",
      "tool_execution_start:id-b",
      "tool_execution_end:id-b",
      "tool_execution_end:id-a",
      "message_start:id-a",
      "message_end:id-a",
      "message_start:id-b",
      "message_end:id-b",
    ]);
    const end = events.find((e) => e.type === "tool_execution_end");
    expect(end && "durationMs" in end && end.durationMs).toBeGreaterThanOrEqual(0);
  });

  it("tells each call's start and end before the next call's start (sequential)", async () => {
    const log: string[] = [];
    const harness = new AgentHarness({ tools: [recordingTool("p", log)], toolExecution: "sequential" });
    const { names } = recordEvents(harness);
    await harness.executeToolCalls([call("p", "a"), call("p", "b")]);
    expect(names()).toEqual([
      "tool_execution_start:id-a",
      "tool_execution_end:id-a",
      "tool_execution_start:id-b",
      "tool_execution_end:id-b",
      "message_start:id-a",
      "message_end:id-a",
      "message_start:id-b",
      "message_end:id-b",
    ]);
  });

  it("stops telling a listener after it unsubscribes, and a throwing listener breaks nothing", async () => {
    const log: string[] = [];
    const harness = new AgentHarness({ tools: [recordingTool("p", log)] });
    const seen: string[] = [];
    const stop = harness.subscribe((event) => seen.push(event.type));
    harness.subscribe(() => {
      throw new Error("listener bug");
    });
    // The warning is expected here: captured, so that it does not print as a stray line in the run.
    const warnings: string[] = [];
    const emitWarning = vi.spyOn(process, "emitWarning").mockImplementation((warning: string | Error) => {
      warnings.push(typeof warning === "string" ? warning : warning.message);
    });
    try {
      const [first] = await harness.executeToolCalls([call("p", "a")]);
      expect(first?.isError).toBe(false);
      stop();
      await harness.executeToolCalls([call("p", "b")]);
      await new Promise((r) => setImmediate(r));
    } finally {
      emitWarning.mockRestore();
    }
    expect(seen).toEqual(["tool_execution_start", "tool_execution_end", "message_start", "message_end"]);
    expect(warnings.some((w) => w.includes("listener bug"))).toBe(true);
  });
});
