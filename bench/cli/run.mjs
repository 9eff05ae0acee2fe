// Cold start of `toolhost call` on a trivial tool (a local plugin's tool that reads a small file),
// beside `node -e` reading the same file, in one run: N runs each, alternated, median wall time and
// the ratio. Then shows, with a loader hook that records every module loaded, that a config naming
// one plugin imports no other @toolhost package.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const RUNS = 15;
const TARGET_RATIO = 2.5;
const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const bin = join(root, "packages", "cli", "dist", "bin.js");
const core = realpathSync(join(root, "packages", "core"));
const typebox = realpathSync(join(core, "node_modules", "@sinclair", "typebox"));

const dir = realpathSync(mkdtempSync(join(tmpdir(), "toolhost-bench-cli-")));
// The bench's project runs code of its own (a plugin by path), which loads only from a folder its
// user trusts (docs/trust.md): a config folder of the bench's own trusts it, and no other config counts.
process.env.XDG_CONFIG_HOME = join(dir, ".config-home");
process.env.TOOLHOST_MANAGED_CONFIG_DIR = join(dir, ".managed");
mkdirSync(join(dir, ".config-home", "toolhost"), { recursive: true });
writeFileSync(join(dir, ".config-home", "toolhost", "trusted-folders.json"), JSON.stringify({ folders: [dir] }));
try {
  mkdirSync(join(dir, "node_modules", "@toolhost"), { recursive: true });
  mkdirSync(join(dir, "node_modules", "@sinclair"), { recursive: true });
  symlinkSync(core, join(dir, "node_modules", "@toolhost", "core"), "dir");
  symlinkSync(typebox, join(dir, "node_modules", "@sinclair", "typebox"), "dir");
  writeFileSync(join(dir, "data.txt"), "hello from a small file\n");
  writeFileSync(
    join(dir, "read-plugin.mjs"),
    `import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { definePlugin, Type } from "@toolhost/core";
export default definePlugin({ name: "bench-read", apply(harness) {
  harness.registerTool({ name: "read_file", label: "Read", description: "reads a file", parameters: Type.Object({ path: Type.String() }),
    async execute(_id, { path }) { return { content: [{ type: "text", text: readFileSync(resolve(harness.cwd, path), "utf8") }], details: {} }; } });
} });
`,
  );
  writeFileSync(join(dir, "toolhost.config.json"), JSON.stringify({ plugins: ["./read-plugin.mjs"] }));

  const toolhost = [bin, "call", "read_file", '{"path":"data.txt"}'];
  const floor = ["-e", 'process.stdout.write(require("node:fs").readFileSync("data.txt", "utf8"))'];
  const time = (args) => {
    const started = performance.now();
    const result = spawnSync(process.execPath, args, { cwd: dir, encoding: "utf8" });
    const ms = performance.now() - started;
    if (result.status !== 0 || result.stdout !== "hello from a small file\n") {
      throw new Error(`node ${args.join(" ")} failed (${result.status}): ${result.stdout}${result.stderr}`);
    }
    return ms;
  };
  // What the kernel alone costs to import (TypeBox, tapable), so the CLI's own share shows.
  const kernel = [
    "--input-type=module",
    "-e",
    `await import(${JSON.stringify(join(core, "dist", "index.js"))}); process.stdout.write((await import("node:fs")).readFileSync("data.txt", "utf8"))`,
  ];
  // What TypeBox alone costs: every plugin imports it for its schemas, and so does the kernel.
  const typeboxOnly = [
    "--input-type=module",
    "-e",
    `await import(${JSON.stringify(join(typebox, "build", "esm", "index.mjs"))}); process.stdout.write((await import("node:fs")).readFileSync("data.txt", "utf8"))`,
  ];
  time(toolhost); // warm the file system cache, not measured
  time(floor);
  time(kernel);
  const cli = [];
  const raw = [];
  const kernelOnly = [];
  const typeboxTimes = [];
  for (let i = 0; i < RUNS; i++) {
    typeboxTimes.push(time(typeboxOnly));
    cli.push(time(toolhost));
    raw.push(time(floor));
    kernelOnly.push(time(kernel));
  }
  const median = (values) => {
    const sorted = [...values].sort((a, b) => a - b);
    return sorted[Math.floor(sorted.length / 2)];
  };
  const cliMs = median(cli);
  const rawMs = median(raw);
  const ratio = cliMs / rawMs;
  console.log(`Cold start, median of ${RUNS} runs each (a tool that reads a ${readFileSync(join(dir, "data.txt")).length}-byte file):\n`);
  console.log("| what | median ms | min ms | ratio |");
  console.log("|---|---:|---:|---:|");
  console.log(`| node -e readFileSync (floor) | ${rawMs.toFixed(1)} | ${Math.min(...raw).toFixed(1)} | 1.00× |`);
  const kernelMs = median(kernelOnly);
  const typeboxMs = median(typeboxTimes);
  console.log(`| node importing @sinclair/typebox itself (what a plugin that does pays), then readFileSync | ${typeboxMs.toFixed(1)} | ${Math.min(...typeboxTimes).toFixed(1)} | ${(typeboxMs / rawMs).toFixed(2)}× |`);
  console.log(`| node importing @toolhost/core, then readFileSync | ${kernelMs.toFixed(1)} | ${Math.min(...kernelOnly).toFixed(1)} | ${(kernelMs / rawMs).toFixed(2)}× |`);
  console.log(`| toolhost call read_file | ${cliMs.toFixed(1)} | ${Math.min(...cli).toFixed(1)} | ${ratio.toFixed(2)}× |`);
  console.log(`\nTarget ≤ ${TARGET_RATIO}×: ${ratio <= TARGET_RATIO ? "met" : "NOT met"}\n`);

  // Which @toolhost modules does a config naming one first-party-style plugin load?
  const log = join(dir, "loaded.txt");
  const hooks = join(dir, "record-hooks.mjs");
  writeFileSync(
    hooks,
    `import { appendFileSync } from "node:fs";
export async function load(url, context, next) {
  appendFileSync(${JSON.stringify(log)}, url + "\\n");
  return next(url, context);
}
`,
  );
  const register = join(dir, "record.mjs");
  writeFileSync(register, `import { register } from "node:module";\nregister(${JSON.stringify(`file://${hooks}`)});\n`);
  writeFileSync(join(dir, "toolhost.config.json"), JSON.stringify({ plugins: ["@toolhost/example-plugin-http"] }));
  writeFileSync(log, "");
  const listed = spawnSync(process.execPath, ["--import", register, bin, "list", "--json"], { cwd: dir, encoding: "utf8" });
  if (listed.status !== 0) throw new Error(`toolhost list failed: ${listed.stderr}`);
  const packageOf = (url) => {
    const path = url.startsWith("file://") ? fileURLToPath(url) : url;
    const inWorkspace = /\/(packages|examples)\/([^/]+)\//.exec(path.startsWith(root) ? path.slice(root.length) : "");
    if (inWorkspace) return `@toolhost/${inWorkspace[2] === "plugin-http" ? "example-plugin-http" : inWorkspace[2]}`;
    const inModules = /node_modules\/(@toolhost\/[^/]+)\//.exec(path);
    return inModules?.[1];
  };
  const loaded = readFileSync(log, "utf8").split("\n").filter(Boolean);
  const byPackage = new Map();
  for (const url of loaded) {
    const name = packageOf(url);
    if (name) byPackage.set(name, (byPackage.get(name) ?? 0) + 1);
  }
  console.log("Config naming one plugin (@toolhost/example-plugin-http), `toolhost list`: @toolhost modules loaded\n");
  console.log("| package | modules |");
  console.log("|---|---:|");
  for (const [name, count] of [...byPackage].sort()) console.log(`| ${name} | ${count} |`);
  const others = [...byPackage.keys()].filter((name) => !["@toolhost/cli", "@toolhost/core", "@toolhost/example-plugin-http"].includes(name));
  console.log(`\nNo other plugin imported: ${others.length === 0 ? "yes" : `NO (${others.join(", ")})`}`);
  console.log(`(${loaded.length} modules in all; yaml and jiti loaded: ${loaded.some((u) => /\/(yaml|jiti)\//.test(u)) ? "yes" : "no"})`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
