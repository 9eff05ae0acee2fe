import { AgentHarness, definePlugin, ErrorCode, type AgentTool, type ToolhostError, type ToolResultMessage, Type } from "@toolhost/core";
import { describe, expect, it } from "vitest";
import { textOf } from "./_helpers.js";

const schema = Type.Object({ path: Type.String(), count: Type.Optional(Type.Integer({ minimum: 1 })) });

function tool(execute: AgentTool<typeof schema>["execute"], extra: Partial<AgentTool<typeof schema>> = {}): AgentTool<typeof schema> {
  return { name: "t", label: "T", description: "a test tool", parameters: schema, execute, ...extra };
}

const ok = tool(async (_id, { path }) => ({ content: [{ type: "text", text: `ok ${path}` }], details: { path } }));

async function one(harness: AgentHarness, args: unknown, name = "t"): Promise<ToolResultMessage> {
  const [result] = await harness.executeToolCalls([{ id: "c1", name, arguments: args }]);
  if (!result) throw new Error("no result");
  return result;
}

function codeOf(result: ToolResultMessage): unknown {
  return (result.details as { code?: string }).code;
}

describe("failures become results", () => {
  it("names a missing tool and lists the available ones", async () => {
    const harness = new AgentHarness({ tools: [ok, { ...ok, name: "other" }] });
    const result = await one(harness, {}, "nope");
    expect(result.isError).toBe(true);
    expect(result.toolName).toBe("nope");
    expect(textOf(result)).toBe('Tool "nope" not found. Available tools: t, other.');
    expect(codeOf(result)).toBe(ErrorCode.TOOL_NOT_FOUND);
  });

  it("lists every invalid argument with its path, and the arguments received", async () => {
    const harness = new AgentHarness({ tools: [ok] });
    const result = await one(harness, { count: 0, extra: true });
    expect(result.isError).toBe(true);
    const text = textOf(result);
    expect(text).toContain('Invalid arguments for tool "t":');
    expect(text).toContain("  - /path: Expected required property");
    expect(text).toContain("  - /count: Expected integer to be greater or equal to 1");
    expect(text).toContain('Arguments received: {"count":0,"extra":true}');
    expect(codeOf(result)).toBe(ErrorCode.INVALID_ARGUMENTS);
  });

  it("compiles a tool's schema once and keeps using it", async () => {
    const harness = new AgentHarness({ tools: [ok] });
    for (let i = 0; i < 3; i++) expect((await one(harness, { path: "x" })).isError).toBe(false);
    expect((await one(harness, { path: 1 })).isError).toBe(true);
  });

  it("turns a throwing prepareArguments into an error with its message", async () => {
    const harness = new AgentHarness({
      tools: [{ ...ok, prepareArguments: () => {
        throw new Error("cannot repair");
      } }],
    });
    const result = await one(harness, { path: "x" });
    expect(textOf(result)).toContain('Could not prepare the arguments of "t": prepareArguments tap "toolhost:tool-prepare" threw: cannot repair');
    expect(codeOf(result)).toBe(ErrorCode.PREPARE_FAILED);
  });

  it("turns a throwing validation tap into an error with its message", async () => {
    const harness = new AgentHarness({ tools: [ok] });
    harness.hooks.validateArguments.tap("my-validator", () => {
      throw new Error("validator down");
    });
    const result = await one(harness, { path: "x" });
    expect(textOf(result)).toContain('validateArguments tap "my-validator" threw: validator down');
    expect(codeOf(result)).toBe(ErrorCode.VALIDATION_FAILED);
  });

  it("rejects a call with the problems a validation tap returns", async () => {
    const harness = new AgentHarness({ tools: [ok] });
    harness.hooks.validateArguments.tap("no-root", (args) =>
      (args as { path: string }).path === "/" ? [{ path: "/path", message: "must not be the root" }] : undefined,
    );
    expect(textOf(await one(harness, { path: "/" }))).toContain("  - /path: must not be the root");
    expect((await one(harness, { path: "/tmp" })).isError).toBe(false);
  });

  it("refuses a call a beforeToolCall tap blocks, with the reason and who blocked it", async () => {
    let ran = false;
    const harness = new AgentHarness({
      tools: [tool(async () => {
        ran = true;
        return { content: [], details: {} };
      })],
    });
    harness.hooks.beforeToolCall.tapPromise("guard", async () => ({ block: true, reason: "not today" }));
    const result = await one(harness, { path: "x" });
    expect(ran).toBe(false);
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe("Blocked by guard: not today");
    expect(result.details).toMatchObject({ code: ErrorCode.BLOCKED, blockedBy: "guard", reason: "not today" });
  });

  it("blocks the call (fails closed) when a beforeToolCall tap throws", async () => {
    let ran = false;
    const harness = new AgentHarness({
      tools: [tool(async () => {
        ran = true;
        return { content: [], details: {} };
      })],
      beforeToolCall: () => {
        throw new Error("policy file unreadable");
      },
    });
    const result = await one(harness, { path: "x" });
    expect(ran).toBe(false);
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain("policy file unreadable");
    expect(result.details).toMatchObject({ code: ErrorCode.POLICY_FAILED, blockedBy: "harness options" });
  });

  it("keeps a result the tool marked isError as it is", async () => {
    const harness = new AgentHarness({
      tools: [tool(async () => ({ content: [{ type: "text", text: "no such file" }], details: { errno: 2 }, isError: true }))],
    });
    const result = await one(harness, { path: "x" });
    expect(result).toMatchObject({ isError: true, content: [{ type: "text", text: "no such file" }], details: { errno: 2 } });
  });

  it("turns a throwing tool into an error with its message", async () => {
    const harness = new AgentHarness({
      tools: [tool(async () => {
        throw new Error("disk on fire");
      })],
    });
    const result = await one(harness, { path: "x" });
    expect(textOf(result)).toBe('Tool "t" failed: disk on fire');
    expect(codeOf(result)).toBe(ErrorCode.TOOL_FAILED);
  });

  it("turns a malformed tool result into an error instead of passing it on", async () => {
    const harness = new AgentHarness({ tools: [tool(async () => ({ text: "oops" }) as never)] });
    const result = await one(harness, { path: "x" });
    expect(result.isError).toBe(true);
    expect(codeOf(result)).toBe(ErrorCode.INVALID_RESULT);
  });

  it("withholds the result when an afterToolCall tap throws (fails closed)", async () => {
    const harness = new AgentHarness({
      tools: [tool(async () => ({ content: [{ type: "text", text: "SECRET=hunter2" }], details: { raw: "SECRET=hunter2" } }))],
    });
    harness.hooks.afterToolCall.tapPromise("redactor", async () => {
      throw new Error("redaction failed");
    });
    const result = await one(harness, { path: "x" });
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result)).not.toContain("hunter2");
    expect(textOf(result)).toContain("redaction failed");
    expect(result.details).toMatchObject({ code: ErrorCode.AFTER_HOOK_FAILED, failedTap: "redactor" });
  });

  it("gives every call of a batch a result, whatever fails", async () => {
    const harness = new AgentHarness({
      tools: [ok, { ...ok, name: "boom", execute: async () => { throw new Error("x"); } }],
    });
    const results = await harness.executeToolCalls([
      { id: "1", name: "t", arguments: { path: "a" } },
      { id: "2", name: "missing", arguments: {} },
      { id: "3", name: "boom", arguments: { path: "b" } },
      { id: "4", name: "t", arguments: "not json" },
      { id: "5", name: "t", arguments: { path: "c" } },
    ]);
    expect(results.map((r) => [r.toolCallId, r.isError])).toEqual([
      ["1", false],
      ["2", true],
      ["3", true],
      ["4", true],
      ["5", false],
    ]);
  });
});

describe("approval", () => {
  it("asks the approve hook for an `ask` decision, and runs the call when approved", async () => {
    const harness = new AgentHarness({ tools: [ok], beforeToolCall: () => ({ ask: true, reason: "touches files" }) });
    const asked: string[] = [];
    harness.hooks.approve.tapPromise("test-human", async (request) => {
      asked.push(`${request.toolCall.name}: ${request.reason} (asked by ${request.askedBy})`);
      return { approved: true };
    });
    const result = await one(harness, { path: "x" });
    expect(asked).toEqual(["t: touches files (asked by harness options)"]);
    expect(result.isError).toBe(false);
  });

  it("refuses an `ask` call when no one answers, saying no one could approve it", async () => {
    const harness = new AgentHarness({ tools: [ok], beforeToolCall: () => ({ ask: true, reason: "touches files" }) });
    const result = await one(harness, { path: "x" });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain("needs approval (touches files)");
    expect(textOf(result)).toContain("no one could approve it");
    expect(codeOf(result)).toBe(ErrorCode.NOT_APPROVED);
  });

  it("refuses an `ask` call the approver declines, with its reason, and when the approver throws", async () => {
    const harness = new AgentHarness({ tools: [ok], beforeToolCall: () => ({ ask: true, reason: "r" }) });
    let throwNext = false;
    harness.hooks.approve.tap("human", () => {
      if (throwNext) throw new Error("tty closed");
      return { approved: false, reason: "the user said no" };
    });
    expect(textOf(await one(harness, { path: "x" }))).toContain("the user said no");
    throwNext = true;
    const failed = await one(harness, { path: "x" });
    expect(failed.isError).toBe(true);
    expect(textOf(failed)).toContain("tty closed");
  });
});

describe("schemas", () => {
  it("checks Type.Unsafe string enums, and the common formats", async () => {
    const params = Type.Object({
      mode: Type.Unsafe<"fast" | "safe">({ type: "string", enum: ["fast", "safe"] }),
      url: Type.Optional(Type.String({ format: "uri" })),
    });
    const harness = new AgentHarness({
      tools: [{ name: "u", label: "U", description: "d", parameters: params, execute: async () => ({ content: [], details: {} }) }],
    });
    const run = async (args: unknown) => (await harness.executeToolCalls([{ id: "1", name: "u", arguments: args }]))[0];
    expect((await run({ mode: "fast", url: "https://example.com/x" }))?.isError).toBe(false);
    const wrongMode = await run({ mode: "reckless" });
    expect(wrongMode?.isError).toBe(true);
    expect(wrongMode && textOf(wrongMode)).toContain("/mode");
    const wrongUrl = await run({ mode: "safe", url: "not a url" });
    expect(wrongUrl && textOf(wrongUrl)).toContain("/url");
  });

  it("checks plugin options with Type.Unsafe and formats, and says what is wrong as the compiled check does", async () => {
    const seen: unknown[] = [];
    const plugin = definePlugin({
      name: "unsafe-opts",
      options: Type.Object({
        mode: Type.Unsafe<"fast" | "safe">({ type: "string", enum: ["fast", "safe"], default: "safe" }),
        url: Type.Optional(Type.String({ format: "uri" })),
      }),
      apply(_h, options) {
        seen.push(options);
      },
    });
    await new AgentHarness().use(plugin, { url: "https://example.com/x" });
    expect(seen).toEqual([{ mode: "safe", url: "https://example.com/x" }]);
    const invalid = await new AgentHarness().use(plugin, { mode: "reckless", url: "not a url" }).catch((e: unknown) => e);
    expect((invalid as ToolhostError).code).toBe(ErrorCode.INVALID_PLUGIN_OPTIONS);
    expect((invalid as ToolhostError).message).toBe(
      'Invalid options for plugin "unsafe-opts":\n  - /mode: Expected kind \'Unsafe\'\n  - /url: Expected string to match \'uri\' format\nFix them in the plugin\'s options; its schema lists what it takes.',
    );
  });
});
