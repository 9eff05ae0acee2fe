// What asking through the approvals page costs a process, beside the same process without it, in
// one run, alternated, medians and ratios (the machine is shared: note the load average):
// - start-up: `toolhost call read` with @toolhost/approvals in the config (the plugin loaded, no
//   ask) against the same config without it: what every process set to ask through the page pays;
// - an asked call answered at once on the page (by this script, subscribed to the page's events as
//   the page's script is) against the same ask passed by `--approve`: what the round trip through
//   the page adds, without the person's own time.
import { spawn, spawnSync } from "node:child_process";
import { request } from "node:http";
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const RUNS = 15;
const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const bin = join(root, "packages", "cli", "dist", "bin.js");
const dir = realpathSync(mkdtempSync(join(tmpdir(), "toolhost-bench-approvals-")));
process.env.XDG_CONFIG_HOME = join(dir, ".config-home");
process.env.TOOLHOST_MANAGED_CONFIG_DIR = join(dir, ".managed");
mkdirSync(join(dir, ".config-home", "toolhost"), { recursive: true });
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const policy = ["@toolhost/hooks-policy", { extends: ["recommended"], rules: [{ command: "echo asked *", decision: "ask" }] }];
const config = (name, plugins) => {
  mkdirSync(join(dir, name), { recursive: true });
  writeFileSync(join(dir, name, "toolhost.config.json"), JSON.stringify({ plugins }));
  writeFileSync(join(dir, name, "a.txt"), "a\n");
  return join(dir, name);
};
const plain = config("plain", ["@toolhost/tool-fs", ["@toolhost/tool-bash", { sandbox: "off" }], policy]);
const paged = config("paged", ["@toolhost/tool-fs", ["@toolhost/tool-bash", { sandbox: "off" }], policy, "@toolhost/approvals"]);

/** The CPU time (user + system, ms) of this process's children that have ended: /proc/self/stat's cutime and cstime, in 10 ms ticks. */
function childCpuMs() {
  const stat = readFileSync("/proc/self/stat", "latin1");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[13]) + Number(fields[14])) * 10;
}

const cpu = {};
function timed(args, cwd, row) {
  const started = process.hrtime.bigint();
  const before = childCpuMs();
  const run = spawnSync(process.execPath, [bin, ...args], { cwd, encoding: "utf8", stdio: ["pipe", "pipe", "pipe"], input: "" });
  if (run.status !== 0) throw new Error(`toolhost ${args.join(" ")} exited ${run.status}: ${run.stderr}`);
  (cpu[row] ??= []).push(childCpuMs() - before);
  return Number(process.hrtime.bigint() - started) / 1e6;
}

function timedAsync(args, cwd) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(process.execPath, [bin, ...args], { cwd, stdio: ["ignore", "ignore", "pipe"] });
    let err = "";
    child.stderr.setEncoding("utf8").on("data", (chunk) => (err += chunk));
    child.on("exit", (code) => (code === 0 ? resolve(Number(process.hrtime.bigint() - started) / 1e6) : reject(new Error(`exited ${code}: ${err}`))));
  });
}

/** Answers every pending ask "once" as soon as the page's events show it. */
function autoAnswer(url, token) {
  const answered = new Set();
  const answer = (record) => {
    if (record.state !== "pending" || answered.has(record.id)) return;
    answered.add(record.id);
    const body = JSON.stringify({ digest: record.ask.digest, choice: "once" });
    const req = request(new URL(`asks/${record.id}/answer`, url), { method: "POST", headers: { authorization: `Bearer ${token}`, "content-type": "application/json" } });
    req.on("response", (response) => response.resume());
    req.end(body);
  };
  const req = request(new URL(`events?token=${token}`, url), (response) => {
    let text = "";
    response.setEncoding("utf8").on("data", (chunk) => {
      text += chunk;
      let end = text.indexOf("\n\n");
      while (end >= 0) {
        const event = text.slice(0, end);
        text = text.slice(end + 2);
        const data = /^data: (.*)$/m.exec(event)?.[1];
        if (data) for (const record of [JSON.parse(data)].flat()) answer(record);
        end = text.indexOf("\n\n");
      }
    });
  });
  req.end();
  return () => req.destroy();
}

const page = spawn(process.execPath, [bin, "approvals", "serve", "--http", "127.0.0.1:0"], { cwd: dir, stdio: ["ignore", "pipe", "ignore"] });
try {
  const openUrl = await new Promise((resolve) => {
    let text = "";
    page.stdout.setEncoding("utf8").on("data", (chunk) => {
      text += chunk;
      if (text.includes("\n")) resolve(text.split("\n")[0]);
    });
  });
  const url = new URL(openUrl);
  const stop = autoAnswer(`${url.origin}/`, url.searchParams.get("token"));
  const rows = { "call read, no plugin": [], "call read, @toolhost/approvals loaded": [], "asked call, --approve": [], "asked call, answered on the page": [] };
  const read = ["call", "read", JSON.stringify({ path: "a.txt" })];
  const asked = ["call", "bash", JSON.stringify({ command: "echo asked here" })];
  for (let i = 0; i < RUNS; i += 1) {
    rows["call read, no plugin"].push(timed(read, plain, "call read, no plugin"));
    rows["call read, @toolhost/approvals loaded"].push(timed(read, paged, "call read, @toolhost/approvals loaded"));
    rows["asked call, --approve"].push(timed([...asked, "--approve", "bash:echo asked here"], plain, "asked call, --approve"));
    rows["asked call, answered on the page"].push(await timedAsync(asked, paged));
  }
  stop();
  const [load1] = loadavg();
  console.log(`${RUNS} runs each, alternated; load average ${load1.toFixed(1)} on ${process.env.NPROC ?? "this"} machine\n`);
  console.log("| row | median wall ms | ratio | median CPU ms (10 ms ticks) | ratio |\n|---|---|---|---|---|");
  const names = Object.keys(rows);
  for (const [index, name] of names.entries()) {
    const floor = names[index < 2 ? 0 : 2];
    const cpuText = cpu[name] ? `${median(cpu[name])} | ${(median(cpu[name]) / median(cpu[floor])).toFixed(2)}` : "— | —";
    console.log(`| ${name} | ${median(rows[name]).toFixed(1)} | ${(median(rows[name]) / median(rows[floor])).toFixed(2)} | ${cpuText} |`);
  }
} finally {
  page.kill("SIGTERM");
  await new Promise((resolve) => page.once("exit", resolve));
  rmSync(dir, { recursive: true, force: true });
}
