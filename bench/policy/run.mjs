// The policy's cost per bash decision, and what it costs to start: in one run, beside the floor.
// - 10,000 generated commands (pipelines, lists, substitutions, redirects, wrappers, bash -c)
//   against 100 rules, and against `recommended` (every command read with the full program
//   inventory: kind rules, runners, settings, spellings), unconfined and confined; beside unbash
//   parsing the same commands alone. Median and p99 µs per command, and the ratio to the parse.
// - The inventory's start: in fresh processes, building it and reading every row of it (the worst
//   case: a policy reads only the rows of the programs its calls run), beside node's own start.
// - Both sides of issue 33's measure: the share of harmless commands asked about, and the
//   dangerous commands let through, per mode (test/shares.ts, bundled with esbuild for the run).
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";
import { createPolicy } from "../../packages/hooks-policy/dist/index.js";

const COMMANDS = 10_000;
const ROUNDS = 3;
const STARTS = 15;
const TARGET_MEDIAN_US = 50;
const TARGET_START_MS = 5;

const pkg = fileURLToPath(new URL("../../packages/hooks-policy/", import.meta.url));
const require = createRequire(join(pkg, "package.json"));
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

/** The test's helpers, bundled for this run: the confinement the confined cases declare, and both sides of the measure. */
async function testHelpers(out) {
  await build({
    entryPoints: [join(pkg, "test", "shares.ts")],
    bundle: true,
    format: "esm",
    platform: "node",
    outfile: join(out, "shares.mjs"),
    external: ["@toolhost/core"],
    banner: { js: 'import { createRequire as __createRequire } from "node:module"; const require = __createRequire(import.meta.url);' },
    logLevel: "warning",
  });
  // Resolve @toolhost/core from the package, as the bundle's import would from its folder.
  const coreUrl = pathToFileURL(require.resolve("@toolhost/core")).href;
  const source = readFileSync(join(out, "shares.mjs"), "utf8").replaceAll('from "@toolhost/core"', `from ${JSON.stringify(coreUrl)}`);
  writeFileSync(join(out, "shares.mjs"), source);
  return import(pathToFileURL(join(out, "shares.mjs")).href);
}

/** The inventory's start in a fresh process: build it and read every row, beside node's start. */
async function inventoryStart(out) {
  await build({
    stdin: {
      contents: `import { Inventory } from "./src/inventory/_inventory.ts"; import { PROGRAMS } from "./src/inventory/_programs.ts";
const t0 = performance.now(); const inventory = Inventory.builtin(); const t1 = performance.now();
for (const name of ["git", "npm", "grep", "ls", "cat", "sed", "node", "curl", "rm", "mytool"]) inventory.lookup(name);
const t2 = performance.now();
for (const [names] of PROGRAMS) for (const name of names.split(" ")) inventory.lookup(name);
const t3 = performance.now(); process.stdout.write(JSON.stringify({ build: t1 - t0, first: t2 - t0, all: t3 - t0 }));`,
      resolveDir: pkg,
      loader: "ts",
    },
    bundle: true,
    format: "esm",
    platform: "node",
    outfile: join(out, "inventory-start.mjs"),
    external: ["@toolhost/core"],
    logLevel: "warning",
  });
  const node = [];
  const inventory = [];
  for (let i = 0; i < STARTS; i++) {
    let start = process.hrtime.bigint();
    spawnSync(process.execPath, ["-e", ""]);
    node.push(Number(process.hrtime.bigint() - start) / 1e6);
    start = process.hrtime.bigint();
    const run = spawnSync(process.execPath, [join(out, "inventory-start.mjs")], { encoding: "utf8" });
    if (run.status !== 0) throw new Error(`the inventory's start failed: ${run.stderr}`);
    inventory.push(JSON.parse(run.stdout));
  }
  const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  return { node: median(node), build: median(inventory.map((each) => each.build)), first: median(inventory.map((each) => each.first)), all: median(inventory.map((each) => each.all)) };
}

/** How many program names the inventory's table holds. */
function inventoryNames() {
  const table = readFileSync(join(pkg, "src", "inventory", "_programs.ts"), "utf8");
  return [...table.matchAll(/^\s*\[\s*"([^"]+)",/gm)].reduce((sum, match) => sum + match[1].split(" ").length, 0);
}

const ws = mkdtempSync(join(tmpdir(), "toolhost-bench-policy-"));
try {
  for (const dir of ["src", "dist", "logs", "build", "sub"]) mkdirSync(join(ws, dir));
  for (const file of ["src/a.ts", "src/b.ts", "README.md", "package.json", "out.txt", "dist/index.js", "logs/app.log", ".env"]) writeFileSync(join(ws, file), "x\n");
  symlinkSync(".env", join(ws, "env-link"));
  const helpers = await testHelpers(ws);
  helpers.classWorkspace(ws);
  const confinement = helpers.contained(ws);

  const hundred = createPolicy({ default: "ask", rules }, { cwd: ws, workspace: ws });
  const recommended = createPolicy({ extends: ["recommended"] }, { cwd: ws, workspace: ws, trustedWorkspace: true });
  const decider = (policy, boxed) => (command) => policy.decide({ tool: "bash", args: { command }, access: { commands: [{ command, cwd: ws }], ...(boxed && { confinement }) } });
  const cases = [
    ["policy.decide, 100 rules", decider(hundred, false)],
    ["recommended + full inventory", decider(recommended, false)],
    ["recommended + inventory, confined", decider(recommended, true)],
  ];
  const counts = cases.map(([name, decide]) => {
    const count = { allow: 0, ask: 0, deny: 0 };
    for (const command of commands) count[decide(command).decision] += 1;
    return `${name}: ${count.allow} allow, ${count.ask} ask, ${count.deny} deny`;
  });

  // The decisions time each command in turn, round-robin, so that the machine's load and the
  // collector fall on all of them alike (timed one after the other, the later rows paid more), in
  // an order turned by one each command.
  const measureAll = (fns) => {
    const samples = fns.map(() => new Float64Array(COMMANDS * ROUNDS));
    let n = 0;
    for (let round = 0; round < ROUNDS; round++) {
      globalThis.gc?.();
      for (const command of commands) {
        // Each command meets the rows in a turned order: the row that decides a command first pays
        // for the path through the code the machine has not just taken (two identical policies, one
        // after the other on each command: the second took a quarter less), so no row is always first.
        for (let turn = 0; turn < fns.length; turn++) {
          const index = (n + turn) % fns.length;
          const start = process.hrtime.bigint();
          fns[index](command);
          samples[index][n] = Number(process.hrtime.bigint() - start) / 1e3;
        }
        n += 1;
      }
    }
    return samples.map((each) => {
      const perCommand = Array.from(each);
      const sorted = Float64Array.from(each).sort();
      return { median: sorted[Math.floor(n / 2)], p99: sorted[Math.floor(n * 0.99)], perCommand };
    });
  };

  // The floor on its own: parsing between decisions would time the caches they left cold.
  const [parseOnly] = measureAll([(command) => parse(command)]);
  const decisions = measureAll(cases.map(([, decide]) => decide));
  const measured = cases.map(([name], index) => [name, decisions[index]]);
  const slowest = decisions[1].perCommand;
  const start = await inventoryStart(ws);

  const row = (name, m, extra = "") => `| ${name.padEnd(36)} | ${m.median.toFixed(1).padStart(10)} | ${m.p99.toFixed(1).padStart(8)} | ${extra.padEnd(22)} |`;
  console.log(`${COMMANDS} commands x ${ROUNDS} rounds; ${rules.length} rules, and recommended (${recommended.rules.length} rules) with the inventory`);
  for (const line of counts) console.log(`  ${line}`);
  console.log("");
  console.log(`| ${"what".padEnd(36)} | median µs  | p99 µs   | ${"".padEnd(22)} |`);
  console.log(`|${"-".repeat(38)}|${"-".repeat(12)}|${"-".repeat(10)}|${"-".repeat(24)}|`);
  console.log(row("unbash parse alone (floor)", parseOnly));
  for (const [name, m] of measured) console.log(row(name, m, `${(m.median / parseOnly.median).toFixed(2)}x the parse`));
  console.log("");
  const worst = Math.max(...measured.map(([, m]) => m.median));
  console.log(`target: median ≤ ${TARGET_MEDIAN_US} µs per decision: ${worst <= TARGET_MEDIAN_US ? "met" : "NOT met"} (the slowest row ${worst.toFixed(1)} µs)`);
  const byCommand = commands.map((command, i) => {
    const times = Array.from({ length: ROUNDS }, (_, round) => slowest[round * COMMANDS + i]).sort((a, b) => a - b);
    return [times[Math.floor(ROUNDS / 2)], command];
  });
  byCommand.sort((a, b) => b[0] - a[0]);
  console.log(`slowest with recommended (median of ${ROUNDS} rounds): ${byCommand.slice(0, 3).map(([us, command]) => `${us.toFixed(0)} µs ${JSON.stringify(command.slice(0, 60))}`).join("; ")}`);
  console.log("");
  console.log(`the inventory's start (median of ${STARTS} fresh processes), beside node -e "" (${start.node.toFixed(1)} ms):`);
  console.log(`  loaded (its table of ${inventoryNames()} names): ${start.build.toFixed(2)} ms (${((100 * start.build) / start.node).toFixed(1)}% of node's start)`);
  console.log(`  and the rows of a first call's 10 programs read: ${start.first.toFixed(2)} ms (${((100 * start.first) / start.node).toFixed(1)}%)`);
  console.log(`  and every row read (no call reads them all): ${start.all.toFixed(2)} ms (${((100 * start.all) / start.node).toFixed(1)}%)`);
  console.log(`target: loading ≤ ${TARGET_START_MS} ms: ${start.first <= TARGET_START_MS ? "met" : "NOT met"} (${start.first.toFixed(2)} ms with a first call's rows)`);
  console.log("");
  const harmless = helpers.harmlessOf(readFileSync(join(pkg, "test", "harmless-commands.json"), "utf8"));
  for (const mode of helpers.MODES) {
    const share = helpers.harmlessShare(ws, mode, harmless);
    const asked = share.asked.length + share.denied.length;
    const dangerous = helpers.dangerousThrough(ws, mode);
    const total = dangerous.reduce((sum, each) => sum + each.total, 0);
    const through = dangerous.reduce((sum, each) => sum + each.through.length, 0);
    console.log(`${mode.padEnd(8)}: harmless asked ${asked} of ${share.total} (${((100 * asked) / share.total).toFixed(1)}%); dangerous let through ${through} of ${total}`);
  }
  console.log(`peak RSS: ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MiB`);
} finally {
  rmSync(ws, { recursive: true, force: true });
}
