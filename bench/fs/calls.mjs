// bench/fs/calls.mjs: what a small call of read, write and edit costs through a harness (access
// declared, then run), this build beside another (the checks of what was judged, hard links):
//   node bench/fs/calls.mjs [other tool-fs dist/index.js]
// CPU µs per call, median of interleaved rounds, the two builds in one process on one workspace.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { cpuPerCall } from "../_cpu.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const ours = pathToFileURL(join(here, "..", "..", "packages", "tool-fs", "dist", "index.js")).href;
const other = process.argv[2] ? pathToFileURL(process.argv[2]).href : undefined;
const { AgentHarness } = await import(pathToFileURL(join(here, "..", "..", "packages", "core", "dist", "index.js")).href);
const CALLS = 300;
const ROUNDS = 9;

async function harnessOf(entry, dir) {
  const plugin = (await import(entry)).default;
  const harness = new AgentHarness({ cwd: dir });
  await harness.use(plugin, {});
  return harness;
}

const dir = mkdtempSync(join(tmpdir(), "toolhost-bench-fs-calls-"));
try {
  writeFileSync(join(dir, "small.txt"), "one\ntwo\nthree\n".repeat(20));
  const builds = [["this build", await harnessOf(ours, dir)]];
  if (other) builds.push(["other build", await harnessOf(`${other}?other`, dir)]);
  const kinds = {
    read: (i) => ({ id: `r${i}`, name: "read", arguments: { path: "small.txt" } }),
    write: (i) => ({ id: `w${i}`, name: "write", arguments: { path: `out-${i % 10}.txt`, content: `x${i}\n` } }),
    edit: (i) => ({ id: `e${i}`, name: "edit", arguments: { path: "small.txt", oldText: i % 2 ? "three\none" : "three\nuno", newText: i % 2 ? "three\nuno" : "three\none" } }),
  };
  const results = {};
  for (const [kind, make] of Object.entries(kinds)) {
    for (const [name] of builds) results[`${kind} ${name}`] = [];
    for (let round = 0; round < ROUNDS; round++) {
      for (const [name, harness] of builds) {
        const us = await cpuPerCall(async () => {
          for (let i = 0; i < CALLS; i++) {
            const [result] = await harness.executeToolCalls([make(i)]);
            if (result.isError && kind !== "edit") throw new Error(JSON.stringify(result.content));
          }
        }, { calls: CALLS, rounds: 1 });
        results[`${kind} ${name}`].push(us);
      }
    }
  }
  const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  console.log("| call | this build µs | other build µs | ratio |\n|---|---|---|---|");
  for (const kind of Object.keys(kinds)) {
    const mine = median(results[`${kind} this build`]);
    const theirs = other ? median(results[`${kind} other build`]) : undefined;
    console.log(`| ${kind} | ${mine.toFixed(0)} | ${theirs?.toFixed(0) ?? "-"} | ${theirs ? (mine / theirs).toFixed(2) : "-"} |`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
