// bench/bash, the proxy's row: 100 MB downloaded by curl in the sandbox from a loopback server (a
// process of its own), directly (network "host") and through the sandbox's proxy (network
// "proxy", which the measuring process serves), beside two floors for one more hop on the way: a
// relay process that copies with Node's socket.pipe(), and one that moves the bytes with the
// kernel's splice(2) (python3's os.splice, no copy through user space). Rounds interleave the
// kinds; each run is a fresh Node process with a harness, so its peak RSS is its own. Run alone
// (`node bench/bash/proxy.mjs`) or as part of bench/bash.
import { execFileSync, spawn } from "node:child_process";
import { loadavg } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const packages = (name) => pathToFileURL(join(here, `../../packages/${name}/dist/index.js`)).href;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const MiB = 1024 * 1024;
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const fixed = (value, digits = 1) => value.toFixed(digits);
const load = () => loadavg().map((value) => value.toFixed(2)).join(", ");
const startLoad = load();

const SERVER = `
  const server = require("node:http").createServer((request, response) => {
    response.writeHead(200, { "content-length": String(100 * ${MiB}) });
    const chunk = Buffer.alloc(${MiB}, "x");
    let sent = 0;
    const more = () => { while (sent < 100 && response.write(chunk)) sent += 1; if (sent < 100) response.once("drain", () => { sent += 1; more(); }); else response.end(); };
    more();
  });
  server.listen(0, "127.0.0.1", () => console.log(server.address().port));
`;
/** A relay on 127.0.0.1 to the server: Node's pipe() both ways. */
const NODE_RELAY = `
  const net = require("node:net");
  const [port] = process.argv.slice(1).map(Number);
  const relay = net.createServer((client) => { const upstream = net.connect(port, "127.0.0.1"); client.pipe(upstream); upstream.pipe(client); client.on("error", () => {}); upstream.on("error", () => {}); });
  relay.listen(0, "127.0.0.1", () => console.log(relay.address().port));
`;
/** A relay on 127.0.0.1 to the server that moves the bytes with splice(2): the kernel's floor for one more hop. */
const SPLICE_RELAY = `
import os, socket, sys, threading
port = int(sys.argv[1])
def pump(src, dst):
    r, w = os.pipe()
    try:
        while True:
            n = os.splice(src.fileno(), w, 1 << 20)
            if n == 0: break
            while n > 0: n -= os.splice(r, dst.fileno(), n)
    except OSError: pass
    try: dst.shutdown(socket.SHUT_WR)
    except OSError: pass
listener = socket.socket(); listener.bind(("127.0.0.1", 0)); listener.listen(16)
print(listener.getsockname()[1], flush=True)
while True:
    client, _ = listener.accept()
    upstream = socket.create_connection(("127.0.0.1", port))
    threading.Thread(target=pump, args=(client, upstream), daemon=True).start()
    threading.Thread(target=pump, args=(upstream, client), daemon=True).start()
`;

const downloadScript = (network, port) => `
  const { AgentHarness } = await import(${JSON.stringify(packages("core"))});
  const bash = (await import(${JSON.stringify(packages("tool-bash"))})).default;
  const ws = (await import("node:fs")).mkdtempSync("/tmp/bench-bash-ws-");
  const harness = new AgentHarness({ cwd: ws, workspace: ws });
  await harness.use(bash, { sandbox: "required", network: "${network}" });
  harness.hooks.beforeToolCall.tapPromise("allow", async () => ({ allow: true, reason: "bench" }));
  const call = (command) => harness.executeToolCalls([{ id: "1", name: "bash", arguments: { command } }]);
  await call("true");
  const idleRSS = process.memoryUsage().rss;
  const cpu = process.cpuUsage();
  const [result] = await call("curl -sS --noproxy '' -o /dev/null -w '%{size_download} %{time_total}' http://127.0.0.1:${port}/big");
  const used = process.cpuUsage(cpu);
  const [size, seconds] = result.content[0].text.split(" ").map(Number);
  await harness.dispose();
  console.log(JSON.stringify({ ms: seconds * 1000, size, maxRSS: process.resourceUsage().maxRSS, idleRSS: idleRSS / 1024, cpu: { user: used.user / 1000, system: used.system / 1000 } }));
`;

function node(script) {
  const out = execFileSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8", maxBuffer: 64 * MiB });
  return JSON.parse(out.trim().split("\n").pop());
}

/** Starts a process that prints its port, and reads its CPU time from /proc. */
async function started(command, args) {
  const child = spawn(command, args, { stdio: ["ignore", "pipe", "inherit"] });
  const port = await new Promise((resolve) => child.stdout.once("data", (data) => resolve(Number(String(data).trim()))));
  const cpu = () => {
    const stat = execFileSync("cat", [`/proc/${child.pid}/stat`], { encoding: "utf8" });
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return { user: (Number(fields[11]) * 1000) / 100, system: (Number(fields[12]) * 1000) / 100 };
  };
  return { child, port, cpu };
}

export async function proxyRow() {
  const server = await started(process.execPath, ["-e", SERVER]);
  const nodeRelay = await started(process.execPath, ["-e", NODE_RELAY, String(server.port)]);
  const spliceRelay = await started("python3", ["-c", SPLICE_RELAY, String(server.port)]);
  const kinds = {
    direct: () => node(downloadScript("host", server.port)),
    "node relay": () => withCpu(nodeRelay, () => node(downloadScript("host", nodeRelay.port))),
    "splice relay": () => withCpu(spliceRelay, () => node(downloadScript("host", spliceRelay.port))),
    proxy: () => node(downloadScript("proxy", server.port)),
  };
  const runs = Object.fromEntries(Object.keys(kinds).map((kind) => [kind, []]));
  try {
    for (let round = 0; round < ROUNDS; round++) for (const [kind, run] of Object.entries(kinds)) runs[kind].push(run());
  } finally {
    for (const each of [server, nodeRelay, spliceRelay]) each.child.kill();
  }
  for (const [kind, list] of Object.entries(runs)) {
    if (list.some((run) => run.size !== 100 * MiB)) throw new Error(`The download "${kind}" was not whole: ${JSON.stringify(list)}`);
  }
  const rate = (kind) => (100 / median(runs[kind].map((run) => run.ms))) * 1000;
  const rss = (kind) => median(runs[kind].map((run) => run.maxRSS)) / 1024;
  const idle = (kind) => median(runs[kind].map((run) => run.idleRSS)) / 1024;
  const cpu = (kind) => {
    const [user, system] = ["user", "system"].map((part) => median(runs[kind].map((run) => run.cpu[part])));
    return `${fixed(user + system, 0)} (${fixed(user, 0)} user, ${fixed(system, 0)} system)`;
  };
  const direct = rate("direct");
  console.log(`\n100 MB downloaded with curl in the sandbox from a loopback server (a process of its own) (${ROUNDS} rounds interleaved, fresh Node process each with a harness, medians of curl's own transfer time; load average at the start ${startLoad}, at the end ${load()}, 2 cores):\n`);
  console.log("| run | MB/s | over direct | CPU ms of the hop (its process) | peak RSS of the Node process, MiB (after one call, before the download) |");
  console.log("|---|---:|---:|---:|---:|");
  console.log(`| direct (network "host") | ${fixed(direct, 0)} | | | ${fixed(rss("direct"))} (${fixed(idle("direct"))}) |`);
  for (const kind of ["splice relay", "node relay"]) console.log(`| one more hop: a ${kind} (a process of its own, network "host") | ${fixed(rate(kind), 0)} | ${fixed(rate(kind) / direct, 2)}x | ${cpu(kind)} | |`);
  const proxied = rate("proxy");
  const memory = rss("proxy") - rss("direct");
  console.log(
    `| through the sandbox's proxy (network "proxy"), which the measuring process serves | ${fixed(proxied, 0)} | ${fixed(proxied / direct, 2)}x (target >= 0.8x: ${proxied / direct >= 0.8 ? "met" : "NOT met"}) | ${cpu("proxy")}, the whole harness process | ${fixed(rss("proxy"))} (${fixed(idle("proxy"))}): ${memory >= 0 ? "+" : ""}${fixed(memory)} over direct (target <= +40: ${memory <= 40 ? "met" : "NOT met"}) |`,
  );
}

function withCpu(relay, run) {
  const before = relay.cpu();
  const result = run();
  const after = relay.cpu();
  return { ...result, cpu: { user: after.user - before.user, system: after.system - before.system } };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await proxyRow();
