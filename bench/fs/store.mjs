// bench/fs/store.mjs: what read costs for a pnpm-store copy in node_modules (core's proof: the
// file's SHA-512, once per process), beside the same read of a plain copy of the file, in one run.
// A real `pnpm install --offline` of typescript (its lib/typescript.js, about 9 MB, and its
// package.json, about 3 KB); each first read in a fresh process, then a warm one.
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const entry = pathToFileURL(join(here, "..", "..", "packages", "tool-fs", "dist", "index.js")).href;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const load = () => loadavg().map((value) => value.toFixed(2)).join(", ");
const startLoad = load();
const project = mkdtempSync("/tmp/bench-fs-store-");
try {
  // The version this repository's lockfile installs: it is in this machine's store, so an offline install finds it.
  const version = /^  typescript@([\d.]+):/m.exec(readFileSync(join(here, "..", "..", "pnpm-lock.yaml"), "utf8"))?.[1] ?? "*";
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "bench", version: "1.0.0", private: true, dependencies: { typescript: version } }));
  execFileSync("pnpm", ["install", "--offline", "--silent"], { cwd: project, stdio: "pipe" });
  const files = { "lib/typescript.js": "node_modules/typescript/lib/typescript.js", "package.json": "node_modules/typescript/package.json" };
  for (const [name, path] of Object.entries(files)) copyFileSync(join(project, path), join(project, `plain-${name.replace("/", "-")}`));
  const script = (path) => `
    const { createReadTool } = await import(${JSON.stringify(entry)});
    const read = createReadTool({ cwd: ${JSON.stringify(project)} });
    const once = async () => { const started = performance.now(); const result = await read.execute("bench", { path: ${JSON.stringify(path)}, endLine: 50 }, new AbortController().signal, () => {}); if (result.isError) throw new Error(JSON.stringify(result.content)); return performance.now() - started; };
    const first = await once(); const warm = []; for (let i = 0; i < 20; i++) warm.push(await once());
    console.log(JSON.stringify({ first, warm: warm.sort((a, b) => a - b)[10] }));`;
  const run = (path) => JSON.parse(execFileSync(process.execPath, ["--input-type=module", "-e", script(path)], { encoding: "utf8" }).trim().split("\n").pop());
  console.log("read of the first 50 lines, median of", ROUNDS, "fresh processes (first read; then the median of 20 warm reads):");
  for (const [name, path] of Object.entries(files)) {
    const store = { first: [], warm: [] };
    const plain = { first: [], warm: [] };
    for (let round = 0; round < ROUNDS; round++) {
      for (const [into, which] of [[store, path], [plain, `plain-${name.replace("/", "-")}`]]) {
        const answer = run(which);
        into.first.push(answer.first);
        into.warm.push(answer.warm);
      }
    }
    const size = statSync(join(project, path)).size;
    console.log(`  ${name} (${(size / 1024).toFixed(0)} KiB, ${statSync(join(project, path)).nlink} links): store copy first ${median(store.first).toFixed(1)} ms, warm ${median(store.warm).toFixed(2)} ms; plain copy first ${median(plain.first).toFixed(1)} ms, warm ${median(plain.warm).toFixed(2)} ms; first-read ratio ${(median(store.first) / median(plain.first)).toFixed(2)}`);
  }
  console.log(`load average at start ${startLoad}, at end ${load()} (2 cores)`);
} finally {
  rmSync(project, { recursive: true, force: true });
}
