import { AgentHarness, ErrorCode, type AgentEvent, type AgentTool, type AgentToolUpdate, type ToolResultMessage, Type } from "@toolhost/core";
import { describe, expect, it } from "vitest";
import { deferred, textOf } from "./_helpers.js";

// A fake secret and a real redact tap that replaces it: whatever channel a text leaves by, the raw
// secret must not be in it.
const SECRET = "AKIAIOSFODNN7EXAMPLE";
const MASK = "[REDACTED]";

function redacting(options: ConstructorParameters<typeof AgentHarness>[0] = {}): AgentHarness {
  const harness = new AgentHarness(options);
  harness.hooks.redact.tap("test-redactor", (text) => text.replaceAll(SECRET, MASK));
  return harness;
}

const schema = Type.Object({ note: Type.String() });

/** A tool that leaks its argument and the secret through every field it has: updates, text, details. */
const leaky: AgentTool<typeof schema> = {
  name: "leaky",
  label: "Leaky",
  description: "prints secrets",
  parameters: schema,
  async execute(_id, { note }, _signal, onUpdate) {
    onUpdate({ content: [{ type: "text", text: `working on ${note}: ${SECRET}` }], details: { env: { KEY: SECRET } } });
    const cyclic: Record<string, unknown> = { key: SECRET };
    cyclic.self = cyclic;
    return {
      content: [{ type: "text", text: `key=${SECRET}` }, { type: "image", data: "aGVsbG8=", mimeType: "image/png" }],
      details: { nested: [{ deep: { deeper: SECRET } }], cyclic, count: 3 },
    };
  },
};

function record(harness: AgentHarness): { events: AgentEvent[]; updates: AgentToolUpdate[] } {
  const events: AgentEvent[] = [];
  const updates: AgentToolUpdate[] = [];
  harness.subscribe((event) => events.push(event));
  harness.hooks.toolUpdate.tap("test-ui", (update) => {
    updates.push(update);
  });
  return { events, updates };
}

/** Everything a listener or caller saw, as text (cycles already cut by the redaction). */
function seen(...values: unknown[]): string {
  return JSON.stringify(values, (_key, value: unknown) => (typeof value === "bigint" ? String(value) : value));
}

describe("redaction of every outward channel", () => {
  it("redacts results, details, streamed updates and the arguments events carry", async () => {
    const harness = redacting({ tools: [leaky] });
    const { events, updates } = record(harness);
    const results = await harness.executeToolCalls([{ id: "1", name: "leaky", arguments: { note: `note ${SECRET}` } }]);
    const all = seen(results, events, updates);
    expect(all).not.toContain(SECRET);
    expect(textOf(results[0] as ToolResultMessage)).toContain(`key=${MASK}`);
    expect(results[0]?.details).toMatchObject({ nested: [{ deep: { deeper: MASK } }], cyclic: { key: MASK, self: "[circular]" }, count: 3 });
    expect(results[0]?.content[1]).toEqual({ type: "image", data: "aGVsbG8=", mimeType: "image/png" });
    expect(updates).toHaveLength(1);
    expect(events.filter((event) => event.type === "tool_execution_update")).toHaveLength(1);
    expect(events.find((event) => event.type === "tool_execution_start")).toMatchObject({ args: { note: `note ${MASK}` } });
  });

  it("redacts refusals: a block's reason and details, and a declined approval", async () => {
    const harness = redacting({ tools: [leaky] });
    harness.hooks.beforeToolCall.tap("guard", (ctx) =>
      (ctx.args as { note: string }).note === "block"
        ? { block: true, reason: `refused: ${SECRET}`, details: { policy: { subject: SECRET } } }
        : { ask: true, reason: `asks about ${SECRET}` },
    );
    harness.hooks.approve.tap("human", () => ({ approved: false, reason: `said no to ${SECRET}` }));
    const { events } = record(harness);
    const results = await harness.executeToolCalls([
      { id: "1", name: "leaky", arguments: { note: "block" } },
      { id: "2", name: "leaky", arguments: { note: "ask" } },
    ]);
    expect(results.map((result) => (result.details as { code: string }).code)).toEqual([ErrorCode.BLOCKED, ErrorCode.NOT_APPROVED]);
    expect(textOf(results[0] as ToolResultMessage)).toBe(`Blocked by guard: refused: ${MASK}`);
    expect(seen(results, events)).not.toContain(SECRET);
  });

  it("redacts errors the kernel writes: invalid arguments, a tool's thrown message, a missing tool's name", async () => {
    const thrower: AgentTool<typeof schema> = {
      ...leaky,
      name: "thrower",
      async execute() {
        throw new Error(`cannot use ${SECRET}`);
      },
    };
    const harness = redacting({ tools: [leaky, thrower] });
    const { events } = record(harness);
    const results = await harness.executeToolCalls([
      { id: "1", name: "leaky", arguments: { note: 5, token: SECRET } },
      { id: "2", name: "thrower", arguments: { note: "x" } },
      { id: "3", name: `tool_${SECRET}`, arguments: {} },
    ]);
    expect(results.map((result) => (result.details as { code: string }).code)).toEqual([
      ErrorCode.INVALID_ARGUMENTS,
      ErrorCode.TOOL_FAILED,
      ErrorCode.TOOL_NOT_FOUND,
    ]);
    expect(textOf(results[1] as ToolResultMessage)).toBe(`Tool "thrower" failed: cannot use ${MASK}`);
    expect(seen(results, events)).not.toContain(SECRET);
  });

  it("redacts the output so far of an aborted call", async () => {
    const started = deferred();
    const partial: AgentTool<typeof schema> = {
      ...leaky,
      name: "partial",
      execute(_id, _args, signal) {
        started.resolve();
        return new Promise((_resolve, reject) => {
          signal.addEventListener("abort", () => {
            const error = Object.assign(new Error("stopped"), {
              result: { content: [{ type: "text", text: `printed ${SECRET}` }], details: { stdout: SECRET } },
            });
            reject(error);
          });
        });
      },
    };
    const harness = redacting({ tools: [partial] });
    const { events } = record(harness);
    const controller = new AbortController();
    const pending = harness.executeToolCalls([{ id: "1", name: "partial", arguments: { note: "x" } }], { signal: controller.signal });
    await started.promise;
    controller.abort();
    const [result] = await pending;
    expect(result?.details).toMatchObject({ code: ErrorCode.ABORTED, stdout: MASK });
    expect(textOf(result as ToolResultMessage)).toBe(`printed ${MASK}\nTool "partial" aborted.`);
    expect(seen(result, events)).not.toContain(SECRET);
  });

  it("withholds a result and drops an update when a redact tap throws, and says which tap failed", async () => {
    const harness = new AgentHarness({ tools: [leaky] });
    harness.hooks.redact.tap("broken-redactor", (text) => {
      if (text.includes(SECRET)) throw new Error(`could not mask ${SECRET}`);
      return text;
    });
    const { events, updates } = record(harness);
    const [result] = await harness.executeToolCalls([{ id: "1", name: "leaky", arguments: { note: SECRET } }]);
    expect(result?.isError).toBe(true);
    expect(result?.details).toMatchObject({ code: ErrorCode.REDACTION_FAILED, failedTap: "broken-redactor" });
    expect(textOf(result as ToolResultMessage)).toContain("withheld");
    expect(updates).toEqual([]);
    expect(events.some((event) => event.type === "tool_execution_update")).toBe(false);
    expect(events.find((event) => event.type === "tool_execution_start")).toMatchObject({ args: "[withheld: redaction failed]" });
    expect(seen(result, events)).not.toContain(SECRET);
  });

  it("withholds when a redact tap returns something other than a string", async () => {
    const harness = new AgentHarness({ tools: [leaky] });
    harness.hooks.redact.tap("wrong-type", () => 42 as never);
    const [result] = await harness.executeToolCalls([{ id: "1", name: "leaky", arguments: { note: "x" } }]);
    expect(result?.details).toMatchObject({ code: ErrorCode.REDACTION_FAILED });
    expect(seen(result)).not.toContain(SECRET);
  });

  it("walks details deeper than its bound without passing the deep part through", async () => {
    let deep: unknown = SECRET;
    for (let i = 0; i < 5_000; i++) deep = [deep];
    const deepTool: AgentTool<typeof schema> = {
      ...leaky,
      name: "deep",
      async execute() {
        return { content: [{ type: "text", text: "ok" }], details: { deep } };
      },
    };
    const harness = redacting({ tools: [deepTool] });
    const [result] = await harness.executeToolCalls([{ id: "1", name: "deep", arguments: { note: "x" } }]);
    expect(result?.isError).toBe(false);
    expect(seen(result)).not.toContain(SECRET);
    expect(seen(result)).toContain("nested deeper than");
  });

  it("leaves everything as it is when no one taps redact", async () => {
    const harness = new AgentHarness({ tools: [leaky] });
    const [result] = await harness.executeToolCalls([{ id: "1", name: "leaky", arguments: { note: "x" } }]);
    expect(textOf(result as ToolResultMessage)).toContain(`key=${SECRET}`);
    expect((result?.details as { cyclic: { self: unknown } }).cyclic.self).toBe((result?.details as { cyclic: unknown }).cyclic);
  });
});
