// The AI SDK adapter's cost per call: generateText driven by the SDK's own mock model, whose one
// answer calls a no-op tool CALLS times, with the tool handed to the SDK three ways: as a plain AI
// SDK tool (the floor: what the SDK costs on its own), through toolhostTools of a harness with no
// policy (the adapter and the kernel's pipeline), and through toolhostTools with hooks-policy (what
// a user of the policy pays: needsApproval asks it, and so does the call). Prints µs per call, CPU
// time (user + system), and the ratio to the floor. Target: toolhostTools of the bare harness ≤ 1.2×.
import { realpathSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { cpuPerCall } from "../_cpu.mjs";

const CALLS = 200;
const ROUNDS = 50;
const REPEATS = 5;
const TARGET = 1.2;

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const pkg = (name) => realpathSync(join(root, "packages", name));
const mod = (path) => import(pathToFileURL(path).href);
const aiDir = realpathSync(join(pkg("ai-sdk"), "node_modules", "ai"));
const { generateText, jsonSchema, tool } = await mod(join(aiDir, "dist", "index.mjs"));
const { MockLanguageModelV3 } = await mod(join(aiDir, "dist", "test", "index.mjs"));
const { toolhostTools } = await mod(join(pkg("ai-sdk"), "dist", "index.js"));
const { AgentHarness, Type } = await mod(join(pkg("core"), "dist", "index.js"));
const { default: policyPlugin } = await mod(join(pkg("hooks-policy"), "dist", "index.js"));

const parameters = Type.Object({ n: Type.Number() });
const output = (n) => ({ content: [{ type: "text", text: "ok" }], details: { n } });
const noop = { name: "noop", label: "No-op", description: "does nothing", parameters, executionMode: "parallel", async execute(_id, { n }) { return output(n); } };

const plain = { noop: tool({ description: "does nothing", inputSchema: jsonSchema(JSON.parse(JSON.stringify(parameters))), execute: async ({ n }) => output(n) }) };
const bare = new AgentHarness({ tools: [noop] });
const viaToolhost = toolhostTools(bare);
const withPolicy = new AgentHarness({ tools: [noop] });
await withPolicy.use(policyPlugin, { default: "allow", rules: [{ tool: "noop", args: { n: "-*" }, decision: "deny" }] });
const viaPolicy = toolhostTools(withPolicy);

const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
const answer = {
  content: Array.from({ length: CALLS }, (_, i) => ({ type: "tool-call", toolCallId: `c${i}`, toolName: "noop", input: JSON.stringify({ n: i }) })),
  finishReason: { unified: "tool-calls", raw: "tool_calls" },
  usage,
  warnings: [],
};
const model = new MockLanguageModelV3({ doGenerate: async () => answer });

const run = (tools) => async () => {
  const result = await generateText({ model, tools, prompt: "go" });
  if (result.toolResults.length !== CALLS) throw new Error(`${result.toolResults.length} results of ${CALLS}: ${JSON.stringify(result.content.find((part) => part.type === "tool-error"))}`);
  model.doGenerateCalls.length = 0;
};

const cases = [
  { what: "plain AI SDK tool (floor)", run: run(plain) },
  { what: "toolhostTools, no policy", run: run(viaToolhost), target: TARGET },
  { what: "toolhostTools, hooks-policy", run: run(viaPolicy) },
];

const measure = (fn) => cpuPerCall(fn, { calls: CALLS, rounds: ROUNDS });

for (let i = 0; i < 5; i++) for (const each of cases) await each.run();
// Interleaved, so that machine noise hits all alike; the middle of REPEATS medians.
const runs = cases.map(() => []);
for (let i = 0; i < REPEATS; i++) for (const [k, each] of cases.entries()) runs[k].push(await measure(each.run));
const us = runs.map((r) => r.sort((a, b) => a - b)[Math.floor(REPEATS / 2)]);
console.log(`generateText, ${CALLS} tool calls in one answer, CPU time, median of ${ROUNDS} rounds × ${REPEATS}, node ${process.version}`);
console.table(cases.map((each, k) => ({ what: each.what, "µs/call": us[k].toFixed(2), "× floor": (us[k] / us[0]).toFixed(2) })));
for (const [k, each] of cases.entries()) {
  if (each.target === undefined) continue;
  const ratio = us[k] / us[0];
  console.log(`${each.what}: ${ratio.toFixed(2)}× the plain tool; target ≤ ${each.target}×: ${ratio <= each.target ? "met" : "NOT met"}`);
}
await bare.dispose();
await withPolicy.dispose();
