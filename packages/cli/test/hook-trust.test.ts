// Servers no local user can steer (issue 27): `toolhost hook serve` judges a call's folder only by
// configs its own user may run, whoever names the folder; it and `mcp serve --http` take requests
// only with their token, loopback included; the installers' settings carry the token and the real
// flows work. Another user is nobody (uid 65534), run with setpriv; the server is us (root here).
import { spawn, spawnSync } from "node:child_process";
import { chmodSync, chownSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { BIN, project, removeDir, tempDir, toolhost, USER_CONFIG_DIR, writeConfig, writeFile } from "./_helpers.js";
import { claudePayload, geminiPayload, startHookServer, type HookServer } from "./_hook.js";
import { httpClient, serveHttp } from "./_mcp.js";

/** An allowed shell call of a config with a policy and no sandbox: no decision, and a line saying it runs unconfined. */
const UNCONFINED = { systemMessage: expect.stringContaining("runs unconfined: no plugin of the config provides a sandbox") };

vi.setConfig({ testTimeout: 120_000 });

const NOBODY = 65534;
const POLICY = ["@toolhost/hooks-policy", { default: "allow", rules: [{ id: "no-rm-rf", tool: "*", command: "rm -rf *", decision: "deny", reason: "recursive deletes are not allowed" }] }];
// The test process's own environment must not choose a server or a token for the hooks it runs.
const CLEAN_ENV = { TOOLHOST_HOOK_SERVER: undefined, TOOLHOST_HOOK_TOKEN: undefined, TOOLHOST_MCP_TOKEN: undefined };

let root: string;
let dir: string;
let server: HookServer;

beforeAll(async () => {
  root = tempDir("toolhost-hook-trust-");
  // nobody must reach the folders made for it below.
  chmodSync(root, 0o755);
  dir = join(root, "ours");
  mkdirSync(dir);
  writeConfig(dir, { plugins: [POLICY] });
  server = await startHookServer(dir, [], CLEAN_ENV);
}, 60_000);
afterAll(async () => {
  await server?.stop();
  removeDir(root);
});

/** Runs the built CLI as nobody, with a config folder of its own. */
function asNobody(args: string[], cwd: string, home: string): { code: number | null; stdout: string; stderr: string } {
  const ran = spawnSync("setpriv", [`--reuid=${NOBODY}`, `--regid=${NOBODY}`, "--clear-groups", process.execPath, BIN, ...args], {
    cwd,
    encoding: "utf8",
    env: { ...process.env, HOME: home, XDG_CONFIG_HOME: home },
  });
  expect(ran.error, "setpriv (util-linux) must be installed").toBeUndefined();
  return { code: ran.status, stdout: ran.stdout, stderr: ran.stderr };
}

/** Posts a hook payload to the server, with its token unless told otherwise; the status and the parsed answer. */
async function post(path: string, body: string | Buffer, headers: Record<string, string> = { authorization: `Bearer ${server.token}` }) {
  const response = await fetch(`${server.url}${path}`, { method: "POST", body, headers: { "content-type": "application/json", ...headers } });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

const denyOf = (body: Record<string, unknown>): string =>
  ((body.hookSpecificOutput as { permissionDecision?: string; permissionDecisionReason?: string } | undefined)?.permissionDecision === "deny"
    ? (body.hookSpecificOutput as { permissionDecisionReason: string }).permissionDecisionReason
    : "") || (body.decision === "deny" ? String(body.reason) : "");

describe("hook serve and another user's folder", () => {
  it("runs nothing of a JS config in a folder another uid owns, even trusted by its owner, and denies saying why", async () => {
    const theirs = join(root, "theirs");
    const home = join(root, "nobody-home");
    const markers = join(root, "markers");
    mkdirSync(home);
    mkdirSync(markers);
    // The config writes who ran it: it must run for its owner, who trusts it, and never for us.
    writeFile(
      join(theirs, "toolhost.config.mjs"),
      `import { writeFileSync } from "node:fs";\nwriteFileSync(${JSON.stringify(markers)} + "/ran-as-" + process.getuid(), "yes");\nexport default { plugins: [["@toolhost/hooks-policy", { default: "allow" }]] };\n`,
    );
    for (const path of [theirs, join(theirs, "toolhost.config.mjs"), home, markers]) chownSync(path, NOBODY, NOBODY);
    const trusted = asNobody(["trust", theirs], theirs, home);
    expect(trusted.code, trusted.stderr).toBe(0);
    expect(asNobody(["trust", "--list"], theirs, home).stdout).toBe(`${theirs}\n`);
    // Its owner's toolhost runs it: the file is a working config.
    expect(asNobody(["config"], theirs, home).code).toBe(0);
    expect(existsSync(join(markers, `ran-as-${NOBODY}`))).toBe(true);

    for (const [path, payload] of [
      ["/claude-code", claudePayload(theirs, "Bash", { command: "rm -rf /" })],
      ["/gemini", geminiPayload(theirs, "run_shell_command", { command: "ls" })],
    ] as const) {
      const answer = await post(path, payload);
      expect(answer.status).toBe(200);
      expect(denyOf(answer.body), path).toContain(`${join(theirs, "toolhost.config.mjs")} is owned by nobody (uid ${NOBODY}), not by you (root) or root`);
      expect(denyOf(answer.body), path).toContain("TOOLHOST_UNSAFE_FILE");
    }
    // The in-process hook, in that folder, refuses the same way.
    const here = await toolhost(["hook", "claude-code"], { cwd: dir, input: claudePayload(theirs, "Bash", { command: "ls" }), env: CLEAN_ENV });
    expect(here.code).toBe(0);
    expect(denyOf(JSON.parse(here.stdout) as Record<string, unknown>)).toContain("is owned by nobody");
    // Nor can we trust it: trust is ours, and no trust makes another user's file ours.
    const ours = await toolhost(["trust", theirs], { cwd: dir });
    expect(ours.code).toBe(2);
    expect(ours.stderr).toContain(`is owned by nobody (uid ${NOBODY})`);
    expect(ours.stderr).toContain("TOOLHOST_UNSAFE_FILE");
    expect(existsSync(join(markers, "ran-as-0"))).toBe(false);
  });

  it("reads no JSON config another uid owns or every user can write, and no plugin in a folder every user can write", async () => {
    const theirs = join(root, "their-json");
    writeConfig(theirs, { plugins: [["@toolhost/hooks-policy", { default: "allow" }]] });
    chownSync(join(theirs, "toolhost.config.json"), NOBODY, NOBODY);
    const owned = await post("/claude-code", claudePayload(theirs, "Bash", { command: "ls" }));
    expect(denyOf(owned.body)).toContain("is owned by nobody");

    const open = join(root, "open-config");
    writeConfig(open, { plugins: [["@toolhost/hooks-policy", { default: "allow" }]] });
    chmodSync(join(open, "toolhost.config.json"), 0o666);
    const writable = await post("/claude-code", claudePayload(open, "Bash", { command: "ls" }));
    expect(denyOf(writable.body)).toContain(`${join(open, "toolhost.config.json")} can be written by every user (mode 666)`);

    // A folder everyone may write (no sticky bit) above a plugin: anyone could swap the file.
    const shared = project(join(root, "shared"));
    const gate = writeFile(join(shared, "open", "gate.mjs"), 'import { definePlugin } from "@toolhost/core";\nexport default definePlugin({ name: "gate", apply() {} });\n');
    chmodSync(join(shared, "open"), 0o777);
    writeConfig(shared, { plugins: ["./open/gate.mjs", POLICY] });
    const result = await toolhost(["--json", "config"], { cwd: shared });
    const refused = (JSON.parse(result.stdout) as { refused: Array<{ code: string; message: string }> }).refused;
    expect(refused).toEqual([
      expect.objectContaining({ code: "TOOLHOST_UNSAFE_FILE", message: expect.stringContaining(`${join(shared, "open")} (a folder above ${gate}) can be written by every user (mode 777)`) }),
    ]);
    expect(result.stderr).toContain("can be written by every user");
    // With the sticky bit (as /tmp), another user cannot replace what is ours there.
    chmodSync(join(shared, "open"), 0o1777);
    const sticky = await toolhost(["--json", "config"], { cwd: shared });
    expect(sticky.code, sticky.stdout + sticky.stderr).toBe(0);
    expect((JSON.parse(sticky.stdout) as { plugins: Array<{ name: string }> }).plugins.map((plugin) => plugin.name)).toEqual(["gate", "@toolhost/hooks-policy"]);
  });
});

describe("tokens on loopback", () => {
  it("hook serve refuses a request without the token, made once in a file only its user reads", async () => {
    const without = await post("/claude-code", claudePayload(dir, "Bash", { command: "ls" }), {});
    expect(without.status).toBe(200);
    expect(denyOf(without.body)).toContain("missing or wrong bearer token");
    const wrong = await post("/gemini", geminiPayload(dir, "run_shell_command", { command: "ls" }), { authorization: "Bearer guess" });
    expect(wrong.body).toMatchObject({ decision: "deny", reason: expect.stringContaining("bearer token") });
    const file = join(USER_CONFIG_DIR, "hook-token");
    expect(readFileSync(file, "utf8").trim()).toBe(server.token);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect((await post("/claude-code", claudePayload(dir, "Bash", { command: "ls" }))).body).toEqual(UNCONFINED);
    expect(denyOf((await post("/claude-code", claudePayload(dir, "Bash", { command: "rm -rf src" }))).body)).toContain("recursive deletes");
  });

  it("mcp serve --http refuses a request without the token; without one given it makes one and shows it once", async () => {
    const mcp = await serveHttp(dir, [], { TOOLHOST_MCP_TOKEN: "" });
    try {
      while (!mcp.stderr().includes("a token made for this run")) await new Promise((resolve) => setTimeout(resolve, 50));
      const shown = /Authorization: Bearer (\S+) \(a token made for this run/.exec(mcp.stderr());
      expect(shown?.[1]).toBeDefined();
      const status = await new Promise<number>((resolve, reject) => {
        const req = request(mcp.url, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream" } }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on("error", reject);
        req.end(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }));
      });
      expect(status).toBe(401);
      const client = await httpClient(mcp.url, { Authorization: `Bearer ${shown?.[1]}` });
      expect((await client.listTools()).tools).toEqual([]);
      await client.close();
    } finally {
      await mcp.stop();
    }
  });
});

describe("the installers carry the token, and the real flows work", () => {
  it("Claude Code's http hook sends $TOOLHOST_HOOK_TOKEN in its header: posted as Claude Code posts it, the server decides", async () => {
    const project = join(root, "http-hook");
    writeConfig(project, { plugins: [POLICY] });
    const installed = await toolhost(["hook", "install", "claude-code", "--server", server.url, "--http-hook", "--write", "--yes"], { cwd: project });
    expect(installed.code, installed.stderr).toBe(0);
    expect(installed.stderr).toContain("TOOLHOST_HOOK_TOKEN");
    const settings = JSON.parse(readFileSync(join(project, ".claude", "settings.json"), "utf8")) as {
      hooks: { PreToolUse: Array<{ hooks: Array<{ url: string; headers: Record<string, string>; allowedEnvVars: string[] }> }> };
    };
    const hook = settings.hooks.PreToolUse[0]?.hooks[0];
    expect(hook?.headers).toEqual({ Authorization: "Bearer $TOOLHOST_HOOK_TOKEN" });
    expect(hook?.allowedEnvVars).toEqual(["TOOLHOST_HOOK_TOKEN"]);
    // Claude Code fills in the variables it is allowed to, from its environment.
    const env: Record<string, string> = { TOOLHOST_HOOK_TOKEN: server.token };
    const headers = Object.fromEntries(Object.entries(hook?.headers ?? {}).map(([name, value]) => [name, value.replace(/\$(\w+)/g, (_m, v: string) => env[v] ?? "")]));
    const send = async (command: string) =>
      (await fetch(hook?.url ?? "", { method: "POST", body: claudePayload(project, "Bash", { command }), headers: { "content-type": "application/json", ...headers } })).json();
    expect(await send("ls")).toEqual(UNCONFINED);
    expect(denyOf((await send("rm -rf src")) as Record<string, unknown>)).toContain("recursive deletes");
  });

  it("the forwarding command reads the token file as its user, and the server answers (not the fallback)", async () => {
    const home = tempDir("toolhost-hook-home-");
    try {
      const installed = await toolhost(["hook", "install", "gemini", "--user", "--server", server.url, "--write", "--yes"], { cwd: dir, env: { HOME: home } });
      expect(installed.code, installed.stderr).toBe(0);
      const settings = JSON.parse(readFileSync(join(home, ".gemini", "settings.json"), "utf8")) as { hooks: { BeforeTool: Array<{ hooks: Array<{ command: string }> }> } };
      const command = settings.hooks.BeforeTool[0]?.hooks[0]?.command ?? "";
      const run = (env: Record<string, string | undefined>) =>
        spawnSync("sh", ["-c", command], { cwd: dir, input: geminiPayload(dir, "run_shell_command", { command: "rm -rf src" }), encoding: "utf8", env: { ...process.env, ...CLEAN_ENV, ...env } });
      const ran = run({});
      expect({ code: ran.status, stderr: ran.stderr }).toEqual({ code: 0, stderr: "" });
      expect(JSON.parse(ran.stdout)).toMatchObject({ decision: "deny", reason: expect.stringContaining("recursive deletes") });
      // A wrong token in the environment wins over the file, and the server refuses it: the token is what counts.
      const wrong = run({ TOOLHOST_HOOK_TOKEN: "wrong" });
      expect(JSON.parse(wrong.stdout)).toMatchObject({ decision: "deny", reason: expect.stringContaining("bearer token") });
    } finally {
      removeDir(home);
    }
  });
});

describe("hook serve and a body over the cap", () => {
  const MB = 1024 * 1024;
  /** A Write of `.env` whose content is `size` bytes, in each host's shape. */
  const bigPayload = (host: "claude-code" | "gemini", size: number): Buffer => {
    const text = host === "claude-code" ? claudePayload(dir, "Write", { file_path: join(dir, ".env"), content: "" }) : geminiPayload(dir, "write_file", { file_path: join(dir, ".env"), content: "" });
    const at = text.indexOf('"content":""') + '"content":"'.length;
    return Buffer.concat([Buffer.from(text.slice(0, at)), Buffer.alloc(size, "a"), Buffer.from(text.slice(at))]);
  };

  /** Posts with Node's own client (no agent: Connection: close, as a hook process would). */
  const postNode = (path: string, body: Buffer): Promise<{ status: number; text: string }> =>
    new Promise((resolve, reject) => {
      const req = request(`${server.url}${path}`, { method: "POST", agent: false, headers: { authorization: `Bearer ${server.token}`, "content-length": body.length } }, (res) => {
        let text = "";
        res.setEncoding("utf8").on("data", (chunk: string) => (text += chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
      });
      req.on("error", reject);
      req.end(body);
    });

  const postCurl = (path: string, file: string): Promise<{ status: number; text: string }> =>
    new Promise((resolve, reject) => {
      const child = spawn("curl", ["-s", "-w", "\n%{http_code}", "-X", "POST", "-H", `Authorization: Bearer ${server.token}`, "--data-binary", `@${file}`, `${server.url}${path}`]);
      let out = "";
      child.stdout.setEncoding("utf8").on("data", (chunk: string) => (out += chunk));
      child.on("error", reject);
      child.on("close", () => {
        const at = out.lastIndexOf("\n");
        resolve({ status: Number(out.slice(at + 1)), text: out.slice(0, at) });
      });
    });

  const expectDeny = (host: "claude-code" | "gemini", answer: { status: number; text: string }, what: string): void => {
    expect(answer.status, what).toBe(200);
    const body = JSON.parse(answer.text) as Record<string, unknown>;
    if (host === "claude-code") {
      expect(body, what).toEqual({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: expect.stringContaining("over the 8 MiB toolhost reads") } });
    } else {
      expect(body, what).toEqual({ decision: "deny", reason: expect.stringContaining("over the 8 MiB toolhost reads") });
    }
  };

  it("denies a 9 MB and a 100 MB payload in each host's shape, every time, through Node's client, fetch and curl", async () => {
    for (const host of ["claude-code", "gemini"] as const) {
      for (const size of [9 * MB, 100 * MB]) {
        const body = bigPayload(host, size);
        const file = join(root, `big-${host}-${size}.json`);
        writeFileSync(file, body);
        for (let round = 1; round <= 2; round++) {
          const what = `${host} ${size / MB} MB round ${round}`;
          expectDeny(host, await postNode(`/${host}`, body), `${what} (node:http)`);
          const fetched = await fetch(`${server.url}/${host}`, { method: "POST", body, headers: { authorization: `Bearer ${server.token}` } });
          expectDeny(host, { status: fetched.status, text: await fetched.text() }, `${what} (fetch)`);
          expectDeny(host, await postCurl(`/${host}`, file), `${what} (curl)`);
        }
        removeDir(file);
      }
    }
    // The server is still there and decides the next call.
    expect((await post("/claude-code", claudePayload(dir, "Bash", { command: "ls" }))).body).toEqual(UNCONFINED);
  });

  it("answers a body that never ends, before the connection closes", async () => {
    const answer = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = request(`${server.url}/gemini`, { method: "POST", agent: false, headers: { authorization: `Bearer ${server.token}` } }, (res) => {
        let text = "";
        res.setEncoding("utf8").on("data", (chunk: string) => (text += chunk));
        res.on("end", () => {
          resolve({ status: res.statusCode ?? 0, text });
          req.destroy();
        });
      });
      req.on("error", (error) => reject(error));
      const chunk = Buffer.alloc(MB, "a");
      const pump = (): void => {
        while (!req.destroyed && req.write(chunk));
        if (!req.destroyed) req.once("drain", pump);
      };
      pump();
    });
    expectDeny("gemini", answer, "endless body");
  });

  it("the hook command refuses a 9 MB payload itself, in-process and as a forwarding client (exit 2, the reason on stderr)", async () => {
    const body = bigPayload("claude-code", 9 * MB).toString("utf8");
    for (const args of [[], ["--server", server.url]]) {
      const result = await toolhost(["hook", "claude-code", ...args], { cwd: dir, input: body, env: CLEAN_ENV });
      expect(result.code, args.join(" ")).toBe(2);
      expect(result.stderr).toContain("over 8 MiB");
    }
  });
});

describe("hook install and the config the hook needs", () => {
  it("writes a config naming the sandbox and the policy when the project has none, and the installed hook then decides", async () => {
    const fresh = join(root, "fresh");
    mkdirSync(fresh);
    writeFileSync(join(fresh, ".env"), "TOKEN=1\n");
    const shown = await toolhost(["hook", "install", "claude-code"], { cwd: fresh });
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stderr).toContain(`${join(fresh, "toolhost.config.json")} does not exist; the hook needs a config with a policy, so this is written too`);
    expect(existsSync(join(fresh, "toolhost.config.json"))).toBe(false);
    const written = await toolhost(["hook", "install", "claude-code", "--write", "--yes"], { cwd: fresh });
    expect(written.code, written.stderr).toBe(0);
    expect(JSON.parse(readFileSync(join(fresh, "toolhost.config.json"), "utf8"))).toEqual({ plugins: ["@toolhost/tool-bash", ["@toolhost/hooks-policy", { extends: ["recommended"] }]] });
    expect(existsSync(join(fresh, ".claude", "settings.json"))).toBe(true);
    const decided = await toolhost(["hook", "claude-code"], { cwd: fresh, input: claudePayload(fresh, "Read", { file_path: join(fresh, ".env") }), env: CLEAN_ENV });
    expect(decided.code, decided.stderr).toBe(0);
    expect(JSON.parse(decided.stdout)).toMatchObject({ hookSpecificOutput: { permissionDecision: "deny" } });
  });

  it("stops, writing nothing, when the hook would refuse every call: a plugin not installed, no policy, untrusted code", async () => {
    const cases: Array<[string, () => void, string[]]> = [
      ["missing", () => writeConfig(join(root, "missing"), { plugins: ["@toolhost/tool-fs", "@toolhost/no-such-policy"] }), ['Plugin "@toolhost/no-such-policy" was not found', "check the name"]],
      ["no-policy", () => writeConfig(join(root, "no-policy"), { plugins: ["@toolhost/tool-fs"] }), ["provides a policy", "npm i -D @toolhost/hooks-policy"]],
      ["untrusted", () => writeFile(join(root, "untrusted", "toolhost.config.mjs"), "export default { plugins: [] };\n"), [`run "toolhost trust ${join(root, "untrusted")}"`]],
    ];
    for (const [name, write, says] of cases) {
      write();
      const result = await toolhost(["hook", "install", "claude-code", "--write", "--yes"], { cwd: join(root, name) });
      expect(result.code, name).toBe(2);
      expect(result.stderr, name).toContain("The hook would ");
      for (const text of says) expect(result.stderr, name).toContain(text);
      expect(result.stderr, name).toContain("TOOLHOST_HOOK_CONFIG");
      expect(existsSync(join(root, name, ".claude")), name).toBe(false);
    }
  });
});

describe("hook serve and trust given while it runs", () => {
  it("refuses an untrusted project's plugin with the trust command, and uses it from the next call once trusted", async () => {
    const repo = project(join(root, "repo"), { trusted: false });
    writeFile(
      join(repo, "plugins", "gate.mjs"),
      `import { definePlugin } from "@toolhost/core";
export default definePlugin({ name: "gate", apply(harness) {
  harness.hooks.beforeToolCall.tap("gate", (ctx) => (ctx.args.command === "make deploy" ? { block: true, reason: "the repo's own gate says no" } : undefined));
} });
`,
    );
    writeConfig(repo, { plugins: ["./plugins/gate.mjs", POLICY] });
    const before = await post("/claude-code", claudePayload(repo, "Bash", { command: "make deploy" }));
    expect(denyOf(before.body)).toContain(`run "toolhost trust ${repo}"`);
    expect(denyOf(before.body)).toContain("TOOLHOST_UNTRUSTED_CODE");
    expect((await toolhost(["trust", repo], { cwd: repo })).code).toBe(0);
    const after = await post("/claude-code", claudePayload(repo, "Bash", { command: "make deploy" }));
    expect(denyOf(after.body)).toContain("the repo's own gate says no");
    expect((await post("/claude-code", claudePayload(repo, "Bash", { command: "ls" }))).body).toEqual(UNCONFINED);
  });
});
