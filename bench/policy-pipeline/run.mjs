// What the policy costs a call through the whole pipeline: allowed calls of a no-op tool that
// declares its command as tool-bash does, with hooks-policy applied and an event listener (so the
// decision event, whose details the plugin fills for an allowed call, is made and redacted),
// beside the same harness without the plugin (the floor), in one run, rounds interleaved. Given
// another build of the plugin (its dist/index.js) as the first argument, it runs beside this one:
// `node bench/policy-pipeline/run.mjs /tmp/old-hooks-policy/dist/index.js`.
// Time is the process's CPU time (user + system) per call, the median of the rounds.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AgentHarness, Type } from "../../packages/core/dist/index.js";
import policyPlugin from "../../packages/hooks-policy/dist/index.js";

const CALLS = 1_000;
const ROUNDS = 21;
const other = process.argv[2] ? (await import(new URL(process.argv[2], `file://${process.cwd()}/`).href)).default : undefined;

// What an agent's allowed calls look like: simple commands, pipes and lists of allowed programs.
const COMMANDS = ["ls -la src", "git status", "cat src/a.ts | wc -l", "git log --oneline -n 5", "grep -rn TODO src", "head -n 20 README.md && wc -l README.md", "git diff src/a.ts", "jq .scripts package.json"];
const RULES = [
  ...["ls", "cat", "wc", "grep", "head", "jq"].map((command) => ({ tool: "bash", command, decision: "allow" })),
  ...["git status", "git log *", "git diff *"].map((command) => ({ tool: "bash", command, decision: "allow" })),
  { tool: "bash", command: "git push *", decision: "ask" },
  { tool: "bash", command: "rm", decision: "deny" },
];

const ws = mkdtempSync(join(tmpdir(), "toolhost-bench-policy-pipeline-"));
try {
  mkdirSync(join(ws, "src"));
  for (const file of ["src/a.ts", "README.md", "package.json"]) writeFileSync(join(ws, file), "x\n");
  const tool = {
    name: "bash",
    label: "bash",
    description: "a no-op that declares its command",
    parameters: Type.Object({ command: Type.String() }),
    access: (params) => ({ commands: [{ command: params.command, cwd: ws }] }),
    async execute() {
      return { content: [{ type: "text", text: "ok" }], details: {} };
    },
  };
  const calls = Array.from({ length: CALLS }, (_, i) => ({ id: `c${i}`, name: "bash", arguments: { command: COMMANDS[i % COMMANDS.length] } }));
  const harnessWith = async (plugin) => {
    const harness = new AgentHarness({ cwd: ws, workspace: ws, tools: [tool] });
    if (plugin) await harness.use(plugin, { default: "ask", rules: RULES });
    harness.subscribe(() => {});
    return harness;
  };
  const rows = [
    { what: "no policy (floor)", harness: await harnessWith(undefined) },
    { what: "hooks-policy, this build", harness: await harnessWith(policyPlugin) },
    ...(other ? [{ what: "hooks-policy, given build", harness: await harnessWith(other) }] : []),
  ];
  const samples = rows.map(() => []);
  for (let round = 0; round < ROUNDS + 2; round++) {
    // Each round in another order, so no row always runs after the same one.
    const order = rows.map((_, i) => (i + round) % rows.length);
    for (const i of order) {
      globalThis.gc?.();
      const start = process.cpuUsage();
      const results = await rows[i].harness.executeToolCalls(calls);
      const used = process.cpuUsage(start);
      if (results.some((result) => result.isError)) throw new Error(`a call was refused in "${rows[i].what}"`);
      // The first two rounds warm the code up.
      if (round >= 2) samples[i].push((used.user + used.system) / CALLS);
    }
  }
  const medians = samples.map((list) => list.sort((a, b) => a - b)[Math.floor(list.length / 2)]);
  console.log(`${CALLS} allowed calls x ${ROUNDS} rounds through the pipeline, with an event listener; CPU µs per call (median)`);
  console.log("");
  console.log(`| ${"what".padEnd(28)} | µs/call | over the floor |`);
  console.log(`|${"-".repeat(30)}|---------|----------------|`);
  rows.forEach((row, i) => console.log(`| ${row.what.padEnd(28)} | ${medians[i].toFixed(1).padStart(7)} | ${(i === 0 ? "" : `+${(medians[i] - medians[0]).toFixed(1)}`).padStart(14)} |`));
  if (other) console.log(`\nthis build / given build, over the floor: ${((medians[1] - medians[0]) / (medians[2] - medians[0])).toFixed(2)}x`);
} finally {
  rmSync(ws, { recursive: true, force: true });
}
