// MCP overhead. 1) A no-op tool called through `toolhost mcp serve` (stdio and Streamable HTTP),
// beside the same no-op served by a bare v2 SDK server (the floor) and beside a direct harness call:
// median latency of sequential calls, and calls per second with 16 in flight. In the same run, the
// no-op served by @toolhost/mcp-server with its in-flight bound (maxInFlight 32, the default) and
// with none, to show what the bound costs, as ratios. 2) Start-up of @toolhost/tool-mcp with 5
// servers (the official filesystem server) beside each server started alone and the five started
// together by bare SDK clients.
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const SEQUENTIAL = 400;
const CONCURRENT = 1600;
const IN_FLIGHT = 16;
const STARTUP_RUNS = 5;
const TARGET_CALL = 1.3;
const TARGET_STARTUP = 1.2;

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const pkg = (name) => realpathSync(join(root, "packages", name));
const mod = (path) => import(pathToFileURL(path).href);
const bin = join(pkg("cli"), "dist", "bin.js");
const core = pkg("core");
const clientDir = realpathSync(join(pkg("tool-mcp"), "node_modules", "@modelcontextprotocol", "client"));
const serverDir = realpathSync(join(pkg("mcp-server"), "node_modules", "@modelcontextprotocol", "server"));
const nodeDir = realpathSync(join(pkg("mcp-server"), "node_modules", "@modelcontextprotocol", "node"));
const mcpServer = join(pkg("mcp-server"), "dist", "index.js");
const filesystemServer = join(realpathSync(join(pkg("tool-mcp"), "node_modules", "@modelcontextprotocol", "server-filesystem")), "dist", "index.js");

const { Client, StreamableHTTPClientTransport } = await mod(join(clientDir, "dist", "index.mjs"));
const { StdioClientTransport } = await mod(join(clientDir, "dist", "stdio.mjs"));
const { AgentHarness, Type } = await mod(join(core, "dist", "index.js"));

const BOUND = {
  stdio: { on: "mcp-server, stdio, maxInFlight 32 (default)", off: "mcp-server, stdio, no bound" },
  http: { on: "mcp-server, HTTP, maxInFlight 32 and 64 in all (default)", off: "mcp-server, HTTP, no bound" },
};
const NO_BOUND = JSON.stringify({ maxInFlight: "Infinity", maxInFlightTotal: "Infinity" });
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const dir = realpathSync(mkdtempSync(join(tmpdir(), "toolhost-bench-mcp-")));
// The bench's project runs code of its own (a plugin by path), which loads only from a folder its
// user trusts (docs/trust.md): a config folder of the bench's own trusts it, and no other config counts.
process.env.XDG_CONFIG_HOME = join(dir, ".config-home");
process.env.TOOLHOST_MANAGED_CONFIG_DIR = join(dir, ".managed");
process.env.TOOLHOST_MCP_TOKEN = "bench-token";
mkdirSync(join(dir, ".config-home", "toolhost"), { recursive: true });
writeFileSync(join(dir, ".config-home", "toolhost", "trusted-folders.json"), JSON.stringify({ folders: [dir] }));
const children = [];

try {
  mkdirSync(join(dir, "node_modules", "@toolhost"), { recursive: true });
  symlinkSync(core, join(dir, "node_modules", "@toolhost", "core"), "dir");
  writeFileSync(
    join(dir, "noop-plugin.mjs"),
    `import { definePlugin, Type } from "@toolhost/core";
export default definePlugin({ name: "bench-noop", apply(harness) {
  harness.registerTool({ name: "noop", label: "No-op", description: "does nothing", parameters: Type.Object({}),
    async execute() { return { content: [{ type: "text", text: "ok" }], details: {} }; } });
} });
`,
  );
  writeFileSync(join(dir, "toolhost.config.json"), JSON.stringify({ plugins: ["./noop-plugin.mjs"] }));
  // The floor: the same no-op served by the v2 SDK alone, over stdio or HTTP.
  writeFileSync(
    join(dir, "bare-server.mjs"),
    `import { createServer } from "node:http";
import { Server, createMcpHandler } from ${JSON.stringify(pathToFileURL(join(serverDir, "dist", "index.mjs")).href)};
import { serveStdio } from ${JSON.stringify(pathToFileURL(join(serverDir, "dist", "stdio.mjs")).href)};
import { toNodeHandler } from ${JSON.stringify(pathToFileURL(join(nodeDir, "dist", "index.mjs")).href)};
const factory = () => {
  const server = new Server({ name: "bare", version: "1.0.0" }, { capabilities: { tools: {} } });
  server.setRequestHandler("tools/list", () => ({ tools: [{ name: "noop", description: "does nothing", inputSchema: { type: "object", properties: {} } }] }));
  server.setRequestHandler("tools/call", () => ({ content: [{ type: "text", text: "ok" }] }));
  return server;
};
if (process.argv[2] === "http") {
  const handler = toNodeHandler(createMcpHandler(factory));
  const http = createServer((req, res) => void handler(req, res));
  http.listen(0, "127.0.0.1", () => process.stderr.write("at http://127.0.0.1:" + http.address().port + "/mcp\\n"));
} else serveStdio(factory);
`,
  );

  // The same no-op served by @toolhost/mcp-server, with the limits given as JSON in argv[3]
  // ("Infinity" for no bound): what `toolhost mcp serve` runs, without the config and the CLI.
  writeFileSync(
    join(dir, "lib-server.mjs"),
    `import { AgentHarness, Type } from ${JSON.stringify(pathToFileURL(join(core, "dist", "index.js")).href)};
import { serveToolsOverHttp, serveToolsOverStdio } from ${JSON.stringify(pathToFileURL(mcpServer).href)};
const limits = JSON.parse(process.argv[3] ?? "{}", (_key, value) => (value === "Infinity" ? Infinity : value));
const harness = new AgentHarness();
harness.registerTool({ name: "noop", label: "No-op", description: "does nothing", parameters: Type.Object({}),
  async execute() { return { content: [{ type: "text", text: "ok" }], details: {} }; } });
if (process.argv[2] === "http") {
  const running = await serveToolsOverHttp(harness, { port: 0, limits });
  process.stderr.write("at " + running.url + "\\n");
} else serveToolsOverStdio(harness, { limits });
`,
  );

  // --- 1. Calls --------------------------------------------------------------------------------
  const harness = new AgentHarness({ cwd: dir });
  harness.registerTool({
    name: "noop",
    label: "No-op",
    description: "does nothing",
    parameters: Type.Object({}),
    execute: async () => ({ content: [{ type: "text", text: "ok" }], details: {} }),
  });
  const direct = () => harness.executeToolCalls([{ id: "1", name: "noop", arguments: {} }]);

  const startHttp = (args) =>
    new Promise((resolve, reject) => {
      const child = spawn(process.execPath, args, { cwd: dir, stdio: ["ignore", "ignore", "pipe"] });
      children.push(child);
      let stderr = "";
      child.stderr.setEncoding("utf8").on("data", (chunk) => {
        stderr += chunk;
        const match = /at (http:\/\/\S+\/mcp)/.exec(stderr);
        if (match) resolve({ url: match[1], pid: child.pid });
      });
      child.on("exit", (code) => reject(new Error(`server exited ${code}: ${stderr}`)));
    });
  // The server process of each client, for its CPU time (user + system), which the load of a shared
  // machine disturbs far less than wall time.
  const serverPid = new Map();
  const cpuMs = (client) => {
    const fields = readFileSync(`/proc/${serverPid.get(client)}/stat`, "utf8").split(") ")[1].split(" ");
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  };
  const connect = async (transport, pid) => {
    const client = new Client({ name: "bench", version: "1.0.0" });
    await client.connect(transport);
    serverPid.set(client, pid ?? transport.pid);
    return client;
  };
  // The SDK starts a server with a few variables only: the bench's config folder (which trusts its project) is one more.
  const stdio = (args) => connect(new StdioClientTransport({ command: process.execPath, args, cwd: dir, stderr: "ignore", env: { ...process.env } }));
  // Each request gets a signal of its own that follows the transport's (as tool-mcp does): the SDK
  // gives all of them the transport's one signal, where fetch's abort listeners pile up until
  // garbage collection and warn (MaxListenersExceededWarning) past 1,500.
  const ownSignal = (url, init) => fetch(url, init?.signal ? { ...init, signal: AbortSignal.any([init.signal]) } : init);
  // toolhost mcp serve --http takes requests with its token only (TOOLHOST_MCP_TOKEN, set above).
  const http = async (args) => {
    const { url, pid } = await startHttp(args);
    return connect(new StreamableHTTPClientTransport(new URL(url), { fetch: ownSignal, requestInit: { headers: { Authorization: `Bearer ${process.env.TOOLHOST_MCP_TOKEN}` } } }), pid);
  };

  // Latency: rounds of 25 sequential calls on each path in turn, so that the load of a shared
  // machine falls on every path alike; every other round goes the other way round, so that no path
  // always follows the same one (an HTTP server's work after its block fell on the next path).
  // Throughput the same way, in rounds of 200 calls with 16 in flight.
  const inTurn = (paths, round) => (round % 2 === 0 ? Object.entries(paths) : Object.entries(paths).reverse());
  const latencies = async (paths) => {
    const times = Object.fromEntries(Object.keys(paths).map((name) => [name, []]));
    for (let round = 0; round < 2 + SEQUENTIAL / 25; round++) {
      for (const [name, call] of inTurn(paths, round)) {
        for (let i = 0; i < 25; i++) {
          const started = performance.now();
          await call();
          if (round >= 2) times[name].push(performance.now() - started); // two rounds of warm-up
        }
      }
    }
    return Object.fromEntries(Object.entries(times).map(([name, values]) => [name, median(values)]));
  };
  const THROUGHPUT_ROUND = 200;
  const throughputs = async (paths) => {
    const spent = Object.fromEntries(Object.keys(paths).map((name) => [name, 0]));
    for (let round = 0; round < CONCURRENT / THROUGHPUT_ROUND; round++) {
      for (const [name, call] of inTurn(paths, round)) {
        const started = performance.now();
        let next = 0;
        await Promise.all(
          Array.from({ length: IN_FLIGHT }, async () => {
            while (next < THROUGHPUT_ROUND) {
              next += 1;
              await call();
            }
          }),
        );
        spent[name] += performance.now() - started;
      }
    }
    return Object.fromEntries(Object.entries(spent).map(([name, ms]) => [name, CONCURRENT / (ms / 1000)]));
  };
  const viaClient = (client) => async () => {
    const result = await client.callTool({ name: "noop", arguments: {} });
    if (result.content?.[0]?.text !== "ok") throw new Error(`unexpected result ${JSON.stringify(result)}`);
  };

  const clients = {
    "bare SDK server, stdio (floor)": await stdio([join(dir, "bare-server.mjs")]),
    "toolhost mcp serve, stdio": await stdio([bin, "mcp", "serve"]),
    "bare SDK server, HTTP (floor)": await http([join(dir, "bare-server.mjs"), "http"]),
    "toolhost mcp serve --http": await http([bin, "mcp", "serve", "--http", "127.0.0.1:0"]),
    [BOUND.stdio.on]: await stdio([join(dir, "lib-server.mjs"), "stdio", "{}"]),
    [BOUND.stdio.off]: await stdio([join(dir, "lib-server.mjs"), "stdio", NO_BOUND]),
    [BOUND.http.on]: await http([join(dir, "lib-server.mjs"), "http", "{}"]),
    [BOUND.http.off]: await http([join(dir, "lib-server.mjs"), "http", NO_BOUND]),
  };
  const paths = { "direct harness.executeToolCalls": direct, ...Object.fromEntries(Object.entries(clients).map(([name, client]) => [name, viaClient(client)])) };
  const cpuBefore = new Map([...Object.entries(clients)].map(([name, client]) => [name, cpuMs(client)]));
  const latency = await latencies(paths);
  const calls = (2 + SEQUENTIAL / 25) * 25;
  const cpuPerCall = new Map([...Object.entries(clients)].map(([name, client]) => [name, (cpuMs(client) - cpuBefore.get(name)) / calls]));
  const perSecond = await throughputs(paths);
  const rows = Object.keys(paths).map((name) => [name, { latency: latency[name], perSecond: perSecond[name], cpu: cpuPerCall.get(name) }]);
  for (const client of Object.values(clients)) await client.close();

  const byName = Object.fromEntries(rows);
  console.log(`A no-op tool: median latency of ${SEQUENTIAL} sequential calls, and calls per second with ${IN_FLIGHT} in flight (${CONCURRENT} calls)\n`);
  // The server's CPU time a call too: the load of a shared machine moves wall time far more.
  console.log("| path | median latency ms | calls/s | server CPU ms a call | latency vs floor | calls/s vs floor | CPU vs floor |");
  console.log("|---|---:|---:|---:|---:|---:|---:|");
  const floorOf = (name) => (name.includes("HTTP") || name.includes("--http") ? byName["bare SDK server, HTTP (floor)"] : byName["bare SDK server, stdio (floor)"]);
  for (const [name, r] of rows.filter(([name]) => !name.startsWith("mcp-server"))) {
    const floor = name.startsWith("direct") ? undefined : floorOf(name);
    const ratio = floor ? `${(r.latency / floor.latency).toFixed(2)}×` : "";
    const rate = floor ? `${(floor.perSecond / r.perSecond).toFixed(2)}×` : "";
    const cpu = r.cpu === undefined ? "" : r.cpu.toFixed(3);
    const cpuRatio = floor && r.cpu !== undefined ? `${(r.cpu / floor.cpu).toFixed(2)}×` : "";
    console.log(`| ${name} | ${r.latency.toFixed(3)} | ${Math.round(r.perSecond)} | ${cpu} | ${ratio} | ${rate} | ${cpuRatio} |`);
  }
  const stdioRatio = byName["toolhost mcp serve, stdio"].latency / byName["bare SDK server, stdio (floor)"].latency;
  const httpRatio = byName["toolhost mcp serve --http"].latency / byName["bare SDK server, HTTP (floor)"].latency;
  const added = (name, floor) => (byName[name].latency - byName[floor].latency).toFixed(3);
  console.log(`\nAdded latency per call: stdio ${added("toolhost mcp serve, stdio", "bare SDK server, stdio (floor)")} ms, HTTP ${added("toolhost mcp serve --http", "bare SDK server, HTTP (floor)")} ms (the direct harness call alone: ${byName["direct harness.executeToolCalls"].latency.toFixed(3)} ms)`);
  console.log(`Target ≤ ${TARGET_CALL}× the bare SDK server: stdio ${stdioRatio.toFixed(2)}× ${stdioRatio <= TARGET_CALL ? "met" : "NOT met"}, HTTP ${httpRatio.toFixed(2)}× ${httpRatio <= TARGET_CALL ? "met" : "NOT met"}\n`);
  console.log("The in-flight bound: the same no-op served by @toolhost/mcp-server with its default bounds and with none, in the same rounds\n");
  console.log("| transport | bound | median latency ms | calls/s | server CPU ms a call | latency, on / off | calls/s, on / off | CPU, on / off |");
  console.log("|---|---|---:|---:|---:|---:|---:|---:|");
  for (const [transport, names] of Object.entries(BOUND)) {
    const on = byName[names.on];
    const off = byName[names.off];
    const ratio = (a, b) => `${(a / b).toFixed(2)}×`;
    console.log(`| ${transport} | default | ${on.latency.toFixed(3)} | ${Math.round(on.perSecond)} | ${on.cpu.toFixed(3)} | ${ratio(on.latency, off.latency)} | ${ratio(on.perSecond, off.perSecond)} | ${ratio(on.cpu, off.cpu)} |`);
    console.log(`| ${transport} | none | ${off.latency.toFixed(3)} | ${Math.round(off.perSecond)} | ${off.cpu.toFixed(3)} | 1.00× | 1.00× | 1.00× |`);
  }
  console.log("");
  for (const child of children) child.kill();

  // --- 2. Start-up of tool-mcp with 5 servers ----------------------------------------------------
  const { default: mcpPlugin } = await mod(join(pkg("tool-mcp"), "dist", "index.js"));
  const roots = Array.from({ length: 5 }, (_, i) => {
    const each = join(dir, `root${i}`);
    mkdirSync(each);
    return each;
  });
  const start = async (rootDir) => {
    const client = await stdio([filesystemServer, rootDir]);
    await client.listTools();
    return client;
  };
  const alone = async (rootDir) => {
    const started = performance.now();
    const client = await start(rootDir);
    const ms = performance.now() - started;
    await client.close();
    return ms;
  };
  const slowestAlone = [];
  const bareTogether = [];
  const viaPlugin = [];
  for (let run = 0; run < STARTUP_RUNS; run++) {
    const each = [];
    for (const rootDir of roots) each.push(await alone(rootDir));
    slowestAlone.push(Math.max(...each));
    let started = performance.now();
    const together = await Promise.all(roots.map((rootDir) => start(rootDir)));
    bareTogether.push(performance.now() - started);
    await Promise.all(together.map((client) => client.close()));
    const h = new AgentHarness({ cwd: dir });
    started = performance.now();
    await h.use(mcpPlugin, { servers: Object.fromEntries(roots.map((rootDir, i) => [`fs${i}`, { command: process.execPath, args: [filesystemServer, rootDir] }])) });
    viaPlugin.push(performance.now() - started);
    if (h.tools.length !== 5 * 14) throw new Error(`expected 70 tools, got ${h.tools.length}`);
    await h.dispose();
  }
  const slowest = median(slowestAlone);
  const together = median(bareTogether);
  const plugin = median(viaPlugin);
  console.log(`Start-up: 5 × @modelcontextprotocol/server-filesystem (spawn, initialize, tools/list), median of ${STARTUP_RUNS} runs\n`);
  console.log("| what | median ms | vs slowest alone |");
  console.log("|---|---:|---:|");
  console.log(`| the slowest of the 5 started alone, one after another | ${slowest.toFixed(0)} | 1.00× |`);
  console.log(`| the 5 started together by bare SDK clients | ${together.toFixed(0)} | ${(together / slowest).toFixed(2)}× |`);
  console.log(`| @toolhost/tool-mcp applied with the 5 | ${plugin.toFixed(0)} | ${(plugin / slowest).toFixed(2)}× |`);
  const startupRatio = plugin / slowest;
  console.log(`\nTarget ≤ ${TARGET_STARTUP}× the slowest alone: ${startupRatio.toFixed(2)}× ${startupRatio <= TARGET_STARTUP ? "met" : "NOT met"} (tool-mcp vs the 5 started together by bare clients: ${(plugin / together).toFixed(2)}×; this machine has ${(await import("node:os")).availableParallelism()} cores for 5 Node processes)\n`);
} finally {
  for (const child of children) child.kill();
  rmSync(dir, { recursive: true, force: true });
}
