import { AgentHarness, ErrorCode, type AgentTool, type ToolCall, Type } from "@toolhost/core";
import { describe, expect, it } from "vitest";

// Thousands of generated calls, as an attacker (or a confused model, or a JSON-RPC client) would
// send them, with a fixed seed so that a failure can be replayed. The invariants: the batch never
// rejects; every call gets exactly one result, in call order, with a content array of text and
// image blocks; whatever the kernel writes itself is bounded in size and can be serialized.

const SEED = 0x5eed_2026;
const BATCHES = 60;
const CALLS_PER_BATCH = 60;

/** mulberry32: a small, fixed, seedable generator. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Rand = () => number;
const pick = <T>(rand: Rand, items: readonly T[]): T => items[Math.floor(rand() * items.length)] as T;

function deep(levels: number, leaf: unknown, asObject: boolean): unknown {
  let value = leaf;
  for (let i = 0; i < levels; i++) value = asObject ? { a: value } : [value];
  return value;
}

function throwingProxy(target: object = {}): unknown {
  const fail = () => {
    throw new Error("trap");
  };
  return new Proxy(target, { get: fail, has: fail, ownKeys: fail, getOwnPropertyDescriptor: fail, getPrototypeOf: fail });
}

/** One nasty value: the shapes that broke or could break the kernel. */
function value(rand: Rand, depth = 0): unknown {
  const kinds: Array<() => unknown> = [
    () => deep(5_000 + Math.floor(rand() * 1_000), 1, rand() < 0.5),
    () => ({ toString: 1, a: deep(5_000, 0, false) }),
    () => ({ toString: () => { throw new Error("toString trap"); }, valueOf: 1 }),
    () => BigInt(Math.floor(rand() * 1e9)) * 10n ** 30n,
    () => Object.assign(Object.create(null) as object, { n: 1, s: "no prototype" }),
    () => throwingProxy(),
    () => throwingProxy([1, 2, 3]),
    () => {
      const cycle: Record<string, unknown> = { n: 1 };
      cycle.self = cycle;
      return cycle;
    },
    () => Object.defineProperty({}, "n", { enumerable: true, get: () => { throw new Error("getter"); } }),
    () => "x".repeat(Math.floor(rand() * 200_000)),
    () => Symbol("sym"),
    () => () => 1,
    () => new Date(Number.NaN),
    () => new Uint8Array(16),
    () => [Number.NaN, -0, Number.POSITIVE_INFINITY, undefined, null],
    () => JSON.parse('{"__proto__": {"polluted": true}, "n": 2}') as unknown,
    () => ({ n: Math.floor(rand() * 100) }),
    () => ({ n: "12" }),
    () => null,
    () => undefined,
    () => (depth < 3 ? { n: 1, nested: value(rand, depth + 1), list: [value(rand, depth + 1)] } : 1),
  ];
  return pick(rand, kinds)();
}

/** One element of a calls array, with the id its result must carry. */
function element(rand: Rand, index: number): { call: unknown; id: string } {
  const id = `c${index}`;
  const name = pick(rand, ["strict", "any", "echo", "throws", "weird", "access", "missing", "x".repeat(100_000)]);
  const roll = rand();
  if (roll < 0.05) return { call: null, id: "" };
  if (roll < 0.08) return { call: pick(rand, [undefined, 5, "call", [1, 2], true]), id: "" };
  if (roll < 0.11) return { call: throwingProxy(), id: "" };
  if (roll < 0.14) return { call: { id: 5n, name, arguments: {} }, id: "" };
  if (roll < 0.17) return { call: { id, name: pick(rand, [null, 5, "", {}]), arguments: {} }, id };
  if (roll < 0.2) return { call: Object.defineProperty({ id, name }, "arguments", { enumerable: true, get: () => { throw new Error("args getter"); } }), id };
  return { call: { type: "toolCall", id, name, arguments: value(rand) }, id };
}

function tools(rand: Rand): AgentTool[] {
  const weirdResults = [null, 5, {}, { content: null }, { content: [null] }, { content: [{ type: "text", text: 5 }] }, throwingProxy(), { content: [{ type: "text", text: "ok" }], details: deep(5_000, 1, false) }];
  const weirdThrows = [null, undefined, "a string", 42n, throwingProxy(), Object.create(null), { message: throwingProxy() }, new Error("x".repeat(100_000))];
  const base = { label: "t", description: "fuzzed" };
  return [
    { ...base, name: "strict", parameters: Type.Object({ n: Type.Number() }), execute: async (_id, args) => ({ content: [{ type: "text", text: "ok" }], details: args }) },
    { ...base, name: "any", parameters: Type.Any(), execute: async () => ({ content: [{ type: "text", text: "any" }], details: {} }) },
    { ...base, name: "echo", parameters: Type.Any(), execute: async (_id, args) => ({ content: [{ type: "text", text: "echo" }], details: { args } }) },
    { ...base, name: "throws", parameters: Type.Any(), execute: async () => { throw pick(rand, weirdThrows); } },
    { ...base, name: "weird", parameters: Type.Any(), execute: async () => pick(rand, weirdResults) as never },
    {
      ...base,
      name: "access",
      parameters: Type.Any(),
      access: () => { if (rand() < 0.5) throw pick(rand, weirdThrows); return { reads: ["/tmp/x"] }; },
      execute: async () => ({ content: [{ type: "text", text: "read" }], details: {} }),
    },
  ];
}

function harnessFor(rand: Rand, batch: number): AgentHarness {
  const harness = new AgentHarness({ tools: tools(rand), abortGraceMs: 10 });
  const answers = [undefined, null, 5, {}, { block: "yes" }, { ask: true }, { block: true, reason: "fuzz says no" }, throwingProxy()];
  harness.hooks.beforeToolCall.tap("fuzz-policy", () => pick(rand, answers) as never);
  harness.hooks.approve.tap("fuzz-human", () => pick(rand, [undefined, { approved: true }, { approved: false }, null]) as never);
  const fields = [undefined, null, 5, {}, { content: null }, { details: deep(3_000, 1, true) }, { content: [{ type: "text", text: "after" }] }];
  harness.hooks.afterToolCall.tap("fuzz-after", () => pick(rand, fields) as never);
  if (batch % 2 === 0) harness.hooks.redact.tap("fuzz-redact", (text) => text.replaceAll("secret", "[x]"));
  harness.subscribe(() => {});
  return harness;
}

describe("fuzzing executeToolCalls", () => {
  it(`gives each of ${BATCHES * CALLS_PER_BATCH} generated calls exactly one well-formed result, in order (seed ${SEED})`, async () => {
    const rand = random(SEED);
    for (let batch = 0; batch < BATCHES; batch++) {
      const harness = harnessFor(rand, batch);
      const generated = Array.from({ length: CALLS_PER_BATCH }, (_, i) => element(rand, batch * CALLS_PER_BATCH + i));
      const results = await harness.executeToolCalls(generated.map((g) => g.call) as ToolCall[]);
      expect(results).toHaveLength(generated.length);
      results.forEach((result, i) => {
        const where = `batch ${batch}, call ${i}`;
        expect(result.toolCallId, where).toBe(generated[i]?.id);
        expect(Array.isArray(result.content), where).toBe(true);
        for (const block of result.content) expect(["text", "image"], where).toContain(block.type);
        expect(typeof result.isError, where).toBe("boolean");
        const code = (result.details as { code?: unknown } | null)?.code;
        if (typeof code === "string" && code.startsWith("TOOLHOST_") && code !== ErrorCode.AFTER_HOOK_FAILED) {
          const text = result.content.map((block) => (block.type === "text" ? block.text : "")).join("");
          expect(text.length, where).toBeLessThan(20_000);
          expect(JSON.stringify(result.details).length, where).toBeLessThan(1_000_000);
        }
      });
    }
  }, 120_000);

  it("refuses a batch that is not an array with one clear error, before anything runs", async () => {
    let ran = 0;
    const harness = new AgentHarness({
      tools: [{ name: "t", label: "t", description: "d", parameters: Type.Any(), execute: async () => { ran += 1; return { content: [], details: {} }; } }],
    });
    for (const batch of [null, undefined, 5, "calls", { id: "1", name: "t", arguments: {} }, throwingProxy()]) {
      const error = await harness.executeToolCalls(batch as never).catch((e: unknown) => e);
      expect((error as { code?: string }).code).toBe(ErrorCode.INVALID_BATCH);
      expect((error as Error).message).toMatch(/^executeToolCalls takes an array of tool calls/);
      expect((error as Error).message.length).toBeLessThan(1_000);
    }
    expect(ran).toBe(0);
  });

  it("keeps the results of calls that ran when a later call's arguments are 5,000 levels deep", async () => {
    const ran: string[] = [];
    const harness = new AgentHarness({
      tools: [{ name: "t", label: "t", description: "d", parameters: Type.Object({ tag: Type.String() }), execute: async (_id, { tag }) => {
        ran.push(tag);
        return { content: [{ type: "text", text: `ran ${tag}` }], details: {} };
      } }],
    });
    const results = await harness.executeToolCalls([
      { id: "1", name: "t", arguments: { tag: "a" } },
      { id: "2", name: "t", arguments: deep(5_000, 1, false) },
      { id: "3", name: "t", arguments: { toString: 1, a: deep(5_000, 1, false) } },
      { id: "4", name: "t", arguments: { tag: 10n } },
      null as never,
    ]);
    expect(ran).toEqual(["a"]);
    expect(results.map((r) => [r.toolCallId, (r.details as { code?: string }).code])).toEqual([
      ["1", undefined],
      ["2", ErrorCode.INVALID_ARGUMENTS],
      ["3", ErrorCode.INVALID_ARGUMENTS],
      ["4", ErrorCode.INVALID_ARGUMENTS],
      ["", ErrorCode.INVALID_CALL],
    ]);
    expect(results[1]?.content[0]).toMatchObject({ type: "text" });
    expect(JSON.stringify(results).length).toBeLessThan(100_000);
  });
});
