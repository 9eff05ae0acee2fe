// bench/bash: the bash tool's own cost, side by side with its floor, in one run (medians, ratios).
//  1. per call (`true`): a bare spawn of the same shell, the tool unsandboxed, sandboxed with the
//     host root (today's sandbox) and with the minimal root; interleaved call by call, so that a
//     busy moment of the machine hits every kind alike;
//  2. the per-call timeline (prepare, spawn, first byte, exit, tree check, drain, result);
//  3. 100 MB of output through the tool (unsandboxed, minimal root) beside coreutils writing the
//     same bytes through one more pipe into a file (what the tool does: it keeps them in a file);
//  4. 100 MB downloaded through the sandbox's proxy beside the same download made directly, and
//     beside relays that add one more hop (Node's pipe(), the kernel's splice) (proxy.mjs);
//  5. hiding the policy's denied paths (host root): what it costs a call.
// Each measurement of time and memory of a whole run is a fresh Node process, so its peak RSS is its own.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { loadavg } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const packages = (name, file = "index.js") => pathToFileURL(join(here, `../../packages/${name}/dist/${file}`)).href;
const dist = join(here, "../../packages/tool-bash/dist/index.js");
if (!existsSync(dist)) {
  console.error(`Build the package first: ${dist} is missing (pnpm --filter @toolhost/tool-bash build).`);
  process.exit(1);
}
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
// Another checkout's build (e.g. main's, \`git worktree add --detach /tmp/bench-main main\` and built there):
// section 1 then runs in turn with this build and that one (a process each, BENCH_PAIRS times), and
// compares their minimal roots (two copies in one process would share cgroup names); BENCH_ONLY=per-call stops after section 1.
const BASELINE = process.env.BENCH_BASELINE;
const PAIRS = Number(process.env.BENCH_PAIRS ?? 2);
const CALLS = Number(process.env.BENCH_CALLS ?? 200);
const SPACED = Number(process.env.BENCH_SPACED ?? 30);
const MiB = 1024 * 1024;
const COMMAND = `yes ${"x".repeat(100)} | head -c 100M`;
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const fixed = (value, digits = 1) => value.toFixed(digits);
const load = () => loadavg().map((value) => value.toFixed(2)).join(", ");
const startLoad = load();

function node(script) {
  const out = execFileSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8", maxBuffer: 64 * MiB });
  return JSON.parse(out.trim().split("\n").pop());
}

// ---------------------------------------------------------------------------------------------
// 1 and 2: per call, and the timeline.
const perCallScript = (packages) => `
  import { spawn } from "node:child_process";
  const { createBashTool } = await import(${JSON.stringify(packages("tool-bash"))});
  const { onPhase } = await import(${JSON.stringify(packages("tool-bash", "run/_timeline.js"))});
  const marks = new Map();
  onPhase((call, phase, at) => { if (!marks.has(call)) marks.set(call, {}); marks.get(call)[phase] = at; });
  const never = new AbortController().signal;
  const bash = (await import("node:child_process")).execFileSync("bash", ["-c", "command -v bash"], { encoding: "utf8" }).trim();
  const bare = () => new Promise((resolve) => spawn(bash, ["-c", "true"], { stdio: "ignore", detached: true }).on("exit", resolve));
  // Each in a workspace of its own (the minimal root scans its writable folders for hard links).
  const { mkdtempSync } = await import("node:fs");
  const folder = () => mkdtempSync("/tmp/bench-bash-ws-");
  const tools = {
    off: createBashTool({ cwd: folder(), sandbox: "off" }),
    host: createBashTool({ cwd: folder(), sandbox: "required", root: "host" }),
    minimal: createBashTool({ cwd: folder(), sandbox: "required" }),
  };
  const kinds = { bare, ...Object.fromEntries(Object.entries(tools).map(([kind, tool]) => [kind, (id) => tool.execute(id, { command: "true" }, never, () => {}, undefined)])) };
  const failed = [];
  for (const run of Object.values(kinds)) for (let i = 0; i < 10; i++) await run("warm-" + i);
  const times = Object.fromEntries(Object.keys(kinds).map((kind) => [kind, []]));
  for (let i = 0; i < ${CALLS}; i++) {
    for (const [kind, run] of Object.entries(kinds)) {
      const started = performance.now();
      const result = await run(kind + "-" + i);
      times[kind].push(performance.now() - started);
      if (result?.isError) failed.push(result.content[0].text);
      if (result && result.details.sandbox.enforced !== (kind !== "off")) failed.push(kind + " ran " + (result.details.sandbox.enforced ? "sandboxed" : "unsandboxed"));
    }
  }
  const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  const phases = ["start", "prepared", "spawned", "first-byte", "exit", "tree-checked", "drained", "result"];
  const timeline = {};
  for (const kind of Object.keys(tools)) {
    const steps = {};
    for (let i = 0; i < ${CALLS}; i++) {
      const m = marks.get(kind + "-" + i);
      if (!m) continue;
      const at = (phase) => m[phase] ?? m["exit"];
      const spans = { prepare: at("prepared") - at("start"), spawn: at("spawned") - at("prepared"), "first byte": at("first-byte") - at("spawned"), exit: m["exit"] - at("spawned"), "tree check": at("tree-checked") - m["exit"], drain: at("drained") - at("tree-checked"), result: at("result") - at("drained") };
      for (const [name, value] of Object.entries(spans)) (steps[name] ??= []).push(value);
    }
    timeline[kind] = Object.fromEntries(Object.entries(steps).map(([name, values]) => [name, median(values)]));
  }
  // Calls as an agent makes them: apart (here 300 ms: a model's turn takes longer), so the minimal
  // root's spare launcher (already in the next call's cgroups) is ready.
  const spaced = { off: [], host: [], minimal: [] };
  for (let i = 0; i < ${SPACED}; i++) {
    for (const kind of Object.keys(spaced)) {
      await new Promise((resolve) => setTimeout(resolve, 300));
      const started = performance.now();
      await kinds[kind]("spaced-" + kind + "-" + i);
      spaced[kind].push(performance.now() - started);
    }
  }
  console.log(JSON.stringify({ ms: Object.fromEntries(Object.entries(times).map(([kind, values]) => [kind, median(values)])), spaced: Object.fromEntries(Object.entries(spaced).map(([kind, values]) => [kind, median(values)])), timeline, failed: [...new Set(failed)] }));
`;
const baselinePackages = (name, file = "index.js") => pathToFileURL(join(BASELINE ?? "", `packages/${name}/dist/${file}`)).href;
const runs = { ours: [], baseline: [] };
for (let pair = 0; pair < (BASELINE ? PAIRS : 1); pair++) {
  runs.ours.push(node(perCallScript(packages)));
  if (BASELINE) runs.baseline.push(node(perCallScript(baselinePackages)));
}
const perCall = runs.ours.length === 1 ? runs.ours[0] : { ...runs.ours[0], ms: Object.fromEntries(Object.keys(runs.ours[0].ms).map((kind) => [kind, median(runs.ours.map((run) => run.ms[kind]))])), failed: runs.ours.flatMap((run) => run.failed) };
perCall.failed.push(...runs.baseline.flatMap((run) => run.failed.map((text) => `baseline: ${text}`)));
if (perCall.failed.length > 0) {
  console.error(`The per-call run did not behave (is bubblewrap installed?): ${perCall.failed.join("; ")}`);
  process.exit(1);
}
const { bare, off, host, minimal } = perCall.ms;
console.log(`per call (\`true\`, ${CALLS} calls each, interleaved, medians; load average at the start ${startLoad}):\n`);
console.log("| run | ms a call | over the row before |");
console.log("|---|---:|---:|");
console.log(`| bare spawn of the same shell (\`bash -c true\`) | ${fixed(bare, 2)} | |`);
console.log(`| the tool, unsandboxed | ${fixed(off, 2)} | +${fixed(off - bare, 2)} over bare (target <= +2: ${off - bare <= 2 ? "met" : "NOT met"}) |`);
console.log(`| the tool, sandboxed, root "host" (today's sandbox) | ${fixed(host, 2)} | +${fixed(host - off, 2)} over unsandboxed |`);
console.log(`| the tool, sandboxed, root "minimal" (limits, /etc covered) | ${fixed(minimal, 2)} | +${fixed(minimal - off, 2)} over unsandboxed (targets <= +8 / +10: ${minimal - off <= 8 ? "met" : minimal - off <= 10 ? "+10 met, +8 NOT met" : "NOT met"}); ${minimal - host >= 0 ? "+" : ""}${fixed(minimal - host, 2)} over the host root (target <= +2: ${minimal - host <= 2 ? "met" : "NOT met"}) |`);
if (BASELINE) {
  // Each build's runs in turn (this one first): the medians of their runs, each beside its own unsandboxed calls.
  const of = (list, kind) => median(list.map((run) => run.ms[kind]));
  const [baseOff, baseMinimal] = [of(runs.baseline, "off"), of(runs.baseline, "minimal")];
  console.log(`| the baseline's build (${BASELINE}), unsandboxed | ${fixed(baseOff, 2)} | |`);
  console.log(`| the baseline's build, root "minimal" | ${fixed(baseMinimal, 2)} | +${fixed(baseMinimal - baseOff, 2)} over its unsandboxed; this build's minimal root ${minimal - baseMinimal >= 0 ? "+" : ""}${fixed(minimal - baseMinimal, 2)} over it, ${(minimal - off) - (baseMinimal - baseOff) >= 0 ? "+" : ""}${fixed((minimal - off) - (baseMinimal - baseOff), 2)} in what the sandbox adds (target <= +2: ${(minimal - off) - (baseMinimal - baseOff) <= 2 ? "met" : "NOT met"}) |`);
  console.log(`(runs in turn, ${PAIRS} of each build; this build's minimal root by run: ${runs.ours.map((run) => fixed(run.ms.minimal, 2)).join(", ")}; the baseline's: ${runs.baseline.map((run) => fixed(run.ms.minimal, 2)).join(", ")})`);
}
console.log(`(load average at the end of section 1: ${load()})`);
const spaced = perCall.spaced;
console.log(`\ncalls 300 ms apart, as an agent makes them (${SPACED} each, in turn, medians; the gap is not counted):\n`);
console.log("| run | ms a call | over unsandboxed |");
console.log("|---|---:|---:|");
console.log(`| the tool, unsandboxed | ${fixed(spaced.off, 2)} | |`);
console.log(`| sandboxed, root "host" | ${fixed(spaced.host, 2)} | +${fixed(spaced.host - spaced.off, 2)} |`);
console.log(`| sandboxed, root "minimal" (a spare launcher already in the call's cgroups) | ${fixed(spaced.minimal, 2)} | +${fixed(spaced.minimal - spaced.off, 2)} (targets <= +8 / +10: ${spaced.minimal - spaced.off <= 8 ? "met" : spaced.minimal - spaced.off <= 10 ? "+10 met, +8 NOT met" : "NOT met"}); ${spaced.minimal - spaced.host >= 0 ? "+" : ""}${fixed(spaced.minimal - spaced.host, 2)} over the host root (target <= +2: ${spaced.minimal - spaced.host <= 2 ? "met" : "NOT met"}) |`);
console.log("\nthe timeline of a call (back to back, medians, ms):\n");
const steps = Object.keys(perCall.timeline.off);
console.log(`| step | ${Object.keys(perCall.timeline).join(" | ")} |`);
console.log(`|---|${Object.keys(perCall.timeline).map(() => "---:").join("|")}|`);
for (const step of steps) console.log(`| ${step} | ${Object.values(perCall.timeline).map((row) => fixed(row[step], 2)).join(" | ")} |`);
if (process.env.BENCH_ONLY === "per-call") process.exit(0);

// ---------------------------------------------------------------------------------------------
// 3: 100 MB of output.
const outputScripts = {
  idle: `console.log(JSON.stringify({ ms: 0, maxRSS: process.resourceUsage().maxRSS }));`,
  coreutils: `
    import { spawn } from "node:child_process";
    import { mkdtempSync, rmSync } from "node:fs";
    import { tmpdir } from "node:os";
    import { join } from "node:path";
    const folder = mkdtempSync(join(tmpdir(), "bench-bash-"));
    const started = performance.now();
    spawn("bash", ["-c", ${JSON.stringify(`${COMMAND} | cat > "$0/out"`)}, folder], { stdio: "ignore" }).on("exit", () => {
      const ms = performance.now() - started;
      rmSync(folder, { recursive: true, force: true });
      console.log(JSON.stringify({ ms, maxRSS: process.resourceUsage().maxRSS }));
    });
  `,
  off: toolOutput({ sandbox: "off" }),
  minimal: toolOutput({ sandbox: "required" }),
};
function toolOutput(options) {
  return `
    import { rmSync } from "node:fs";
    import { dirname } from "node:path";
    const { createBashTool } = await import(${JSON.stringify(packages("tool-bash"))});
    const tool = createBashTool({ cwd: (await import("node:fs")).mkdtempSync("/tmp/bench-bash-ws-"), ...${JSON.stringify(options)} });
    await tool.execute("warm", { command: "true" }, new AbortController().signal, () => {}, undefined);
    // The first 100 MB of a process (its code not compiled yet), then the same again.
    const run = async () => {
      const started = performance.now();
      const result = await tool.execute("bench", { command: ${JSON.stringify(COMMAND)} }, new AbortController().signal, () => {}, undefined);
      const ms = performance.now() - started;
      const path = result.details.fullOutputPath;
      const size = path ? (await import("node:fs")).statSync(path).size : 0;
      if (path) rmSync(path, { force: true });
      return { ms, size, exitCode: result.details.exitCode, sandboxed: result.details.sandbox.enforced };
    };
    const cold = await run();
    const maxRSS = process.resourceUsage().maxRSS;
    const warm = await run();
    console.log(JSON.stringify({ ...cold, warmMs: warm.ms, maxRSS }));
  `;
}
const outputRuns = Object.fromEntries(Object.keys(outputScripts).map((name) => [name, []]));
for (let round = 0; round < ROUNDS; round++) for (const [name, script] of Object.entries(outputScripts)) outputRuns[name].push(node(script));
for (const name of ["off", "minimal"]) {
  const last = outputRuns[name].at(-1);
  if (last.size !== 100 * MiB || last.exitCode !== 0 || last.sandboxed !== (name === "minimal")) {
    console.error(`The 100 MB run "${name}" did not behave: ${JSON.stringify(last)}`);
    process.exit(1);
  }
}
const idleRSS = median(outputRuns.idle.map((run) => run.maxRSS)) / 1024;
const outputRow = (name) => ({
  ms: median(outputRuns[name].map((run) => run.ms)),
  warm: name === "coreutils" ? undefined : median(outputRuns[name].map((run) => run.warmMs)),
  rss: median(outputRuns[name].map((run) => run.maxRSS)) / 1024 - idleRSS,
});
const [coreutils, outOff, outMinimal] = [outputRow("coreutils"), outputRow("off"), outputRow("minimal")];
console.log(`\n100 MB of output (\`${COMMAND.replace(/x{100}/, "<100 x>")}\`, ${ROUNDS} rounds, fresh Node process each, medians):\n`);
console.log("| run | wall ms, the process's first 100 MB | wall ms, the next 100 MB | peak RSS over idle Node, MiB (first run) |");
console.log("|---|---:|---:|---:|");
console.log(`| coreutils: the same bytes through one more pipe into a file | ${fixed(coreutils.ms, 0)} | | ${fixed(coreutils.rss)} |`);
console.log(`| the tool, unsandboxed (whole output kept in a file) | ${fixed(outOff.ms, 0)} (${fixed(outOff.ms / coreutils.ms, 2)}x; target <= 1.1x: ${outOff.ms / coreutils.ms <= 1.1 ? "met" : "NOT met"}) | ${fixed(outOff.warm, 0)} (${fixed(outOff.warm / coreutils.ms, 2)}x) | ${fixed(outOff.rss)} (target <= 40: ${outOff.rss <= 40 ? "met" : "NOT met"}) |`);
console.log(`| the tool, sandboxed, minimal root | ${fixed(outMinimal.ms, 0)} (${fixed(outMinimal.ms / outOff.ms, 2)}x unsandboxed; target <= 1.1x: ${outMinimal.ms / outOff.ms <= 1.1 ? "met" : "NOT met"}) | ${fixed(outMinimal.warm, 0)} (${fixed(outMinimal.warm / outOff.warm, 2)}x unsandboxed) | ${fixed(outMinimal.rss)} |`);

// ---------------------------------------------------------------------------------------------
// 4: 100 MB through the proxy, beside a direct download and two relays as floors for one more hop (proxy.mjs).
await (await import("./proxy.mjs")).proxyRow();

// ---------------------------------------------------------------------------------------------
// 5: hiding the policy's denied paths (root "host": the paths outside the workspace are mounted there).
const policyRun = node(`
  import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
  import { join } from "node:path";
  const base = mkdtempSync("/var/tmp/bench-bash-home-");
  const home = join(base, "home");
  const ws = join(base, "ws");
  for (const folder of [".ssh", ".aws", ".gnupg", ".kube", ".docker", ".config/gcloud"]) mkdirSync(join(home, folder), { recursive: true });
  writeFileSync(join(home, ".ssh", "id_rsa"), "k");
  mkdirSync(join(ws, "src"), { recursive: true });
  writeFileSync(join(ws, ".env"), "A=1");
  process.env.HOME = home;
  const { AgentHarness } = await import(${JSON.stringify(packages("core"))});
  const bash = (await import(${JSON.stringify(packages("tool-bash"))})).default;
  const policy = (await import(${JSON.stringify(packages("hooks-policy"))})).default;
  const make = async (kind) => {
    const harness = new AgentHarness({ cwd: ws, workspace: ws });
    await harness.use(bash, { sandbox: "required", root: kind === "minimal" ? "minimal" : "host" });
    await harness.use(policy, kind === "none" ? { rules: [{ command: "*", decision: "allow" }] } : { extends: ["recommended"] });
    if (kind === "inside") delete harness.getService("policy").deniedReads;
    return harness;
  };
  const kinds = ["none", "inside", "outside", "minimal"];
  const harnesses = await Promise.all(kinds.map(make));
  const times = kinds.map(() => []);
  const hidden = kinds.map(() => 0);
  const failed = [];
  for (let i = 0; i < ${CALLS} + 5; i++) {
    for (const [at, harness] of harnesses.entries()) {
      const started = performance.now();
      const [result] = await harness.executeToolCalls([{ id: "1", name: "bash", arguments: { command: "true" } }]);
      const ms = performance.now() - started;
      if (result.isError || !result.details.sandbox.enforced) failed.push(result.content[0].text);
      hidden[at] = result.details.sandbox.hidden?.length ?? 0;
      if (i >= 5) times[at].push(ms);
    }
  }
  for (const harness of harnesses) await harness.dispose();
  rmSync(base, { recursive: true, force: true });
  const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  console.log(JSON.stringify({ ms: Object.fromEntries(kinds.map((kind, at) => [kind, median(times[at])])), hidden: Object.fromEntries(kinds.map((kind, at) => [kind, hidden[at]])), failed }));
`);
if (policyRun.failed.length > 0) {
  console.error(`The per-call run with the policy did not behave: ${[...new Set(policyRun.failed)].join("; ")}`);
  process.exit(1);
}
const { none, inside, outside } = policyRun.ms;
console.log(`\nper call through a harness with hooks-policy, sandboxed (${CALLS} calls each, in turn, medians):\n`);
console.log("| run | ms a call | paths hidden |");
console.log("|---|---:|---:|");
console.log(`| host root, nothing to hide | ${fixed(none)} | ${policyRun.hidden.none} |`);
console.log(`| host root, recommended, hiding in the workspace only | ${fixed(inside)} | ${policyRun.hidden.inside} |`);
console.log(`| host root, recommended, hiding outside the workspace too | ${fixed(outside)} (${fixed(outside / inside, 2)}x the row before; target <= 1.1x: ${outside / inside <= 1.1 ? "met" : "NOT met"}) | ${policyRun.hidden.outside} |`);
console.log(`| minimal root, recommended (what is outside is not mounted at all) | ${fixed(policyRun.ms.minimal)} | ${policyRun.hidden.minimal} (the workspace's and /etc's) |`);
console.log(`\nload average at the end: ${load()} (2 cores)`);
