// bench/bash: 100 MB of output through the bash tool, unsandboxed and in its bubblewrap sandbox,
// beside the same command spawned raw; and the sandbox's cost per call (`true`, 200 times).
// Each measurement runs in a fresh Node process so that its peak RSS is its own.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const dist = join(here, "../../packages/tool-bash/dist/index.js");
if (!existsSync(dist)) {
  console.error(`Build the package first: ${dist} is missing (pnpm --filter @toolhost/tool-bash build).`);
  process.exit(1);
}
const COMMAND = `yes ${"x".repeat(100)} | head -c 100M`;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const CALLS = 200;
const MiB = 1024 * 1024;

// Each script prints one JSON line: { ms, maxRSS (KiB), ...extra }.
const scripts = {
  idle: `console.log(JSON.stringify({ ms: 0, maxRSS: process.resourceUsage().maxRSS }));`,
  raw: `
    import { spawn } from "node:child_process";
    const started = performance.now();
    const child = spawn("bash", ["-c", ${JSON.stringify(COMMAND)}], { stdio: "ignore" });
    child.on("exit", () => console.log(JSON.stringify({ ms: performance.now() - started, maxRSS: process.resourceUsage().maxRSS })));
  `,
  rawCat: `
    import { spawn } from "node:child_process";
    const started = performance.now();
    const child = spawn("bash", ["-c", ${JSON.stringify(`${COMMAND} | cat > /dev/null`)}], { stdio: "ignore" });
    child.on("exit", () => console.log(JSON.stringify({ ms: performance.now() - started, maxRSS: process.resourceUsage().maxRSS })));
  `,
  rawPipe: `
    import { spawn } from "node:child_process";
    const started = performance.now();
    const child = spawn("bash", ["-c", ${JSON.stringify(COMMAND)}], { stdio: ["ignore", "pipe", "ignore"] });
    child.stdout.resume();
    child.stdout.on("close", () => console.log(JSON.stringify({ ms: performance.now() - started, maxRSS: process.resourceUsage().maxRSS })));
  `,
  rawFile: `
    import { spawn } from "node:child_process";
    import { createWriteStream, mkdtempSync, rmSync } from "node:fs";
    import { tmpdir } from "node:os";
    import { join } from "node:path";
    const folder = mkdtempSync(join(tmpdir(), "bench-bash-"));
    const started = performance.now();
    const child = spawn("bash", ["-c", ${JSON.stringify(COMMAND)}], { stdio: ["ignore", "pipe", "ignore"] });
    const file = createWriteStream(join(folder, "out"), { highWaterMark: 1 << 20 });
    child.stdout.pipe(file);
    file.on("close", () => {
      const ms = performance.now() - started;
      rmSync(folder, { recursive: true, force: true });
      console.log(JSON.stringify({ ms, maxRSS: process.resourceUsage().maxRSS }));
    });
  `,
  tool: toolScript("off"),
  toolSandbox: toolScript("required"),
};

function toolScript(sandbox) {
  return `
    import { rmSync } from "node:fs";
    import { dirname } from "node:path";
    const { createBashTool } = await import(${JSON.stringify(pathToFileURL(dist).href)});
    const loadedRSS = process.resourceUsage().maxRSS;
    const tool = createBashTool({ sandbox: "${sandbox}" });
    // The sandbox is probed once, at the first call: not part of the run.
    await tool.execute("warm", { command: "true" }, new AbortController().signal, () => {});
    const started = performance.now();
    let updates = 0;
    const result = await tool.execute("bench", { command: ${JSON.stringify(COMMAND)} }, new AbortController().signal, () => {
      updates += 1;
    });
    const ms = performance.now() - started;
    const maxRSS = process.resourceUsage().maxRSS;
    const path = result.details.fullOutputPath;
    if (path) rmSync(dirname(path), { recursive: true, force: true });
    console.log(JSON.stringify({ ms, maxRSS, loadedRSS, updates, truncated: result.details.truncated, exitCode: result.details.exitCode, sandboxed: result.details.sandbox.enforced }));
  `;
}

/** `true` CALLS times through the tool, after a few calls to warm up: ms per call. */
function perCallScript(sandbox) {
  return `
    const { createBashTool } = await import(${JSON.stringify(pathToFileURL(dist).href)});
    const tool = createBashTool({ sandbox: "${sandbox}" });
    const never = new AbortController().signal;
    for (let i = 0; i < 5; i++) await tool.execute("warm", { command: "true" }, never, () => {});
    const started = performance.now();
    let sandboxed = false;
    const failed = [];
    for (let i = 0; i < ${CALLS}; i++) {
      const result = await tool.execute("bench", { command: "true" }, never, () => {});
      if (result.isError) failed.push(result.content[0].text);
      sandboxed = result.details.sandbox.enforced;
    }
    console.log(JSON.stringify({ ms: (performance.now() - started) / ${CALLS}, maxRSS: 0, sandboxed, failed }));
  `;
}

const packages = (name) => pathToFileURL(join(here, `../../packages/${name}/dist/index.js`)).href;

/**
 * \`true\` through three harnesses with hooks-policy, sandboxed, one call each in turn (so that a
 * busy moment of the machine hits all alike; medians): "none" (nothing to hide), "inside"
 * (recommended with the service's \`deniedReads\` taken away: only the workspace's .env is hidden,
 * as before the sandbox hid paths outside the workspace) and "outside" (recommended in a home
 * that holds what it hides: ~/.ssh, ~/.aws, … by mounts outside the workspace, and the .env).
 */
const policyScript = `
  import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
  import { join } from "node:path";
  const base = mkdtempSync("/var/tmp/bench-bash-home-");
  const home = join(base, "home");
  const ws = join(base, "ws");
  for (const folder of [".ssh", ".aws", ".gnupg", ".kube", ".docker", ".config/gcloud"]) mkdirSync(join(home, folder), { recursive: true });
  writeFileSync(join(home, ".ssh", "id_rsa"), "k");
  writeFileSync(join(home, ".docker", "config.json"), "{}");
  mkdirSync(join(ws, "src"), { recursive: true });
  writeFileSync(join(ws, ".env"), "A=1");
  process.env.HOME = home;
  const { AgentHarness } = await import(${JSON.stringify(pathToFileURL(join(here, "../../packages/core/dist/index.js")).href)});
  const bash = (await import(${JSON.stringify(pathToFileURL(dist).href)})).default;
  const policy = (await import(${JSON.stringify(pathToFileURL(join(here, "../../packages/hooks-policy/dist/index.js")).href)})).default;
  const make = async (kind) => {
    const harness = new AgentHarness({ cwd: ws, workspace: ws });
    await harness.use(bash, { sandbox: "required" });
    await harness.use(policy, kind === "none" ? { rules: [{ command: "*", decision: "allow" }] } : { extends: ["recommended"] });
    if (kind === "inside") delete harness.getService("policy").deniedReads;
    return harness;
  };
  const kinds = ["none", "inside", "outside"];
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
`;

function measure(name) {
  const out = execFileSync(process.execPath, ["--input-type=module", "-e", scripts[name]], { encoding: "utf8" });
  return JSON.parse(out.trim().split("\n").pop());
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};

const runs = { idle: [], raw: [], rawCat: [], rawPipe: [], rawFile: [], tool: [], toolSandbox: [] };
// Interleaved, so that a busy moment of the machine hits every kind alike.
for (let round = 0; round < ROUNDS; round++) {
  for (const name of Object.keys(runs)) runs[name].push(measure(name));
}
for (const [name, sandboxed] of [["tool", false], ["toolSandbox", true]]) {
  const last = runs[name].at(-1);
  if (!last.truncated || last.exitCode !== 0 || last.sandboxed !== sandboxed) {
    console.error(`The ${name} run did not behave (is bubblewrap installed?): ${JSON.stringify(last)}`);
    process.exit(1);
  }
}

const idleRSS = median(runs.idle.map((r) => r.maxRSS)) / 1024;
const row = (label, name) => {
  const ms = median(runs[name].map((r) => r.ms));
  const rss = median(runs[name].map((r) => r.maxRSS)) / 1024;
  return { label, ms, rss };
};
const raw = row("raw: bash -c, output to /dev/null", "raw");
const rawCat = row("raw, output piped through cat to /dev/null", "rawCat");
const rawPipe = row("raw, output piped to Node and dropped", "rawPipe");
const rawFile = row("raw, output piped to Node and written to a file", "rawFile");
const tool = row("bash tool, unsandboxed (sandbox: off)", "tool");
const toolSandbox = row("bash tool, sandboxed (bubblewrap)", "toolSandbox");
const loadedRSS = median(runs.tool.map((r) => r.loadedRSS)) / 1024;

console.log(`command: ${COMMAND.replace(/x{100}/, "<100 x>")}   (${ROUNDS} rounds, medians)\n`);
console.log("| run | wall ms | peak RSS MiB | RSS over idle Node MiB |");
console.log("|---|---:|---:|---:|");
console.log(`| idle Node | – | ${idleRSS.toFixed(1)} | 0 |`);
for (const r of [raw, rawCat, rawPipe, rawFile, tool, toolSandbox]) {
  console.log(`| ${r.label} | ${r.ms.toFixed(0)} | ${r.rss.toFixed(1)} | ${(r.rss - idleRSS).toFixed(1)} |`);
}
console.log(`| (tool loaded, before the run) | – | ${loadedRSS.toFixed(1)} | ${(loadedRSS - idleRSS).toFixed(1)} |`);

const timeRatio = tool.ms / raw.ms;
const overIdle = tool.rss - idleRSS;
console.log("");
console.log(`wall time: tool / raw = ${timeRatio.toFixed(2)}x   (raw to /dev/null; target <= 1.5x: ${timeRatio <= 1.5 ? "met" : "NOT met"})`);
console.log(`wall time: raw through one more pipe / raw = ${(rawCat.ms / raw.ms).toFixed(2)}x   (what any reader of the output pays, even cat)`);
const pipeRatio = tool.ms / rawPipe.ms;
console.log(
  `wall time: tool / raw piped into Node = ${pipeRatio.toFixed(2)}x   (raw read as a Node host reads it; target <= 1.5x: ${pipeRatio <= 1.5 ? "met" : "NOT met"})`,
);
console.log(`wall time: tool / raw piped into Node and written to a file = ${(tool.ms / rawFile.ms).toFixed(2)}x   (the same work: the tool keeps the whole output in a file)`);
console.log(`peak RSS over idle Node: ${overIdle.toFixed(1)} MiB   (target <= 40 MiB: ${overIdle <= 40 ? "met" : "NOT met"})`);
console.log(`peak RSS over the tool loaded and idle: ${(tool.rss - loadedRSS).toFixed(1)} MiB; over raw piped into Node: ${(tool.rss - rawPipe.rss).toFixed(1)} MiB`);
const rates = runs.tool.map((r) => (r.updates * 1000) / r.ms);
console.log(`onUpdate: at most ${Math.max(...rates).toFixed(1)} updates a second (target about 10)`);

const sandboxRatio = toolSandbox.ms / tool.ms;
console.log(`100 MB: sandboxed / unsandboxed = ${sandboxRatio.toFixed(2)}x   (target <= 1.1x: ${sandboxRatio <= 1.1 ? "met" : "NOT met"})`);

// Per call: interleaved rounds, each a fresh Node process running `true` CALLS times.
const perCall = { off: [], required: [] };
for (let round = 0; round < ROUNDS; round++) {
  for (const sandbox of Object.keys(perCall)) {
    const out = execFileSync(process.execPath, ["--input-type=module", "-e", perCallScript(sandbox)], { encoding: "utf8" });
    const result = JSON.parse(out.trim().split("\n").pop());
    if (result.sandboxed !== (sandbox === "required")) {
      console.error(`The per-call run with sandbox "${sandbox}" did not behave: ${out}`);
      process.exit(1);
    }
    if (result.failed.length > 0) console.log(`  (${sandbox}: ${result.failed.length} of ${CALLS} calls failed: ${[...new Set(result.failed)].join("; ")})`);
    perCall[sandbox].push(result.ms);
  }
}
const off = median(perCall.off);
const on = median(perCall.required);
console.log("");
console.log(`per call (\`true\`, ${CALLS} calls, medians of ${ROUNDS}): unsandboxed ${off.toFixed(1)} ms, sandboxed ${on.toFixed(1)} ms`);
console.log(`sandbox overhead per call: ${(on - off).toFixed(1)} ms   (target <= 15 ms: ${on - off <= 15 ? "met" : "NOT met"})`);

// Per call with the policy: what hiding the policy's denied paths costs.
const policyRun = JSON.parse(execFileSync(process.execPath, ["--input-type=module", "-e", policyScript], { encoding: "utf8" }).trim().split("\n").pop());
if (policyRun.failed.length > 0) {
  console.error(`The per-call run with the policy did not behave: ${[...new Set(policyRun.failed)].join("; ")}`);
  process.exit(1);
}
const { none, inside, outside } = policyRun.ms;
console.log("");
console.log(
  `per call through a harness with hooks-policy, sandboxed (${CALLS} calls each, in turn, medians): nothing to hide ${none.toFixed(1)} ms; recommended hiding ${policyRun.hidden.inside} path in the workspace only ${inside.toFixed(1)} ms; ${policyRun.hidden.outside} paths, outside it too, ${outside.toFixed(1)} ms`,
);
const hidingRatio = outside / inside;
console.log(`hiding outside the workspace too / in the workspace only: ${hidingRatio.toFixed(2)}x per call, ${outside >= inside ? "+" : ""}${(outside - inside).toFixed(1)} ms   (target <= 1.1x: ${hidingRatio <= 1.1 ? "met" : "NOT met"})`);
console.log(`hiding outside the workspace too / nothing to hide: ${(outside / none).toFixed(2)}x per call`);
