// bench/bash/files.mjs: what the control-file mounts, the hard-link covers and the package-store
// proof cost a sandboxed call (issue 36), this build beside another in one run:
//   node bench/bash/files.mjs [other tool-bash dist/index.js]
//  1. per call (`true`, minimal root), interleaved call by call: an empty workspace, and a pnpm
//     project (a real `pnpm install --offline`, control files present: toolhost.config.json,
//     .claude/, .vscode/, .envrc, .npmrc);
//  2. the control files' look-up and the check after the call, alone (µs);
//  3. the package-store proof of the project's node_modules in a fresh process: the first pass
//     (hashing) and a second (the kept proofs).
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const ours = join(here, "../../packages/tool-bash/dist/index.js");
const other = process.argv[2];
const CALLS = Number(process.env.BENCH_CALLS ?? 150);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const load = () => loadavg().map((value) => value.toFixed(2)).join(", ");
const startLoad = load();
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

const empty = mkdtempSync("/tmp/bench-bash-files-empty-");
const project = mkdtempSync("/tmp/bench-bash-files-project-");
writeFileSync(join(project, "package.json"), JSON.stringify({ name: "bench", version: "1.0.0", private: true, dependencies: { picomatch: "*", tapable: "*", "@sinclair/typebox": "*" } }));
execFileSync("pnpm", ["install", "--offline", "--silent"], { cwd: project, stdio: "pipe" });
writeFileSync(join(project, "toolhost.config.json"), "{}\n");
for (const folder of [".claude", ".vscode"]) mkdirSync(join(project, folder));
writeFileSync(join(project, ".claude", "settings.json"), "{}\n");
writeFileSync(join(project, ".envrc"), "\n");
writeFileSync(join(project, ".npmrc"), "\n");

try {
  // 1: per call. Each build in a process of its own (cgroup names are per process), the builds
  // alternating round by round so that a busy moment of the machine hits both alike.
  const builds = [["this build", pathToFileURL(ours).href], ...(other ? [["other build", pathToFileURL(other).href]] : [])];
  const perRound = Math.ceil(CALLS / ROUNDS);
  const script = (entry) => `
    const { createBashTool } = await import(${JSON.stringify(entry)});
    const { onPhase } = await import(${JSON.stringify(entry.replace(/index\.js$/, "run/_timeline.js"))});
    const marks = new Map();
    onPhase((id, phase, at) => { if (!marks.has(id)) marks.set(id, {}); marks.get(id)[phase] = at; });
    const never = new AbortController().signal;
    const tools = [[${JSON.stringify(empty)}, "empty"], [${JSON.stringify(project)}, "project"]].map(([cwd, where]) => ({ where, tool: createBashTool({ cwd, sandbox: "required" }), times: [] }));
    const call = async (each, id) => { const result = await each.tool.execute(id, { command: "true" }, never, () => {}, undefined); if (result.isError) throw new Error(each.where + ": " + result.content[0]?.text); return result; };
    for (const each of tools) for (let i = 0; i < 10; i++) await call(each, "warm-" + i);
    const phases = { prepare: [], finish: [] };
    for (let i = 0; i < ${perRound}; i++) for (const each of tools) {
      const started = performance.now();
      await call(each, "call-" + i);
      each.times.push(performance.now() - started);
      const m = marks.get("call-" + i);
      if (each.where === "project" && m) { phases.prepare.push(m.prepared - m.start); phases.finish.push(m.result - m.drained); }
    }
    const last = await call(tools[1], "details");
    console.log(JSON.stringify({ times: Object.fromEntries(tools.map((each) => [each.where, each.times])), phases, sandbox: last.details.sandbox }));`;
  const times = Object.fromEntries(builds.map(([name]) => [name, { empty: [], project: [], prepare: [], finish: [] }]));
  let sandbox;
  for (let round = 0; round < ROUNDS; round++) {
    // Which build goes first alternates too.
    for (const [name, entry] of round % 2 === 0 ? builds : [...builds].reverse()) {
      const out = execFileSync(process.execPath, ["--input-type=module", "-e", script(entry)], { encoding: "utf8", maxBuffer: 64 * 2 ** 20 });
      const answer = JSON.parse(out.trim().split("\n").pop());
      for (const where of ["empty", "project"]) times[name][where].push(...answer.times[where]);
      times[name].prepare.push(...answer.phases.prepare);
      times[name].finish.push(...answer.phases.finish);
      if (name === "this build") sandbox = answer.sandbox;
    }
  }
  console.log(`1. a sandboxed \`true\` (minimal root), median of ${perRound * ROUNDS} calls per kind, ${ROUNDS} rounds alternating the builds and their order:`);
  for (const [name] of builds) for (const where of ["empty", "project"]) console.log(`   ${name.padEnd(12)} ${where === "empty" ? "empty workspace" : "pnpm project   "} ${median(times[name][where]).toFixed(2)} ms`);
  if (other) {
    for (const where of ["empty", "project"]) {
      const [a, b] = ["this build", "other build"].map((name) => median(times[name][where]));
      console.log(`   ${where === "empty" ? "empty workspace" : "pnpm project"}: this build − other build = ${(a - b).toFixed(2)} ms (ratio ${(a / b).toFixed(3)})`);
    }
  }
  // The phases that changed (planning the sandbox; the check after the call and the result), which the load's noise in a whole call hides.
  for (const [name] of builds) console.log(`   ${name.padEnd(12)} pnpm project: prepare (plan the sandbox) ${median(times[name].prepare).toFixed(2)} ms, drained → result ${median(times[name].finish).toFixed(2)} ms`);
  console.log(`   pnpm project's details (this build): readOnly ${JSON.stringify(sandbox.readOnly)}, hardLinks ${JSON.stringify({ ...sandbox.hardLinks, examples: undefined, reach: undefined })}`);

  // 2: the control files alone.
  const { controlFilesOf, quarantineCreated } = await import(pathToFileURL(join(here, "../../packages/tool-bash/dist/sandbox/_control-files.js")).href);
  const look = [];
  const after = [];
  for (let i = 0; i < 2000; i++) {
    let started = performance.now();
    const control = controlFilesOf([project], project, "/nonexistent-home");
    look.push(performance.now() - started);
    started = performance.now();
    quarantineCreated(control);
    after.push(performance.now() - started);
  }
  const watched = controlFilesOf([project], project, "/nonexistent-home");
  console.log(`2. control files of one writable folder (${watched.readOnly.length} read-only, ${watched.watched.length} places watched): look-up ${(median(look) * 1000).toFixed(0)} µs, check after the call ${(median(after) * 1000).toFixed(0)} µs`);

  // 3: the store proof in a fresh process.
  const core = pathToFileURL(join(here, "../../packages/core/dist/index.js")).href;
  const proof = execFileSync(
    process.execPath,
    [
      "--input-type=module",
      "-e",
      `import { checkPackageStoreCopy, packageStoreFolders, projectStoreFolder } from ${JSON.stringify(core)};
       import { lstatSync, readdirSync } from "node:fs";
       import { join } from "node:path";
       const root = ${JSON.stringify(project)};
       const stores = packageStoreFolders(process.env, [projectStoreFolder(root)].filter(Boolean));
       const files = [];
       const walk = (folder) => { for (const entry of readdirSync(folder, { withFileTypes: true })) { const path = join(folder, entry.name); if (entry.isDirectory()) walk(path); else if (entry.isFile()) { const stat = lstatSync(path); if (stat.nlink > 1) files.push({ path, stat }); } } };
       walk(join(root, "node_modules"));
       const pass = () => { const started = performance.now(); let copies = 0; for (const { path, stat } of files) if (checkPackageStoreCopy(path, stat, stores) === "copy") copies += 1; return { ms: performance.now() - started, copies }; };
       const first = pass(); const second = pass();
       console.log(JSON.stringify({ files: files.length, bytes: files.reduce((sum, file) => sum + file.stat.size, 0), first, second }));`,
    ],
    { encoding: "utf8" },
  );
  const { files, bytes, first, second } = JSON.parse(proof.trim());
  console.log(`3. store proof of the project's node_modules (${files} linked files, ${(bytes / 2 ** 20).toFixed(1)} MiB; ${first.copies} proven): first pass ${first.ms.toFixed(0)} ms (${((bytes / 2 ** 20) / (first.ms / 1000)).toFixed(0)} MiB/s), second ${second.ms.toFixed(1)} ms`);
  console.log(`load average at start ${startLoad}, at end ${load()} (2 cores)`);
} finally {
  rmSync(empty, { recursive: true, force: true });
  rmSync(project, { recursive: true, force: true });
}
