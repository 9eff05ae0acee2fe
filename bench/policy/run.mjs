// The policy's cost per bash decision: 10,000 generated commands (pipelines, lists,
// substitutions, redirects, wrappers, bash -c) against 100 rules, beside unbash parsing the
// same commands alone, in one run. Prints median and p99 µs per command and the ratio.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { AgentHarness, Type } from "../../packages/core/dist/index.js";
import policyPlugin, { createPolicy } from "../../packages/hooks-policy/dist/index.js";

// Another build of hooks-policy (its dist/index.js) to put beside this one in the pipeline rows:
// `node bench/policy/run.mjs /tmp/old-hooks-policy/dist/index.js`.
const otherBuild = process.argv[2] ? await import(new URL(process.argv[2], `file://${process.cwd()}/`).href) : undefined;
const other = otherBuild?.default;

const COMMANDS = 10_000;
const ROUNDS = 3;
const TARGET_MEDIAN_US = 50;

const require = createRequire(new URL("../../packages/hooks-policy/package.json", import.meta.url));
const { parse } = await import(pathToFileURL(require.resolve("unbash")).href);

// A seeded generator, so every run judges the same commands.
let seed = 42;
const random = () => {
  seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
  return seed / 2 ** 31;
};
const pick = (list) => list[Math.floor(random() * list.length)];

const files = ["src/a.ts", "src/b.ts", "README.md", "package.json", "out.txt", "dist/index.js", "logs/app.log", ".env", "/etc/hosts", "~/.bashrc"];
const words = ["foo", "bar", "TODO", "error", "main", "--verbose", "-n", "42", "'hello world'", '"$HOME"'];
const simple = [
  () => `ls -la ${pick(files)}`,
  () => `cat ${pick(files)}`,
  () => `grep -rn ${pick(words)} src`,
  () => `git status`,
  () => `git log --oneline -n ${Math.floor(random() * 20)}`,
  () => `git diff ${pick(files)}`,
  () => `git push origin ${pick(["main", "dev", "feature/x"])}`,
  () => `npm run ${pick(["test", "build", "lint"])} -- --watch=false`,
  () => `pnpm --filter @toolhost/core build`,
  () => `node scripts/${pick(["a", "b"])}.mjs ${pick(words)}`,
  () => `echo ${pick(words)}`,
  () => `wc -l ${pick(files)}`,
  () => `head -n 20 ${pick(files)}`,
  () => `sed -n '1,20p' ${pick(files)}`,
  () => `find . -name '*.ts' -newer ${pick(files)}`,
  () => `rm -rf ${pick(["dist", "build", "/tmp/x", "node_modules"])}`,
  () => `curl -sS https://api.example.com/${pick(words)}`,
  () => `python3 -m pytest -q tests/${pick(["a", "b"])}`,
  () => `docker ps --format '{{.Names}}'`,
  () => `tsc -p tsconfig.json --noEmit`,
  () => `jq '.scripts' package.json`,
  () => `sort ${pick(files)} | uniq -c`,
  () => `mkdir -p build/${pick(words)}`,
  () => `cp ${pick(files)} ${pick(files)}`,
];
const compose = [
  () => pick(simple)(),
  () => `${pick(simple)()} | ${pick(simple)()}`,
  () => `${pick(simple)()} && ${pick(simple)()}`,
  () => `${pick(simple)()} || ${pick(simple)()}; ${pick(simple)()}`,
  () => `${pick(simple)()} > ${pick(files)} 2>&1`,
  () => `${pick(simple)()} >> ${pick(files)}`,
  () => `echo "$(${pick(simple)()})" | tee ${pick(files)}`,
  () => `for f in $(ls src); do ${pick(simple)()}; done`,
  () => `if [ -f ${pick(files)} ]; then ${pick(simple)()}; else ${pick(simple)()}; fi`,
  () => `cd src && ${pick(simple)()} | ${pick(simple)()} | head -5`,
  () => `timeout 30 ${pick(simple)()}`,
  () => `FOO=1 env BAR=2 ${pick(simple)()}`,
  () => `bash -c '${pick(simple)().replaceAll("'", "")}'`,
  () => `(${pick(simple)()}; ${pick(simple)()}) 2>/dev/null`,
  () => `diff <(${pick(simple)()}) <(${pick(simple)()})`,
  () => `find . -name '*.log' -exec ${pick(["rm", "cat", "wc -l"])} {} \\;`,
  () => `ls | xargs -n 1 ${pick(["echo", "rm", "wc -l"])}`,
];
const commands = Array.from({ length: COMMANDS }, () => pick(compose)());

// 100 rules: program allows, asks and denies, argument patterns, write and read paths.
const programs = ["ls", "cat", "grep", "echo", "wc", "head", "tail", "sed", "sort", "uniq", "jq", "tsc", "node", "find", "xargs", "diff", "mkdir", "cp", "tee", "test", "[", "cd", "env", "timeout", "true"];
const rules = [
  ...programs.map((command) => ({ tool: "bash", command, decision: "allow" })),
  ...["git status", "git log *", "git diff *", "git show *", "git branch", "npm run test *", "npm run build *", "npm run lint *", "pnpm --filter * build", "python3 -m pytest *", "docker ps *"].map((command) => ({ tool: "bash", command, decision: "allow" })),
  ...["git push *", "git reset *", "curl", "wget", "ssh", "scp", "docker run *", "npm install *", "pip install *", "chmod", "chown", "kill", "pkill", "sudo", "git clean *", "find ** -delete **", "rm ** -rf **", "make *"].map((command) => ({ tool: "bash", command, decision: "ask" })),
  ...["rm", "shred", "mkfs*", "dd", "shutdown", "reboot", "rm ** / **", "git push ** --force **", "curl ** | sh"].map((command) => ({ tool: "bash", command, decision: "deny" })),
  ...Array.from({ length: 12 }, (_, i) => ({ tool: "bash", command: `tool${i} *`, decision: i % 3 === 0 ? "deny" : "allow" })),
  { tool: ["write", "edit"], path: "${workspace}/**", decision: "allow" },
  { tool: ["write", "edit"], path: "${workspace}/dist/**", decision: "ask" },
  { tool: ["write", "edit"], path: "/etc/**", decision: "deny" },
  { tool: ["write", "edit"], path: "~/.ssh/**", decision: "deny" },
  { tool: ["write", "edit"], path: "~/.bashrc", decision: "deny" },
  { tool: ["write", "edit"], path: "*.lock", decision: "ask" },
  { tool: ["read", "write", "edit"], path: ".env", decision: "deny" },
  { tool: ["read", "write", "edit"], path: "*.pem", decision: "deny" },
  { tool: ["read", "write", "edit"], path: "~/.aws/**", decision: "deny" },
  { tool: "read", path: "${workspace}/**", decision: "allow" },
  ...Array.from({ length: 100 }, (_, i) => ({ tool: "write", path: `${"${workspace}"}/generated${i}/**`, decision: "allow" })),
].slice(0, 100);

const ws = mkdtempSync(join(tmpdir(), "toolhost-bench-policy-"));
try {
  for (const dir of ["src", "dist", "logs", "build"]) mkdirSync(join(ws, dir));
  for (const file of ["src/a.ts", "src/b.ts", "README.md", "package.json", "out.txt", "dist/index.js", "logs/app.log", ".env"]) writeFileSync(join(ws, file), "x\n");
  const policy = createPolicy({ default: "ask", rules }, { cwd: ws, workspace: ws });

  const counts = { allow: 0, ask: 0, deny: 0 };
  // The call as the harness hands it over: tool-bash declares the command and its folder.
  const decide = (command) => policy.decide({ tool: "bash", args: { command }, access: { commands: [{ command, cwd: ws }] } });
  for (const command of commands) counts[decide(command).decision] += 1;

  const measure = (fn, slowest) => {
    const samples = new Float64Array(COMMANDS * ROUNDS);
    let n = 0;
    for (let round = 0; round < ROUNDS; round++) {
      globalThis.gc?.();
      for (const command of commands) {
        const start = process.hrtime.bigint();
        fn(command);
        const us = Number(process.hrtime.bigint() - start) / 1e3;
        samples[n++] = us;
        if (slowest) slowest.push(us);
      }
    }
    samples.sort();
    return { median: samples[Math.floor(n / 2)], p99: samples[Math.floor(n * 0.99)] };
  };

  const slowest = [];
  const parseOnly = measure((command) => parse(command));
  const decided = measure(decide, slowest);
  const otherPolicy = otherBuild?.createPolicy({ default: "ask", rules }, { cwd: ws, workspace: ws });
  const otherDecided = otherPolicy ? measure((command) => otherPolicy.decide({ tool: "bash", args: { command }, access: { commands: [{ command, cwd: ws }] } })) : undefined;
  const ratio = decided.median / parseOnly.median;
  const met = decided.median <= TARGET_MEDIAN_US;

  const row = (name, m, extra = "") => `| ${name.padEnd(34)} | ${m.median.toFixed(1).padStart(10)} | ${m.p99.toFixed(1).padStart(8)} | ${extra.padEnd(22)} |`;
  console.log(`${COMMANDS} commands x ${ROUNDS} rounds, ${rules.length} rules; decisions: ${counts.allow} allow, ${counts.ask} ask, ${counts.deny} deny`);
  console.log("");
  console.log(`| ${"what".padEnd(34)} | median µs  | p99 µs   | ${"".padEnd(22)} |`);
  console.log(`|${"-".repeat(36)}|${"-".repeat(12)}|${"-".repeat(10)}|${"-".repeat(24)}|`);
  console.log(row("unbash parse alone (floor)", parseOnly));
  console.log(row("policy.decide (parse + judge)", decided, `${ratio.toFixed(2)}x the parse`));
  if (otherDecided) console.log(row("policy.decide, given build", otherDecided, `${(decided.median / otherDecided.median).toFixed(2)}x this / given`));
  console.log("");
  console.log(`target: median ≤ ${TARGET_MEDIAN_US} µs per decision: ${met ? "met" : "NOT met"} (${decided.median.toFixed(1)} µs)`);
  // Each command's middle time over the rounds, so one GC pause does not name a command slow.
  const byCommand = commands.map((command, i) => {
    const times = Array.from({ length: ROUNDS }, (_, round) => slowest[round * COMMANDS + i]).sort((a, b) => a - b);
    return [times[Math.floor(ROUNDS / 2)], command];
  });
  byCommand.sort((a, b) => b[0] - a[0]);
  console.log(`slowest commands (median of ${ROUNDS} rounds): ${byCommand.slice(0, 3).map(([us, command]) => `${us.toFixed(0)} µs ${JSON.stringify(command.slice(0, 60))}`).join("; ")}`);
  await pipelineRows(ws, rules, commands.filter((command) => decide(command).decision === "allow"));
  console.log(`peak RSS: ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MiB`);
} finally {
  rmSync(ws, { recursive: true, force: true });
}

/**
 * Allowed calls through the whole pipeline (a no-op tool that declares its command as tool-bash
 * does) with the plugin applied and an event listener (so the decision event, whose details the
 * plugin fills for an allowed call, is made and redacted), beside the same harness without the
 * plugin; with another build of the plugin when given, rounds interleaved. CPU µs per call, median.
 */
async function pipelineRows(ws, rules, allowed) {
  const CALLS = 1_000;
  const PIPELINE_ROUNDS = 15;
  const noop = {
    name: "bash",
    label: "bash",
    description: "no-op that declares its command",
    parameters: Type.Object({ command: Type.String() }),
    access: (params) => ({ commands: [{ command: params.command, cwd: ws }] }),
    async execute() {
      return { content: [{ type: "text", text: "ok" }], details: {} };
    },
  };
  const calls = Array.from({ length: CALLS }, (_, i) => ({ id: `c${i}`, name: "bash", arguments: { command: allowed[i % allowed.length] } }));
  const harnessWith = async (plugin) => {
    const harness = new AgentHarness({ cwd: ws, workspace: ws, tools: [noop] });
    if (plugin) await harness.use(plugin, { default: "ask", rules });
    harness.subscribe(() => {});
    return harness;
  };
  const rows = [{ what: "pipeline, no policy (floor)", harness: await harnessWith(undefined) }, { what: "pipeline + hooks-policy (this build)", harness: await harnessWith(policyPlugin) }];
  if (other) rows.push({ what: "pipeline + hooks-policy (given build)", harness: await harnessWith(other) });
  const samples = rows.map(() => []);
  for (let round = 0; round < PIPELINE_ROUNDS; round++) {
    for (const [i, row] of rows.entries()) {
      globalThis.gc?.();
      const start = process.cpuUsage();
      const results = await row.harness.executeToolCalls(calls);
      const used = process.cpuUsage(start);
      if (results.some((result) => result.isError)) throw new Error(`a call was refused in "${row.what}"`);
      samples[i].push((used.user + used.system) / CALLS);
    }
  }
  const medians = samples.map((list) => list.sort((a, b) => a - b)[Math.floor(list.length / 2)]);
  console.log("");
  console.log(`${CALLS} allowed calls x ${PIPELINE_ROUNDS} rounds through the pipeline, interleaved; CPU µs per call (median)`);
  console.log("");
  console.log(`| ${"what".padEnd(40)} | µs/call | over the floor |`);
  console.log(`|${"-".repeat(42)}|---------|----------------|`);
  rows.forEach((row, i) => console.log(`| ${row.what.padEnd(40)} | ${medians[i].toFixed(1).padStart(7)} | ${(i === 0 ? "" : `+${(medians[i] - medians[0]).toFixed(1)}`).padStart(14)} |`));
  if (other) console.log(`this build / given build, over the floor: ${((medians[1] - medians[0]) / (medians[2] - medians[0])).toFixed(2)}x`);
}
