import { mkdirSync, readdirSync, readFileSync, existsSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLAUDE, GEMINI, type FakeModel, claudeTranscript, clientEnv, geminiSettings, runClient, startFakeModel } from "./_agents.js";
import { removeDir, tempDir, toolhost, writeConfig, trust } from "./_helpers.js";
import { startHookServer, type HookServer } from "./_hook.js";

// The real Claude Code and Gemini CLI, headless, guarded by `toolhost hook` as `hook install --user`
// sets it up, against a fake model on loopback that asks for shell calls: what the model gets back,
// what is left on the machine, and the audit log say whether each call ran confined.

const KEY = "-----BEGIN OPENSSH PRIVATE KEY----- do-not-leak-7f3a";
const SECRET = "outside-secret-91c2";
let root: string;
let model: FakeModel;
/** Loopback servers that count their hits: one the policy lets the proxy reach, one it denies. */
let allowed: { server: Server; url: string; hits: number };
let denied: { server: Server; url: string; hits: number };

async function countingServer(host: string): Promise<{ server: Server; url: string; hits: number }> {
  const counted = { server: createServer(), url: "", hits: 0 };
  counted.server.on("request", (_request, response) => {
    counted.hits += 1;
    response.end(`reached ${host}\n`);
  });
  await new Promise<void>((resolve) => counted.server.listen(0, host, () => resolve()));
  counted.url = `http://${host}:${(counted.server.address() as { port: number }).port}/`;
  return counted;
}

/** A project with the bash tool and the recommended policy, an audit log, a home with an SSH key, and a secret beside it. */
function project(name: string, bash: Record<string, unknown> = {}, rules: unknown[] = []): { dir: string; home: string; outside: string; audit: string } {
  const dir = join(root, name, "project");
  const home = join(root, name, "home");
  const outside = join(root, name, "outside");
  for (const folder of [dir, join(home, ".ssh"), outside]) mkdirSync(folder, { recursive: true });
  writeFileSync(join(home, ".ssh", "id_rsa"), `${KEY}\n`, { mode: 0o600 });
  writeFileSync(join(home, "notes.txt"), "the user's own notes\n");
  writeFileSync(join(outside, "secret.txt"), `${SECRET}\n`);
  writeConfig(dir, {
    plugins: [
      ["@toolhost/tool-bash", { limits: { processes: 128 }, ...bash }],
      ["@toolhost/hooks-policy", { extends: ["recommended"], rules, audit: "audit.jsonl" }],
    ],
  });
  return { dir, home, outside, audit: join(dir, "audit.jsonl") };
}

function auditOf(file: string): Array<Record<string, unknown>> {
  return existsSync(file) ? readFileSync(file, "utf8").trim().split("\n").filter(Boolean).map((line) => JSON.parse(line) as Record<string, unknown>) : [];
}

/** Installs toolhost's hook in the user's settings of `host`, as a user would (`hook install --user`), then adds `extra` to its command. */
async function install(host: "claude-code" | "gemini", where: { dir: string; home: string }, given: string[] = [], extra: string[] = []): Promise<void> {
  const result = await toolhost(["hook", "install", host, "--user", "--write", "--yes", ...given], { cwd: where.dir, env: { HOME: where.home } });
  expect(result.code, result.stderr).toBe(0);
  if (extra.length === 0) return;
  const file = join(where.home, host === "claude-code" ? ".claude" : ".gemini", "settings.json");
  const settings = JSON.parse(readFileSync(file, "utf8")) as { hooks: Record<string, Array<{ hooks: Array<{ command: string }> }>> };
  for (const group of Object.values(settings.hooks).flat()) for (const hook of group.hooks) hook.command = `${hook.command} ${extra.join(" ")}`;
  writeFileSync(file, JSON.stringify(settings, null, 2));
}

function claude(where: { dir: string; home: string }, extra: string[] = []) {
  return runClient(CLAUDE, ["-p", "run the calls", "--output-format", "json", ...extra], { cwd: where.dir, env: clientEnv(where.home, model) });
}

function geminiRun(where: { dir: string; home: string }) {
  geminiSettings(where.home);
  return runClient(process.execPath, [GEMINI, "-p", "run the calls", "--output-format", "json", "--yolo"], { cwd: where.dir, env: clientEnv(where.home, model) });
}

/** Processes of this machine whose command line holds `mark`. */
function processesWith(mark: string): string[] {
  const found: string[] = [];
  for (const pid of readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
    try {
      const line = readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ");
      if (line.includes(mark)) found.push(`${pid}: ${line}`);
    } catch {
      // Gone meanwhile.
    }
  }
  return found;
}

beforeAll(async () => {
  root = tempDir("toolhost-hook-agents-");
  model = await startFakeModel();
  allowed = await countingServer("127.0.0.2");
  denied = await countingServer("127.0.0.3");
});
afterAll(async () => {
  await model?.close();
  for (const counted of [allowed, denied]) await new Promise((resolve) => counted?.server.close(resolve));
  removeDir(root);
});

describe("Claude Code, guarded by toolhost hook claude-code", () => {
  it("runs allowed shell calls in the sandbox: output reaches the model; the key, the secret, the writes and the background processes stay out", async () => {
    const where = project("claude");
    await install("claude-code", where);
    const mark = String(7_000_000 + Math.floor(Math.random() * 1_000_000));
    model.script([
      "echo hello from the sandbox; pwd; ls -A ~; echo end-of-listing",
      `node -e "process.stdout.write(require('fs').readFileSync(process.env.HOME + '/.ssh/id_rsa', 'utf8'))"`,
      `cat ${where.outside}/secret.txt`,
      `node -e "require('fs').writeFileSync('${where.outside}/written.txt', 'x')"; touch ~/planted; echo wrote-in-workspace > in-workspace.txt`,
      `(sleep ${mark} &); nohup sleep ${mark} >/dev/null 2>&1 & echo left-running`,
      "curl -sS --max-time 5 " + allowed.url,
    ]);
    const run = await claude(where);
    expect(run.code, run.stderr).toBe(0);
    const [listing, key, secret, writes, background, network] = model.results();
    expect(listing).toContain("hello from the sandbox");
    expect(listing).toContain(where.dir);
    // The home folder is an empty one of the sandbox's own: nothing of the user's is listed.
    expect(listing).not.toContain("notes.txt");
    expect(listing).toMatch(/\.\.?\n?end-of-listing|end-of-listing/);
    expect(key).not.toContain(KEY);
    expect(key).toMatch(/ENOENT|no such file/i);
    expect(key).toContain("[sandbox: the home folder is empty here");
    expect(secret).not.toContain(SECRET);
    expect(secret).toMatch(/No such file/);
    expect(existsSync(join(where.outside, "written.txt"))).toBe(false);
    expect(existsSync(join(where.home, "planted"))).toBe(false);
    expect(readFileSync(join(where.dir, "in-workspace.txt"), "utf8")).toBe("wrote-in-workspace\n");
    expect(writes).toMatch(/ENOENT|EROFS|no such file|read-only/i);
    expect(background).toContain("left-running");
    expect(processesWith(`sleep ${mark}`)).toEqual([]);
    expect(network).toMatch(/Could not resolve|Failed to connect|Couldn't connect|Network is unreachable/);
    expect(allowed.hits).toBe(0);
    // The transcript shows that each ran confined: the hook's answer, with its reason.
    const hooks = claudeTranscript(where.home).filter((line) => (line.attachment as { type?: string } | undefined)?.type === "hook_success");
    expect(hooks.length).toBe(6);
    for (const line of hooks) expect(String((line.attachment as { stdout: string }).stdout)).toContain("runs in toolhost's sandbox");
    // Each call's audit line: allowed as confined, under the host's session and tool-use id.
    const decisions = auditOf(where.audit).filter((line) => line.event === "decision" && line.tool === "Bash");
    expect(decisions).toHaveLength(6);
    for (const line of decisions) {
      expect(line.decision).toBe("allow");
      expect(String(line.toolCallId)).toMatch(/^[0-9a-f-]{36}\/toolu_\d+#\d+$/);
    }
  });

  it("contains a fork bomb, and ends a call at Claude Code's own timeout: no process of either is left", async () => {
    const where = project("claude-bomb");
    await install("claude-code", where);
    const mark = String(6_000_000 + Math.floor(Math.random() * 1_000_000));
    model.script([
      { command: "bomb() { bomb | bomb & }; bomb; sleep 1; echo bomb-started", timeoutMs: 60_000 },
      { command: `sleep ${mark} & sleep ${mark}; echo never-printed`, timeoutMs: 2_000 },
      "echo after-the-bomb",
    ]);
    const run = await claude(where);
    expect(run.code, run.stderr).toBe(0);
    const [bomb, timedOut, after] = model.results();
    expect(bomb).toMatch(/bomb-started|Resource temporarily unavailable|retry/);
    expect(timedOut).not.toContain("never-printed");
    expect(after).toContain("after-the-bomb");
    expect(processesWith("bomb-started")).toEqual([]);
    expect(processesWith(`sleep ${mark}`)).toEqual([]);
    const decisions = auditOf(where.audit).filter((line) => line.event === "decision");
    expect(decisions[0]).toMatchObject({ decision: "allow" });
  });

  it("--no-confine gives today's behaviour: the command runs as Claude Code runs it, and its own permissions decide", async () => {
    const where = project("claude-unconfined");
    await install("claude-code", where, [], ["--no-confine"]);
    model.script(["ls -A ~"]);
    const run = await claude(where, ["--allowedTools", "Bash"]);
    expect(run.code, run.stderr).toBe(0);
    expect(model.results()[0]).toContain("notes.txt");
    const hooks = claudeTranscript(where.home).filter((line) => (line.attachment as { type?: string } | undefined)?.type === "hook_success");
    expect((hooks[0]?.attachment as { stdout: string }).stdout.trim()).toBe("{}");
  });
});

describe("through toolhost hook serve, network through the proxy", () => {
  let server: HookServer;
  let where: ReturnType<typeof project>;
  const host = (url: string): string => new URL(url).hostname;

  beforeAll(async () => {
    where = project("proxied", { network: "proxy" }, [
      { id: "test-allowed", tool: "*", host: host(allowed.url), decision: "allow" },
      { id: "test-denied", tool: "*", host: host(denied.url), decision: "deny", reason: "the test's denied destination" },
    ]);
    // Network "proxy" widens what calls reach: the test's user trusts the project, as they would.
    trust(where.dir);
    server = await startHookServer(where.dir, [], { HOME: where.home, TOOLHOST_HOOK_SERVER: undefined, TOOLHOST_HOOK_TOKEN: undefined });
  });
  afterAll(async () => server?.stop());

  it("Claude Code: an allowed destination is reached through the proxy, a denied one refused and said so, each with its audit line", async () => {
    await install("claude-code", where, ["--server", server.url]);
    const before = { allowed: allowed.hits, denied: denied.hits };
    model.script([`curl -sS --max-time 10 ${allowed.url}`, `curl -sS --max-time 10 ${denied.url}; echo curl-exit=$?`]);
    const run = await claude(where);
    expect(run.code, run.stderr).toBe(0);
    const [reached, refused] = model.results();
    expect(reached).toContain(`reached ${host(allowed.url)}`);
    expect(allowed.hits).toBe(before.allowed + 1);
    expect(refused).toContain("toolhost's proxy refused the connection");
    expect(refused).toContain("the test's denied destination");
    expect(denied.hits).toBe(before.denied);
    const lines = auditOf(where.audit);
    // A destination's line says what it judged: `network GET <url>: …`.
    const isNetwork = (line: Record<string, unknown>): boolean => String(line.reason).startsWith("network ");
    const network = lines.filter((line) => line.event === "decision" && isNetwork(line));
    const callIds = lines.filter((line) => line.event === "decision" && !isNetwork(line)).map((line) => line.toolCallId);
    expect(network.map((line) => [line.decision, /^network (\S+ \S+): /.exec(String(line.reason))?.[1]])).toEqual([
      ["allow", `GET ${allowed.url}`],
      ["deny", `GET ${denied.url}`],
    ]);
    // Attributed to the host's calls: the same ids as the calls' own decisions.
    expect(network.map((line) => line.toolCallId)).toEqual(callIds);
  });

  it("Gemini CLI: the same, through the forwarding hook", async () => {
    await install("gemini", where, ["--server", server.url]);
    const before = { allowed: allowed.hits, denied: denied.hits };
    model.script([`curl -sS --max-time 10 ${allowed.url}`, `curl -sS --max-time 10 ${denied.url}`]);
    const run = await geminiRun(where);
    expect(run.code, run.stderr).toBe(0);
    const [reached, refused] = model.results();
    expect(reached).toContain(`reached ${host(allowed.url)}`);
    expect(allowed.hits).toBe(before.allowed + 1);
    expect(refused).toContain("toolhost's proxy refused the connection");
    expect(denied.hits).toBe(before.denied);
  });
});

describe("Gemini CLI, guarded by toolhost hook gemini", () => {
  it("runs allowed shell calls in the sandbox: output reaches the model; the key, the writes and the background processes stay out", async () => {
    const where = project("gemini");
    await install("gemini", where);
    const mark = String(8_000_000 + Math.floor(Math.random() * 1_000_000));
    model.script([
      "echo hello from the sandbox; ls -A ~; echo end-of-listing",
      `node -e "process.stdout.write(require('fs').readFileSync(process.env.HOME + '/.ssh/id_rsa', 'utf8'))"`,
      `cat ${where.outside}/secret.txt; touch ~/planted`,
      `(sleep ${mark} &); echo left-running`,
    ]);
    const run = await geminiRun(where);
    expect(run.code, run.stderr).toBe(0);
    const [listing, key, secret, background] = model.results();
    expect(listing).toContain("hello from the sandbox");
    expect(listing).not.toContain("notes.txt");
    expect(key).not.toContain(KEY);
    expect(key).toMatch(/ENOENT|no such file/i);
    expect(secret).not.toContain(SECRET);
    expect(existsSync(join(where.home, "planted"))).toBe(false);
    expect(background).toContain("left-running");
    expect(processesWith(`sleep ${mark}`)).toEqual([]);
    const decisions = auditOf(where.audit).filter((line) => line.event === "decision" && line.tool === "run_shell_command");
    expect(decisions.map((line) => line.decision)).toEqual(["allow", "allow", "allow", "allow"]);
  });
});
