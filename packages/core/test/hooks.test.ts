import { AgentHarness, callDigest, Type, type AgentTool, type AgentToolResult, type ToolCallContext } from "@toolhost/core";
import { describe, expect, it } from "vitest";
import { textOf } from "./_helpers.js";

// A plugin author who calls `harness.hooks.X.promise(...)` gets what the pipeline acts on: these
// tests tap each of the kernel's own hook classes, call `.promise()` directly, and run the same
// call through the pipeline, and compare.

const parameters = Type.Object({ n: Type.Number() });
const echo: AgentTool<typeof parameters> = {
  name: "echo",
  label: "Echo",
  description: "echoes n",
  parameters,
  async execute(_id, { n }) {
    return { content: [{ type: "text", text: `n=${n}` }], details: { n } };
  },
};

function contextOf(harness: AgentHarness, n: number): ToolCallContext {
  return { toolCall: { id: "c1", name: "echo", arguments: { n } }, tool: echo, args: { n }, context: harness.toolContext };
}

describe("beforeToolCall (DecisionHook)", () => {
  function harnessWithTaps(): AgentHarness {
    const harness = new AgentHarness({ tools: [echo] });
    const hooks = harness.hooks;
    // Not an answer: nothing, null, {}, and an object that is neither block nor ask nor allow.
    hooks.beforeToolCall.tap("silent", () => undefined);
    hooks.beforeToolCall.tap("empty", () => ({}) as never);
    hooks.beforeToolCall.tapPromise("null", async () => null as never);
    hooks.beforeToolCall.tap("allows", (ctx) => ((ctx.args as { n: number }).n === 1 ? { allow: true, reason: "one is fine", details: { rule: "r1" } } : undefined));
    hooks.beforeToolCall.tapAsync("asks", (ctx, _signal, done) => done(null, (ctx.args as { n: number }).n === 2 ? { ask: true, reason: "two needs a yes" } : undefined));
    hooks.beforeToolCall.tap("blocks", (ctx) => ((ctx.args as { n: number }).n >= 2 ? { block: true, reason: "too big", blockedBy: "size rule" } : undefined));
    hooks.beforeToolCall.tap("throws", (ctx) => {
      if ((ctx.args as { n: number }).n === -1) throw new Error("policy bug");
      return undefined;
    });
    return harness;
  }

  it("skips non-answers, keeps the first allow, and names who decided", async () => {
    const harness = harnessWithTaps();
    const signal = new AbortController().signal;
    expect(await harness.hooks.beforeToolCall.promise(contextOf(harness, 0), signal)).toBeUndefined();
    expect(await harness.hooks.beforeToolCall.promise(contextOf(harness, 1), signal)).toEqual({
      allow: true,
      reason: "one is fine",
      allowedBy: "allows",
      details: { rule: "r1" },
    });
    // The ask comes before the block: the first block-or-ask decides, and no later tap runs.
    expect(await harness.hooks.beforeToolCall.promise(contextOf(harness, 2), signal)).toEqual({ ask: true, reason: "two needs a yes", askedBy: "asks" });
    expect(await harness.hooks.beforeToolCall.promise(contextOf(harness, 3), signal)).toEqual({ block: true, reason: "too big", blockedBy: "size rule" });
    await expect(harness.hooks.beforeToolCall.promise(contextOf(harness, -1), signal)).rejects.toMatchObject({ tapName: "throws", hookName: "beforeToolCall" });
  });

  it("decides as the pipeline does, call for call", async () => {
    const harness = harnessWithTaps();
    const events: unknown[] = [];
    harness.subscribe((event) => {
      if (event.type === "tool_execution_decision") events.push(event);
    });
    const results = await harness.executeToolCalls([0, 1, 2, 3, -1].map((n) => ({ id: `c${n}`, name: "echo", arguments: { n } })));
    expect(results.map((result) => [result.isError, (result.details as { code?: string }).code ?? null, (result.details as { blockedBy?: string }).blockedBy ?? null])).toEqual([
      [false, null, null],
      [false, null, null],
      [true, "TOOLHOST_NOT_APPROVED", "asks"],
      [true, "TOOLHOST_BLOCKED", "size rule"],
      [true, "TOOLHOST_POLICY_FAILED", "throws"],
    ]);
    expect(textOf(results[4] as never)).toContain('beforeToolCall tap "throws" threw: policy bug');
    // One decision event per call a tap answered (the first call: no tap answered, nothing told), in completion order.
    const order = ["c1", "c2", "c3", "c-1"];
    events.sort((a, b) => order.indexOf((a as { toolCallId: string }).toolCallId) - order.indexOf((b as { toolCallId: string }).toolCallId));
    expect(events).toMatchObject([
      { toolCallId: "c1", decision: "allow", by: "allows", details: { rule: "r1" } },
      { toolCallId: "c2", decision: "ask", by: "asks", approval: { askedBy: "asks", approved: false } },
      { toolCallId: "c3", decision: "deny", by: "size rule", reason: "too big" },
      { toolCallId: "c-1", decision: "deny", by: "throws" },
    ]);
  });

  it("tells its interceptors about the call, each tap and the result", async () => {
    const harness = harnessWithTaps();
    const seen: string[] = [];
    harness.hooks.beforeToolCall.intercept({
      call: () => seen.push("call"),
      tap: (tap) => seen.push(`tap ${tap.name}`),
      result: (result) => seen.push(`result ${JSON.stringify(result)}`),
      done: () => seen.push("done"),
    });
    await harness.hooks.beforeToolCall.promise(contextOf(harness, 3), new AbortController().signal);
    expect(seen).toEqual([
      "call",
      "tap silent",
      "tap empty",
      "tap null",
      "tap allows",
      "tap asks",
      "tap blocks",
      'result {"block":true,"reason":"too big","blockedBy":"size rule"}',
      "done",
    ]);
  });
});

describe("approve (AnswerHook)", () => {
  it("the first answer wins, named after its tap, as the pipeline reads it", async () => {
    const harness = new AgentHarness({ tools: [echo], beforeToolCall: () => ({ ask: true, reason: "always ask" }) });
    harness.hooks.approve.tap("no opinion", () => undefined);
    harness.hooks.approve.tap("nothing either", () => null as never);
    harness.hooks.approve.tapPromise("the person", async (request) => ({ approved: (request.args as { n: number }).n > 0, reason: "decided by a person", via: "terminal" }));
    harness.hooks.approve.tap("never reached", () => ({ approved: true }));
    const request = { ...contextOf(harness, 5), reason: "always ask", askedBy: "harness options", digest: callDigest({ name: "echo", args: { n: 5 } }) };
    const answer = await harness.hooks.approve.promise(request, new AbortController().signal);
    expect(answer).toEqual({ approved: true, reason: "decided by a person", via: "terminal", answeredBy: "the person" });

    const [yes, no] = await harness.executeToolCalls([
      { id: "a", name: "echo", arguments: { n: 5 } },
      { id: "b", name: "echo", arguments: { n: 0 } },
    ]);
    expect(yes?.isError).toBe(false);
    expect(no?.details).toMatchObject({ code: "TOOLHOST_NOT_APPROVED", approval: { approved: false, reason: "decided by a person", answeredBy: "the person" } });
  });

  it("asks with the digest of the call's content: the same id with other arguments or access is another digest", async () => {
    const withAccess: AgentTool<typeof parameters> = { ...echo, name: "touch", access: ({ n }) => ({ writes: [`/w/${n}.txt`] }) };
    const harness = new AgentHarness({ tools: [echo, withAccess], beforeToolCall: () => ({ ask: true, reason: "always ask" }) });
    const digests: string[] = [];
    harness.hooks.approve.tap("records", (request) => {
      digests.push(request.digest);
      return { approved: false };
    });
    await harness.executeToolCalls([{ id: "call_1", name: "echo", arguments: { n: 1 } }]);
    await harness.executeToolCalls([{ id: "call_1", name: "echo", arguments: { n: 2 } }]);
    await harness.executeToolCalls([{ id: "call_1", name: "echo", arguments: { n: 1 } }]);
    await harness.executeToolCalls([{ id: "call_1", name: "touch", arguments: { n: 1 } }]);
    expect(digests).toEqual([
      callDigest({ name: "echo", args: { n: 1 } }),
      callDigest({ name: "echo", args: { n: 2 } }),
      callDigest({ name: "echo", args: { n: 1 } }),
      callDigest({ name: "touch", args: { n: 1 }, access: { writes: ["/w/1.txt"] } }),
    ]);
    expect(new Set(digests).size).toBe(3);
    expect(digests[0]).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it("gives a stand-in the approval in its execution context", async () => {
    const harness = new AgentHarness({ tools: [echo], beforeToolCall: () => ({ ask: true, reason: "always ask" }) });
    harness.hooks.approve.tap("yes", () => ({ approved: true, scope: "once" }));
    const seen: unknown[] = [];
    harness.hooks.executeToolCall.tap("stand-in", (ctx) => {
      seen.push(ctx.execution.approval);
      ctx.execution.onUpdate({ content: [{ type: "text", text: "halfway" }] });
      return { content: [{ type: "text", text: "stood in" }], details: {} };
    });
    const updates: string[] = [];
    harness.subscribe((event) => {
      if (event.type === "tool_execution_update") updates.push(textOf(event.partialResult as never));
    });
    const [result] = await harness.executeToolCalls([{ id: "a", name: "echo", arguments: { n: 1 } }]);
    expect(textOf(result as never)).toBe("stood in");
    expect(seen).toEqual([{ askedBy: "harness options", reason: "always ask", approved: true, answeredBy: "yes", answer: { approved: true, scope: "once" } }]);
    expect(updates).toEqual(["halfway"]);
  });

  it("gives a stand-in the answer that let the call through: an allow, or the approved ask", async () => {
    const harness = new AgentHarness({ tools: [echo] });
    harness.hooks.beforeToolCall.tap("rules", (ctx) =>
      (ctx.args as { n: number }).n > 0 ? { allow: true, details: { rule: "positive" } } : { ask: true, reason: "zero" },
    );
    harness.hooks.approve.tap("yes", () => ({ approved: true }));
    const seen: unknown[] = [];
    harness.hooks.executeToolCall.tap("stand-in", (ctx) => {
      seen.push(ctx.execution.decision);
      return { content: [{ type: "text", text: "stood in" }], details: {} };
    });
    await harness.executeToolCalls([
      { id: "a", name: "echo", arguments: { n: 1 } },
      { id: "b", name: "echo", arguments: { n: 0 } },
    ]);
    expect(seen).toEqual([
      { allow: true, allowedBy: "rules", details: { rule: "positive" } },
      { ask: true, askedBy: "rules", reason: "zero" },
    ]);
    const bare = new AgentHarness({ tools: [echo] });
    bare.hooks.executeToolCall.tap("stand-in", (ctx) => {
      seen.push(ctx.execution.decision);
      return undefined;
    });
    await bare.executeToolCalls([{ id: "c", name: "echo", arguments: { n: 1 } }]);
    expect(seen[2]).toBeUndefined();
  });
});

describe("afterToolCall (MergeHook)", () => {
  function harnessWithTaps(): AgentHarness {
    const harness = new AgentHarness({ tools: [echo] });
    harness.hooks.afterToolCall.tap("keeps", () => undefined);
    harness.hooks.afterToolCall.tap("same", (result) => result);
    harness.hooks.afterToolCall.tapPromise("details", async (result) => ({ details: { ...(result.details as object), checked: true } }));
    harness.hooks.afterToolCall.tap("terminates", (result) => ((result.details as { n: number }).n === 2 ? { terminate: true } : undefined));
    harness.hooks.afterToolCall.tap("malformed", (result) => ((result.details as { n: number }).n === 3 ? ({ content: "not an array" } as never) : undefined));
    harness.hooks.afterToolCall.tap("throws", (result) => {
      if ((result.details as { n: number }).n === 4) throw new Error("filter bug");
      return undefined;
    });
    return harness;
  }
  const resultOf = (n: number): AgentToolResult => ({ content: [{ type: "text", text: `n=${n}` }], details: { n } });

  it("merges each tap's fields, and rejects naming the tap that broke", async () => {
    const harness = harnessWithTaps();
    const signal = new AbortController().signal;
    expect(await harness.hooks.afterToolCall.promise(resultOf(1), contextOf(harness, 1), signal)).toEqual({ content: [{ type: "text", text: "n=1" }], details: { n: 1, checked: true } });
    expect(await harness.hooks.afterToolCall.promise(resultOf(2), contextOf(harness, 2), signal)).toMatchObject({ terminate: true, details: { n: 2, checked: true } });
    await expect(harness.hooks.afterToolCall.promise(resultOf(3), contextOf(harness, 3), signal)).rejects.toMatchObject({ tapName: "malformed" });
    await expect(harness.hooks.afterToolCall.promise(resultOf(4), contextOf(harness, 4), signal)).rejects.toMatchObject({ tapName: "throws" });
  });

  it("gives the pipeline the same result", async () => {
    const harness = harnessWithTaps();
    const results = await harness.executeToolCalls([1, 2, 3, 4].map((n) => ({ id: `c${n}`, name: "echo", arguments: { n } })));
    const signal = new AbortController().signal;
    expect(results[0]?.details).toEqual(await harness.hooks.afterToolCall.promise(resultOf(1), contextOf(harness, 1), signal).then((r) => r.details));
    expect(results[1]?.terminate).toBe(true);
    expect(results[2]?.details).toMatchObject({ code: "TOOLHOST_AFTER_HOOK_FAILED", failedTap: "malformed" });
    expect(results[3]?.details).toMatchObject({ code: "TOOLHOST_AFTER_HOOK_FAILED", failedTap: "throws" });
  });
});

describe("ToolExecution", () => {
  it("lets a running call ask the authorize stage about more, and hands on the carrier", async () => {
    const seen: unknown[] = [];
    const tool: AgentTool<typeof parameters> = {
      ...echo,
      async execute(_id, _params, _signal, _onUpdate, _context, execution) {
        const allowed = await execution?.authorize({ network: [{ url: "https://ok.example/" }] });
        const denied = await execution?.authorize({ network: [{ url: "https://evil.example/" }] });
        seen.push(allowed, denied, execution?.carrier());
        return { content: [{ type: "text", text: "done" }], details: {} };
      },
    };
    const harness = new AgentHarness({ tools: [tool] });
    harness.hooks.beforeToolCall.tap("net", (ctx) => (ctx.access?.network?.some((each) => each.url.includes("evil")) ? { block: true, reason: "not that host" } : undefined));
    harness.hooks.propagate.tap("trace", (carrier, ctx) => {
      carrier.traceparent = `00-${"1".repeat(32)}-${ctx.toolCall.id.padStart(16, "0")}-01`;
    });
    await harness.executeToolCalls([{ id: "call7", name: "echo", arguments: { n: 1 } }]);
    expect(seen[0]).toEqual({ allowed: true });
    expect(seen[1]).toMatchObject({ allowed: false, code: "TOOLHOST_BLOCKED" });
    expect((seen[1] as { reason: string }).reason).toContain("not that host");
    expect(seen[2]).toEqual({ traceparent: `00-${"1".repeat(32)}-${"call7".padStart(16, "0")}-01` });
  });
});
