import { Type } from "@toolhost/core";
import {
  AgentHarness,
  ErrorCode,
  HarnessStage,
  PLUGIN_API_VERSION,
  ToolhostError,
  definePlugin,
  isPlugin,
  type AgentTool,
  type AgentToolUpdate,
} from "@toolhost/core";
import { describe, expect, it } from "vitest";
import { recordEvents, textOf } from "./_helpers.js";

const schema = Type.Object({ n: Type.Number() });

function numberTool(log: string[] = []): AgentTool<typeof schema, { n: number }, { user: string }> {
  return {
    name: "num",
    label: "Number",
    description: "doubles n",
    parameters: schema,
    prepareArguments(args) {
      log.push(`tool.prepareArguments ${JSON.stringify(args)}`);
      const raw = args as { n: unknown };
      return { n: typeof raw.n === "string" ? Number(raw.n) : raw.n };
    },
    async execute(_id, { n }, _signal, _onUpdate, context) {
      log.push(`execute ${n} for ${context.user}`);
      return { content: [{ type: "text", text: String(n * 2) }], details: { n } };
    },
  };
}

describe("the pipeline", () => {
  it("runs the tool's prepareArguments before validation, so repaired arguments pass", async () => {
    const log: string[] = [];
    const harness = new AgentHarness({ tools: [numberTool(log)], toolContext: { user: "ada" } });
    const [result] = await harness.executeToolCalls([{ id: "1", name: "num", arguments: { n: "21" } }]);
    expect(result && textOf(result)).toBe("42");
    expect(log).toEqual(['tool.prepareArguments {"n":"21"}', "execute 21 for ada"]);
  });

  it("prepareCall runs resolve and prepare only: prepared arguments and access, or the result that ends the call", async () => {
    const log: string[] = [];
    const tool = { ...numberTool(log), access: (args: { n: number }) => ({ reads: [`/data/${args.n}`] }) };
    const harness = new AgentHarness({ tools: [tool], toolContext: { user: "ada" } });
    harness.hooks.prepareArguments.tap("plus-one", (args) => ({ n: (args as { n: number }).n + 1 }));
    const asked: string[] = [];
    harness.hooks.beforeToolCall.tap("spy", () => {
      asked.push("beforeToolCall");
      return undefined;
    });
    const events = recordEvents(harness);
    const prepared = await harness.prepareCall({ id: "1", name: "num", arguments: { n: "20" } });
    expect(prepared).toMatchObject({ ok: true, args: { n: 21 }, access: { reads: ["/data/21"] } });
    // Nobody was asked, nothing ran, nothing was emitted.
    expect(asked).toEqual([]);
    expect(log).toEqual(['tool.prepareArguments {"n":"20"}']);
    expect(events.events).toEqual([]);

    const invalid = await harness.prepareCall({ id: "2", name: "num", arguments: { n: "x" } });
    expect(invalid.ok).toBe(false);
    expect(!invalid.ok && invalid.result.details).toMatchObject({ code: ErrorCode.INVALID_ARGUMENTS });
    const missing = await harness.prepareCall({ id: "3", name: "nope", arguments: {} });
    expect(!missing.ok && missing.result.details).toMatchObject({ code: ErrorCode.TOOL_NOT_FOUND });
  });

  it("passes the harness's toolContext as execute's fifth argument and to every hook", async () => {
    const harness = new AgentHarness({ tools: [numberTool()], toolContext: { user: "grace" } });
    const seen: unknown[] = [];
    harness.hooks.beforeToolCall.tap("ctx-spy", (ctx) => {
      seen.push(ctx.context);
      return undefined;
    });
    const [result] = await harness.executeToolCalls([{ id: "1", name: "num", arguments: { n: 1 } }]);
    expect(result?.isError).toBe(false);
    expect(seen).toEqual([{ user: "grace" }]);
  });

  it("runs the stages in order, each plugin's taps in stage order, and gives each tap what the last returned", async () => {
    const log: string[] = [];
    const harness = new AgentHarness({ tools: [numberTool(log)], toolContext: { user: "u" } });
    const pluginA = definePlugin({
      name: "plugin-a",
      apply(h) {
        h.hooks.prepareArguments.tap("plugin-a", (args) => {
          log.push(`a.prepare ${JSON.stringify(args)}`);
          return { n: (args as { n: number }).n + 1 };
        });
        h.hooks.beforeToolCall.tap("plugin-a", () => {
          log.push("a.before");
          return undefined;
        });
        h.hooks.afterToolCall.tap("plugin-a", (result) => {
          log.push(`a.after ${textOf(result)}`);
          return { content: [{ type: "text", text: `${textOf(result)}!` }] };
        });
      },
    });
    const pluginB = definePlugin({
      name: "plugin-b",
      apply(h) {
        // an earlier stage runs before plugin-a's taps though it was tapped later
        h.hooks.prepareArguments.tap({ name: "plugin-b", stage: HarnessStage.DEFAULT - 10 }, (args) => {
          log.push(`b.prepare ${JSON.stringify(args)}`);
          return { n: (args as { n: number }).n * 10 };
        });
        h.hooks.validateArguments.tap("plugin-b", () => {
          log.push("b.validate");
          return undefined;
        });
        h.hooks.beforeToolCall.tap("plugin-b", () => {
          log.push("b.before");
          return undefined;
        });
        h.hooks.executeToolCall.tap("plugin-b", () => {
          log.push("b.execute (passes)");
          return undefined;
        });
        h.hooks.afterToolCall.tap("plugin-b", (result) => {
          log.push(`b.after ${textOf(result)}`);
          return { details: { seenBy: "b" } };
        });
      },
    });
    await harness.use(pluginA);
    await harness.use(pluginB);
    const [result] = await harness.executeToolCalls([{ id: "1", name: "num", arguments: { n: 1 } }]);
    expect(log).toEqual([
      'tool.prepareArguments {"n":1}',
      'b.prepare {"n":1}',
      'a.prepare {"n":10}',
      "b.validate",
      "a.before",
      "b.before",
      "b.execute (passes)",
      "execute 11 for u",
      "a.after 22",
      "b.after 22!",
    ]);
    expect(result).toMatchObject({ content: [{ type: "text", text: "22!" }], details: { seenBy: "b" }, isError: false });
  });

  it("lets an executeToolCall tap stand in for the tool (dry run)", async () => {
    const log: string[] = [];
    const harness = new AgentHarness({ tools: [numberTool(log)], toolContext: { user: "u" } });
    harness.hooks.executeToolCall.tap("dry-run", (ctx) => ({
      content: [{ type: "text", text: `would run ${ctx.tool.name} with ${JSON.stringify(ctx.args)}` }],
      details: { dryRun: true },
    }));
    const [result] = await harness.executeToolCalls([{ id: "1", name: "num", arguments: { n: 2 } }]);
    expect(result && textOf(result)).toBe('would run num with {"n":2}');
    expect(log.some((line) => line.startsWith("execute"))).toBe(false);
  });

  it("lets a resolveTool tap supply a tool the registry does not have", async () => {
    const harness = new AgentHarness({ toolContext: { user: "u" } });
    harness.hooks.resolveTool.tap("dynamic", (call) =>
      call.name === "dyn" ? { ...numberTool(), name: "dyn" } : undefined,
    );
    const [found, missing] = await harness.executeToolCalls([
      { id: "1", name: "dyn", arguments: { n: 4 } },
      { id: "2", name: "other", arguments: {} },
    ]);
    expect(found?.isError).toBe(false);
    expect(missing && textOf(missing)).toBe('Tool "other" not found. No tools are registered.');
  });

  it("turns each onUpdate into a toolUpdate hook call and a tool_execution_update event", async () => {
    const progress: AgentTool<typeof schema> = {
      name: "progress",
      label: "Progress",
      description: "counts to n",
      parameters: schema,
      async execute(_id, { n }, _signal, onUpdate) {
        for (let i = 1; i <= n; i++) onUpdate({ content: [{ type: "text", text: `${i}/${n}` }], details: { i } });
        return { content: [{ type: "text", text: "done" }], details: {} };
      },
    };
    const harness = new AgentHarness({ tools: [progress] });
    const hooked: AgentToolUpdate[] = [];
    harness.hooks.toolUpdate.tap("ui", (update) => {
      hooked.push(update);
    });
    const { events } = recordEvents(harness);
    await harness.executeToolCalls([{ id: "p1", name: "progress", arguments: { n: 3 } }]);
    const updates = events.filter((event) => event.type === "tool_execution_update");
    expect(updates.map((event) => event.type === "tool_execution_update" && event.partialResult.content[0])).toEqual([
      { type: "text", text: "1/3" },
      { type: "text", text: "2/3" },
      { type: "text", text: "3/3" },
    ]);
    expect(updates[0]).toMatchObject({ toolCallId: "p1", toolName: "progress", args: { n: 3 } });
    expect(hooked.map((update) => update.details)).toEqual([{ i: 1 }, { i: 2 }, { i: 3 }]);
  });

  it("taps the constructor's afterToolCall with the result in its context", async () => {
    const harness = new AgentHarness({
      tools: [numberTool()],
      toolContext: { user: "u" },
      afterToolCall: ({ result, isError, toolCall }) => ({
        content: [{ type: "text", text: `${toolCall.name}: ${textOf(result)} (error: ${isError})` }],
        terminate: true,
      }),
    });
    const [result] = await harness.executeToolCalls([{ id: "1", name: "num", arguments: { n: 5 } }]);
    expect(result).toMatchObject({ content: [{ type: "text", text: "num: 10 (error: false)" }], terminate: true });
  });

  it("passes usage, addedToolNames and terminate from a result to its message", async () => {
    const usage = { input: 1, output: 2, cacheRead: 0, cacheWrite: 0, totalTokens: 3, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };
    const harness = new AgentHarness({
      tools: [{
        ...numberTool(),
        execute: async () => ({ content: [], details: null, usage, addedToolNames: ["later"], terminate: true }),
      }],
    });
    const [result] = await harness.executeToolCalls([{ id: "1", name: "num", arguments: { n: 5 } }]);
    expect(result).toMatchObject({ role: "toolResult", toolCallId: "1", toolName: "num", usage, addedToolNames: ["later"], terminate: true });
  });
});

describe("tools and plugins", () => {
  it("refuses a second tool of the same name, naming both owners", async () => {
    const harness = new AgentHarness({ tools: [numberTool()] });
    const plugin = definePlugin({ name: "@acme/numbers", apply: (h) => h.registerTool(numberTool()) });
    const error = await harness.use(plugin).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ToolhostError);
    expect((error as ToolhostError).code).toBe(ErrorCode.DUPLICATE_TOOL);
    expect((error as Error).message).toBe(
      'Tool "num" is registered twice: by harness options and by plugin "@acme/numbers". Remove one of them from the config, or rename the tool.',
    );
  });

  it("refuses a tool without a valid name, execute or schema", () => {
    const harness = new AgentHarness();
    expect(() => harness.registerTool({ ...numberTool(), name: "has space" })).toThrow(/invalid name "has space"/);
    expect(() => harness.registerTool({ ...numberTool(), execute: undefined as never })).toThrow(/has no execute function/);
    expect(() => harness.registerTool({ ...numberTool(), parameters: undefined as never })).toThrow(/has no parameters schema/);
  });

  it("records who registered each tool", async () => {
    const harness = new AgentHarness();
    await harness.use(definePlugin({ name: "p1", apply: (h) => h.registerTool(numberTool()) }));
    expect(harness.toolOwner("num")).toBe('plugin "p1"');
    expect(harness.tools.map((t) => t.name)).toEqual(["num"]);
  });

  it("makes plugins with the API version, refuses unknown keys, and recognizes them", () => {
    const plugin = definePlugin({ name: "x", apply() {} });
    expect(plugin.apiVersion).toBe(PLUGIN_API_VERSION);
    expect(Object.isFrozen(plugin)).toBe(true);
    expect(isPlugin(plugin)).toBe(true);
    expect(isPlugin({ name: "x", apply() {} })).toBe(false);
    expect(() => definePlugin({ name: "x", apply() {}, aply() {} } as never)).toThrow(
      'plugin "x": unknown key "aply"; a plugin has only name, version, options, apply.',
    );
    expect(() => definePlugin({ name: "", apply() {} })).toThrow(/"name" must be a non-empty string/);
  });

  it("fills option defaults, validates options with each problem's path, and refuses another API major", async () => {
    const seen: unknown[] = [];
    const plugin = definePlugin({
      name: "opts",
      options: Type.Object(
        { timeout: Type.Number({ default: 60 }), roots: Type.Optional(Type.Array(Type.String())) },
        { additionalProperties: false },
      ),
      apply(_h, options) {
        seen.push(options);
      },
    });
    await new AgentHarness().use(plugin, {});
    expect(seen).toEqual([{ timeout: 60 }]);
    const invalid = await new AgentHarness().use(plugin, { timeout: "soon", roots: [1], extra: 1 }).catch((e: unknown) => e);
    expect((invalid as ToolhostError).code).toBe(ErrorCode.INVALID_PLUGIN_OPTIONS);
    expect((invalid as Error).message).toContain('Invalid options for plugin "opts":');
    expect((invalid as Error).message).toContain("  - /timeout: Expected number");
    expect((invalid as Error).message).toContain("  - /roots/0: Expected string");
    expect((invalid as Error).message).toContain("  - /extra: Unexpected property");

    const future = { ...plugin, apiVersion: PLUGIN_API_VERSION + 1 };
    const incompatible = await new AgentHarness().use(future).catch((e: unknown) => e);
    expect((incompatible as ToolhostError).code).toBe(ErrorCode.INCOMPATIBLE_PLUGIN);
    expect((incompatible as Error).message).toContain(`built for plugin API ${PLUGIN_API_VERSION + 1}`);
    expect((incompatible as Error).message).toContain(`speaks plugin API ${PLUGIN_API_VERSION}`);
  });

  it("passes functions in options through (code configs), as the same function", async () => {
    const seen: unknown[] = [];
    const processor = () => "processed";
    const plugin = definePlugin({
      name: "fn-opts",
      options: Type.Object({ processor: Type.Optional(Type.Any()), size: Type.Number({ default: 1 }) }),
      apply(_h, options) {
        seen.push(options);
      },
    });
    const given = { processor };
    await new AgentHarness().use(plugin, given);
    expect(seen).toEqual([{ processor, size: 1 }]);
    expect((seen[0] as { processor: unknown }).processor).toBe(processor);
    expect(given).toEqual({ processor });
  });

  it("names the plugin whose apply threw", async () => {
    const plugin = definePlugin({ name: "broken", apply() {
      throw new Error("missing binary");
    } });
    await expect(new AgentHarness().use(plugin)).rejects.toThrow('Plugin "broken" failed to start: missing binary');
  });

  it("shares services between plugins by name, refusing a second provider", async () => {
    const harness = new AgentHarness();
    await harness.use(definePlugin({ name: "provider", apply: (h) => h.provideService("clock", { now: () => 42 }) }));
    expect(harness.getService<{ now(): number }>("clock")?.now()).toBe(42);
    expect(harness.getService("nothing")).toBeUndefined();
    await expect(harness.use(definePlugin({ name: "again", apply: (h) => h.provideService("clock", {}) }))).rejects.toThrow(
      'Service "clock" is provided twice: by plugin "provider" and by plugin "again".',
    );
  });

  it("runs dispose taps once, and refuses calls after", async () => {
    const harness = new AgentHarness({ tools: [numberTool()] });
    let disposed = 0;
    harness.hooks.dispose.tapPromise("cleanup", async () => {
      disposed += 1;
    });
    await harness.dispose();
    await harness.dispose();
    expect(disposed).toBe(1);
    await expect(harness.executeToolCalls([])).rejects.toThrow(/was disposed/);
  });

  it("resolves cwd and workspace to absolute paths", () => {
    const harness = new AgentHarness({ cwd: "/tmp/project/sub", workspace: ".." });
    expect(harness.cwd).toBe("/tmp/project/sub");
    expect(harness.workspace).toBe("/tmp/project");
    expect(new AgentHarness().cwd).toBe(process.cwd());
  });
});
