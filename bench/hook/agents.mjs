// Per shell call through the real clients (Claude Code, Gemini CLI: the cli package's
// devDependencies), headless against a fake model on loopback that asks for CALLS shell calls a
// run: the time between the model's consecutive requests is one call (the host's own work, its
// hook process, the command). Side by side in one run, alternated: a bare `node -e` hook that
// answers `{}` (the floor), `toolhost hook` unconfined (`--no-confine`) and confined, in-process
// and forwarding to a `toolhost hook serve`. Medians of every call of every round.
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { createRequire } from "node:module";
import { loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const CALLS = Number(process.env.BENCH_CALLS ?? 12);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const COMMAND = "echo hi";
// Each call its own words: Gemini CLI stops a run that repeats the same call (its loop detection).
const commandOf = (n) => `${COMMAND} ${n}`;
const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const cli = join(root, "packages", "cli");
const bin = join(cli, "dist", "bin.js");
const require = createRequire(join(cli, "package.json"));
const CLAUDE = join(dirname(require.resolve("@anthropic-ai/claude-code/package.json")), "bin", "claude.exe");
const GEMINI = join(dirname(require.resolve("@google/gemini-cli/package.json")), "bundle", "gemini.js");
const dir = realpathSync(mkdtempSync(join(tmpdir(), "toolhost-bench-agents-")));
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const quote = (word) => `'${word.replaceAll("'", `'\\''`)}'`;

// The fake model: the times of the agent's own requests (those that offer the shell tool).
let times = [];
// Each message an id of its own: Claude Code takes a repeated id for more of the same message.
let messages = 0;
const model = createServer((request, response) => {
  let body = "";
  request.setEncoding("utf8").on("data", (chunk) => (body += chunk));
  request.on("end", () => {
    const url = request.url ?? "";
    const json = (value) => response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(value));
    if (url.includes("count_tokens")) return json({ input_tokens: 1 });
    if (url.includes(":countTokens")) return json({ totalTokens: 1 });
    // Anything else a client asks (a check of the endpoint): no content.
    if (request.method !== "POST" || body === "") return response.writeHead(404).end();
    const parsed = JSON.parse(body);
    if (url.startsWith("/v1/messages")) return anthropic(parsed, response);
    return gemini(parsed, url, response);
  });
});

function anthropic(request, response) {
  const agent = (request.tools ?? []).some((tool) => tool.name === "Bash");
  if (agent) times.push(performance.now());
  const done = request.messages.filter((message) => Array.isArray(message.content) && message.content.some((block) => block.type === "tool_result")).length;
  const call = agent && done < CALLS;
  const block = call ? { type: "tool_use", id: `toolu_${done + 1}`, name: "Bash", input: { command: commandOf(done), description: "bench" } } : { type: "text", text: "done" };
  const message = { id: `msg_${++messages}`, type: "message", role: "assistant", model: request.model, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 } };
  const stop = call ? "tool_use" : "end_turn";
  if (!request.stream) return response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ ...message, content: [block], stop_reason: stop }));
  const delta = call ? { type: "input_json_delta", partial_json: JSON.stringify(block.input) } : { type: "text_delta", text: block.text };
  const events = [
    ["message_start", { message }],
    ["content_block_start", { index: 0, content_block: call ? { ...block, input: {} } : { type: "text", text: "" } }],
    ["content_block_delta", { index: 0, delta }],
    ["content_block_stop", { index: 0 }],
    ["message_delta", { delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 1 } }],
    ["message_stop", {}],
  ];
  response.writeHead(200, { "content-type": "text/event-stream" }).end(events.map(([type, data]) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`).join(""));
}

function gemini(request, url, response) {
  const agent = (request.tools ?? []).some((tool) => (tool.functionDeclarations ?? []).some((declared) => declared.name === "run_shell_command"));
  if (agent) times.push(performance.now());
  const done = (request.contents ?? []).flatMap((content) => (content.parts ?? []).filter((part) => part.functionResponse)).length;
  const parts = agent && done < CALLS ? [{ functionCall: { name: "run_shell_command", args: { command: commandOf(done), description: "bench" } } }] : [{ text: agent ? "done" : '{"reasoning":"x","next_speaker":"user","model_choice":"flash"}' }];
  const chunk = { candidates: [{ content: { role: "model", parts }, finishReason: "STOP", index: 0 }], usageMetadata: { promptTokenCount: 1, candidatesTokenCount: 1, totalTokenCount: 2 } };
  if (url.includes(":streamGenerateContent")) return response.writeHead(200, { "content-type": "text/event-stream" }).end(`data: ${JSON.stringify(chunk)}\n\n`);
  return response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(chunk));
}

function run(file, args, cwd, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { cwd, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (output += chunk));
    child.on("error", reject);
    child.on("close", (code) => (code === 0 ? resolve(output) : reject(new Error(`${file} exited ${code}: ${output.slice(-2000)}`))));
  });
}

await new Promise((resolve) => model.listen(0, "127.0.0.1", resolve));
const modelUrl = `http://127.0.0.1:${model.address().port}`;
const project = join(dir, "project");
mkdirSync(project);
writeFileSync(join(project, "toolhost.config.json"), JSON.stringify({ plugins: ["@toolhost/tool-bash", ["@toolhost/hooks-policy", { extends: ["recommended"] }]] }));
const configHome = join(dir, "config");
mkdirSync(join(configHome, "toolhost"), { recursive: true });
const baseEnv = {
  XDG_CONFIG_HOME: configHome,
  TOOLHOST_MANAGED_CONFIG_DIR: join(dir, "managed"),
  TOOLHOST_HOOK_SERVER: undefined,
  TOOLHOST_HOOK_TOKEN: undefined,
  ANTHROPIC_BASE_URL: modelUrl,
  ANTHROPIC_API_KEY: "sk-bench",
  GOOGLE_GEMINI_BASE_URL: modelUrl,
  GEMINI_API_KEY: "bench",
  DISABLE_AUTOUPDATER: "1",
  DISABLE_TELEMETRY: "1",
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
  NO_COLOR: "1",
};
const server = spawn(process.execPath, [bin, "hook", "serve", "--http", "127.0.0.1:0"], { cwd: project, env: { ...process.env, ...baseEnv, HOME: join(dir, "server-home") }, stdio: ["ignore", "pipe", "inherit"] });
// Never left behind, however the bench ends.
process.once("exit", () => server.kill("SIGTERM"));
const serverUrl = await new Promise((resolve, reject) => {
  let text = "";
  server.stdout.setEncoding("utf8").on("data", (chunk) => {
    text += chunk;
    const found = /http:\/\/\S+/.exec(text);
    if (found) resolve(found[0]);
  });
  server.on("exit", (code) => reject(new Error(`hook server exited ${code}`)));
});

const floor = `${quote(process.execPath)} -e ${quote('let s="";process.stdin.on("data",c=>s+=c).on("end",()=>{JSON.parse(s);process.stdout.write("{}\\n")})')}`;
const toolhost = (host, ...args) => [quote(process.execPath), quote(bin), "hook", host, ...args].join(" ");
const hooks = (host) => [
  ["bare node -e hook (floor)", floor],
  ["toolhost hook, unconfined", toolhost(host, "--no-confine")],
  ["toolhost hook, confined", toolhost(host)],
  ["... --server, unconfined", toolhost(host, "--server", serverUrl, "--no-confine")],
  ["... --server, confined", toolhost(host, "--server", serverUrl)],
];

/** A home with the host's settings: this hook command for every tool call. */
function homeFor(host, name, command) {
  const home = join(dir, `${host}-${name.replace(/\W+/g, "-")}`);
  if (host === "claude") {
    mkdirSync(join(home, ".claude"), { recursive: true });
    writeFileSync(join(home, ".claude", "settings.json"), JSON.stringify({ hooks: { PreToolUse: [{ matcher: "*", hooks: [{ type: "command", command, timeout: 30 }] }] } }));
  } else {
    mkdirSync(join(home, ".gemini"), { recursive: true });
    const settings = { security: { auth: { selectedType: "gemini-api-key" }, folderTrust: { enabled: false } }, privacy: { usageStatisticsEnabled: false }, hooks: { BeforeTool: [{ matcher: ".*", hooks: [{ type: "command", name: "bench", command, timeout: 30000 }] }] } };
    writeFileSync(join(home, ".gemini", "settings.json"), JSON.stringify(settings));
  }
  return home;
}

async function perCall(host, home) {
  times = [];
  const env = { ...baseEnv, HOME: home };
  const [file, args] = host === "claude" ? [CLAUDE, ["-p", "bench", "--output-format", "json", "--allowedTools", "Bash"]] : [process.execPath, [GEMINI, "-p", "bench", "--output-format", "json", "--yolo"]];
  await run(file, args, project, env);
  if (times.length !== CALLS + 1) throw new Error(`${host}: the model saw ${times.length} agent requests, not ${CALLS + 1}`);
  return times.slice(1).map((time, index) => time - (times[index] ?? time));
}

try {
  const loadBefore = loadavg()[0];
  for (const host of ["claude", "gemini"]) {
    const rows = hooks(host).map(([name, command]) => ({ name, home: homeFor(host, name, command), calls: [] }));
    for (const row of rows) await perCall(host, row.home); // warm: compile caches, the server's host
    for (let round = 0; round < ROUNDS; round++) for (const row of rows) row.calls.push(...(await perCall(host, row.home)));
    const base = median(rows[0].calls);
    console.log(`${host === "claude" ? "Claude Code 2.1.197" : "Gemini CLI 0.61.0"}: per shell call (\`${COMMAND}\`), median of ${ROUNDS} x ${CALLS} calls, alternated:`);
    for (const row of rows) {
      const ms = median(row.calls);
      console.log(`  ${row.name.padEnd(30)} ${ms.toFixed(1).padStart(7)} ms  ${(ms / base).toFixed(2)}x the floor`);
    }
    const gap = (confined, unconfined) => (median(rows[confined].calls) - median(rows[unconfined].calls)).toFixed(1);
    console.log(`  confined - unconfined: in-process +${gap(2, 1)} ms, --server +${gap(4, 3)} ms (target: +15 ms)`);
  }
  console.log(`load average ${loadBefore.toFixed(2)} -> ${loadavg()[0].toFixed(2)}, ${process.version}`);
} finally {
  server.kill("SIGTERM");
  model.close();
  rmSync(dir, { recursive: true, force: true });
}
