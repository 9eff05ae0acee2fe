import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BIN, removeDir, tempDir, toolhost, writeConfig, writeFile } from "./_helpers.js";
import { claudePayload, geminiPayload, startHookServer, type HookServer } from "./_hook.js";

// Recorded payloads in each host's documented shape, through the built CLI as a child process.
// Each test starts several processes in turn: generous time on a busy machine.
let dir: string;
let audit: string;

const POLICY = {
  default: "allow",
  rules: [
    { id: "no-rm-rf", tool: "*", command: "rm -rf *", decision: "deny", reason: "recursive deletes are not allowed" },
    { id: "no-env", tool: "*", path: "**/.env", decision: "deny", reason: "secrets stay out" },
    { id: "workspace-writes", tool: "*", path: "/etc/**", decision: "deny", reason: "system files" },
    { id: "push-asks", tool: "*", command: "git push *", decision: "ask", reason: "pushes leave the machine" },
    { id: "no-deploy-tool", tool: "mcp__deploy__*", decision: "deny", reason: "deploys go through CI" },
  ],
  audit: "audit.jsonl",
};

beforeAll(() => {
  dir = tempDir("toolhost-hook-");
  mkdirSync(join(dir, "src"));
  writeFileSync(join(dir, ".env"), "TOKEN=1\n");
  writeFileSync(join(dir, "src", "a.ts"), "export {};\n");
  writeConfig(dir, { plugins: ["@toolhost/tool-fs", "@toolhost/tool-bash", ["@toolhost/hooks-policy", POLICY]] });
  audit = join(dir, "audit.jsonl");
});
afterAll(() => removeDir(dir));

const claude = (tool_name: string, tool_input: Record<string, unknown>, cwd = dir) => claudePayload(cwd, tool_name, tool_input);
const gemini = (tool_name: string, tool_input: Record<string, unknown>) => geminiPayload(dir, tool_name, tool_input);

async function claudeHook(payload: string) {
  const result = await toolhost(["hook", "claude-code"], { cwd: dir, input: payload });
  const answer = result.code === 0 ? (JSON.parse(result.stdout) as { hookSpecificOutput?: { permissionDecision: string; permissionDecisionReason: string } }) : undefined;
  return { ...result, decision: answer?.hookSpecificOutput?.permissionDecision ?? (answer ? "defer" : undefined), reason: answer?.hookSpecificOutput?.permissionDecisionReason };
}

describe("toolhost hook claude-code", () => {
  it("denies an rm -rf in any spelling, with the rule's reason, exit 0", async () => {
    for (const command of ["rm -rf build", "rm -r -f build", "rm --recursive --force build", "cd src && /bin/rm -fr ../build"]) {
      const result = await claudeHook(claude("Bash", { command, description: "clean" }));
      expect(result.code, command).toBe(0);
      expect(result.decision, command).toBe("deny");
      expect(result.reason, command).toContain("recursive deletes are not allowed");
      expect(result.stderr).toBe("");
    }
  });

  it("allows an allowed command rewritten to run in toolhost's sandbox, saying so, with the rest of its input as it was", async () => {
    const confined = await toolhost(["hook", "claude-code"], { cwd: dir, input: claude("Bash", { command: "ls -la src", description: "list" }) });
    expect(confined.code).toBe(0);
    expect(JSON.parse(confined.stdout)).toEqual({
      hookSpecificOutput: {
        hookEventName: "PreToolUse",
        permissionDecision: "allow",
        permissionDecisionReason: expect.stringContaining("toolhost: runs in toolhost's sandbox: writes only in"),
        updatedInput: { command: expect.stringMatching(/^TOOLHOST_SANDBOX=1 \/bin\/sh -c '.*\/bwrap .* -c 'ls -la src'$/s), description: "list" },
      },
    });
  });

  it("with --no-confine, defers an allowed command to Claude Code's own permissions (no decision), or allows it with --on-allow allow", async () => {
    const deferred = await toolhost(["hook", "claude-code", "--no-confine"], { cwd: dir, input: claude("Bash", { command: "ls -la src" }) });
    expect(deferred.code).toBe(0);
    expect(JSON.parse(deferred.stdout)).toEqual({});
    const allowed = await toolhost(["hook", "claude-code", "--no-confine", "--on-allow", "allow"], { cwd: dir, input: claude("Bash", { command: "ls" }) });
    expect(JSON.parse(allowed.stdout)).toEqual({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "allow", permissionDecisionReason: expect.any(String) } });
  });

  it("maps ask onto Claude Code's ask, with the reason shown in its prompt", async () => {
    const result = await claudeHook(claude("Bash", { command: "git push origin main" }));
    expect(result.decision).toBe("ask");
    expect(result.reason).toContain("pushes leave the machine");
  });

  it("denies Read of .env, and Edit outside the workspace", async () => {
    const read = await claudeHook(claude("Read", { file_path: join(dir, ".env") }));
    expect(read.decision).toBe("deny");
    expect(read.reason).toContain("secrets stay out");
    const edit = await claudeHook(claude("Edit", { file_path: "/etc/hosts", old_string: "a", new_string: "b" }));
    expect(edit.decision).toBe("deny");
    expect(edit.reason).toContain("system files");
    const fine = await claudeHook(claude("Edit", { file_path: join(dir, "src", "a.ts"), old_string: "export", new_string: "export" }));
    expect(fine.decision).toBe("defer");
  });

  it("does not allow a Grep over a tree that holds a denied file", async () => {
    const result = await claudeHook(claude("Grep", { pattern: "TOKEN", path: dir }));
    expect(result.decision).toBe("ask");
    expect(result.reason).toContain(join(dir, ".env"));
    const inside = await claudeHook(claude("Grep", { pattern: "export", path: join(dir, "src") }));
    expect(inside.decision).toBe("defer");
  });

  it("judges an MCP tool by its name, and an unknown tool by the default", async () => {
    const mcp = await claudeHook(claude("mcp__deploy__release", { version: "1.2.3" }));
    expect(mcp.decision).toBe("deny");
    expect(mcp.reason).toContain("deploys go through CI");
    const unknown = await claudeHook(claude("SomeNewTool", { anything: 1 }));
    expect(unknown.decision).toBe("defer");
  });

  it("refuses a known tool whose input lacks the field it is judged by", async () => {
    const result = await claudeHook(claude("Read", { path_typo: join(dir, ".env") }));
    expect(result.decision).toBe("deny");
    expect(result.reason).toContain("does not say what it touches");
  });

  it("blocks with exit 2 and the reason on stderr for malformed JSON, an empty stdin, a wrong event, a bad cwd", async () => {
    const cases = [
      ["{not json", "not valid JSON"],
      ["", "No Claude Code hook payload"],
      [JSON.stringify({ hook_event_name: "PostToolUse", tool_name: "Bash", tool_input: { command: "ls" }, cwd: dir }), "answers PreToolUse events"],
      [claude("Bash", { command: "ls" }, "relative/dir"), "not an existing absolute folder"],
      [JSON.stringify([1, 2]), "not a JSON object"],
    ] as const;
    for (const [input, message] of cases) {
      const result = await toolhost(["hook", "claude-code"], { cwd: dir, input });
      expect(result.code, input).toBe(2);
      expect(result.stdout, input).toBe("");
      expect(result.stderr, input).toContain(message);
      expect(result.stderr, input).toContain("TOOLHOST_HOOK_BAD_PAYLOAD");
    }
  });

  it("blocks with exit 2 when the config is broken", async () => {
    const broken = tempDir("toolhost-hook-broken-");
    try {
      writeFileSync(join(broken, "toolhost.config.json"), "{ plugins: [");
      const result = await toolhost(["hook", "claude-code"], { cwd: broken, input: claude("Bash", { command: "ls" }, broken) });
      expect(result.code).toBe(2);
      expect(result.stdout).toBe("");
      expect(result.stderr).toContain("toolhost refused this call");
      expect(result.stderr).toContain("toolhost.config.json");
    } finally {
      removeDir(broken);
    }
  });

  it("records the host's calls in the audit log like toolhost's own", async () => {
    await claudeHook(claude("Bash", { command: "rm -rf /tmp/nothing-here" }));
    const lines = readFileSync(audit, "utf8").trim().split("\n").map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.some((line) => line.tool === "Bash" && line.decision === "deny")).toBe(true);
  });
});

describe("toolhost hook gemini", () => {
  const run = async (payload: string, args: string[] = []) => {
    const result = await toolhost(["hook", "gemini", ...args], { cwd: dir, input: payload });
    return { ...result, answer: result.code === 0 ? (JSON.parse(result.stdout) as { decision?: string; reason?: string; hookSpecificOutput?: unknown }) : undefined };
  };

  it("denies with decision/reason, exit 0; an ask becomes a deny that says so; an allowed command is rewritten to run confined", async () => {
    const rm = await run(gemini("run_shell_command", { command: "rm -rf node_modules", description: "x" }));
    expect(rm.code).toBe(0);
    expect(rm.answer).toMatchObject({ decision: "deny", reason: expect.stringContaining("recursive deletes are not allowed") });
    const push = await run(gemini("run_shell_command", { command: "git push" }));
    expect(push.answer?.decision).toBe("deny");
    expect(push.answer?.reason).toContain("cannot ask");
    const ls = await run(gemini("run_shell_command", { command: "ls", dir_path: join(dir, "src") }));
    expect(ls.answer).toEqual({
      decision: "allow",
      reason: expect.stringContaining("toolhost: runs in toolhost's sandbox"),
      systemMessage: expect.stringContaining("toolhost: runs in toolhost's sandbox"),
      hookSpecificOutput: { hookEventName: "BeforeTool", tool_input: { command: expect.stringContaining("/bwrap --args 3 -- "), dir_path: join(dir, "src") } },
    });
    // bwrap's arguments are in the file the line opens on descriptor 3 (NUL-separated): there, the folder the host gave.
    const line = String((ls.answer?.hookSpecificOutput as { tool_input?: { command?: string } } | undefined)?.tool_input?.command);
    const argsFile = / 3<(\S+)/.exec(line)?.[1] as string;
    expect(readFileSync(argsFile, "utf8").split("\0")).toEqual(expect.arrayContaining(["--chdir", join(dir, "src")]));
    const unconfined = await run(gemini("run_shell_command", { command: "ls" }), ["--no-confine"]);
    expect(unconfined.answer).toEqual({});
    // A folder the model chose outside what the sandbox shows (it would bring that folder in) is not offered the sandbox.
    const outside = await run(gemini("run_shell_command", { command: "ls", dir_path: "/usr" }));
    expect(outside.answer).toEqual({ systemMessage: expect.stringContaining("runs unconfined: its folder /usr is outside what the sandbox shows") });
  });

  it("maps read_file, write_file, search_file_content and web_fetch", async () => {
    expect((await run(gemini("read_file", { file_path: join(dir, ".env") }))).answer?.decision).toBe("deny");
    expect((await run(gemini("read_file", { absolute_path: join(dir, ".env") }))).answer?.decision).toBe("deny");
    expect((await run(gemini("write_file", { file_path: "/etc/passwd", content: "x" }))).answer?.decision).toBe("deny");
    const tree = await run(gemini("search_file_content", { pattern: "TOKEN", dir_path: dir }));
    expect(tree.answer?.decision).toBe("deny");
    expect(tree.answer?.reason).toContain(join(dir, ".env"));
    expect((await run(gemini("read_file", { file_path: join(dir, "src", "a.ts") }))).answer).toEqual({});
  });

  it("blocks malformed input with exit 2", async () => {
    const result = await run("[]");
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("not a JSON object");
  });
});

describe("toolhost hook serve", () => {
  let server: HookServer;
  let url: string;

  beforeAll(async () => {
    server = await startHookServer(dir);
    url = server.url;
  });
  afterAll(() => server.stop());

  const post = async (path: string, body: string, headers: Record<string, string> = {}) => {
    // Every request carries the server's token (a token is needed on loopback too).
    const response = await fetch(`${url}${path}`, { method: "POST", body, headers: { "content-type": "application/json", authorization: `Bearer ${server.token}`, ...headers } });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };

  it("answers the same payloads as the command form", async () => {
    const rm = await post("/claude-code", claude("Bash", { command: "rm -rf build" }));
    expect(rm.status).toBe(200);
    expect(rm.body).toMatchObject({ hookSpecificOutput: { permissionDecision: "deny" } });
    const read = await post("/claude-code", claude("Read", { file_path: join(dir, ".env") }));
    expect(read.body).toMatchObject({ hookSpecificOutput: { permissionDecision: "deny" } });
    const ok = await post("/claude-code?confine=off", claude("Bash", { command: "ls" }));
    expect(ok.body).toEqual({});
    const confined = await post("/claude-code", claude("Bash", { command: "ls" }));
    expect(confined.body).toMatchObject({ hookSpecificOutput: { permissionDecision: "allow", updatedInput: { command: expect.stringContaining("/bwrap ") } } });
    const gem = await post("/gemini", gemini("run_shell_command", { command: "rm -rf x" }));
    expect(gem.body).toMatchObject({ decision: "deny" });
  });

  it("takes what allow becomes per request (?on-allow=defer|allow); another value denies", async () => {
    const ls = claude("Bash", { command: "ls" });
    expect((await post("/claude-code?on-allow=allow&confine=off", ls)).body).toEqual({
      hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "allow", permissionDecisionReason: expect.any(String) },
    });
    expect((await post("/claude-code?on-allow=defer&confine=off", ls)).body).toEqual({});
    expect((await post("/gemini?on-allow=allow&confine=off", gemini("run_shell_command", { command: "ls" }))).body).toEqual({ decision: "allow" });
    for (const query of ["?on-allow=yes", "?on-allow=allow&on-allow=defer", "?on-allow="]) {
      const bad = await post(`/claude-code${query}`, ls);
      expect(bad.status, query).toBe(200);
      expect(bad.body, query).toMatchObject({ hookSpecificOutput: { permissionDecision: "deny", permissionDecisionReason: expect.stringContaining("on-allow") } });
    }
    for (const query of ["?confine=on", "?confine=off&confine=off"]) {
      expect((await post(`/claude-code${query}`, ls)).body, query).toMatchObject({ hookSpecificOutput: { permissionDecision: "deny", permissionDecisionReason: expect.stringContaining("confine") } });
    }
    // A deny stays a deny whatever allow would have become.
    expect((await post("/claude-code?on-allow=allow", claude("Bash", { command: "rm -rf build" }))).body).toMatchObject({ hookSpecificOutput: { permissionDecision: "deny" } });
  });

  it("answers 200 with a deny for malformed JSON (other statuses would let the call through)", async () => {
    const bad = await post("/claude-code", "{oops");
    expect(bad.status).toBe(200);
    expect(bad.body).toMatchObject({ hookSpecificOutput: { permissionDecision: "deny", permissionDecisionReason: expect.stringContaining("not valid JSON") } });
  });

  it("refuses another Host or an Origin (DNS rebinding), and unknown paths", async () => {
    const port = new URL(url).port;
    const rebound = await new Promise<number>((resolve, reject) => {
      import("node:http").then(({ request }) => {
        const req = request({ host: "127.0.0.1", port, path: "/claude-code", method: "POST", headers: { host: `evil.example:${port}` } }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on("error", reject);
        req.end(claude("Bash", { command: "ls" }));
      }, reject);
    });
    expect(rebound).toBe(403);
    expect((await post("/claude-code", claude("Bash", { command: "ls" }), { origin: "http://evil.example" })).status).toBe(403);
    expect((await post("/other", "{}")).status).toBe(404);
  });

  it("answers a failure nothing expected as a deny in the shape of the host the path is for", async () => {
    // The server's last resort (a bug of ours) cannot be reached with a payload: the built function it calls.
    const { failedAnswer } = (await import(new URL("hook/serve.js", pathToFileURL(BIN)).href)) as typeof import("../src/hook/serve.js");
    const claudeAnswer = failedAnswer("/claude-code", new TypeError("boom"));
    expect(claudeAnswer).toEqual({
      status: 200,
      body: { hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: expect.stringContaining("toolhost failed, so the call is refused: boom") } },
    });
    for (const path of ["/gemini", "/gemini?session=1"]) {
      const geminiAnswer = failedAnswer(path, null);
      expect(geminiAnswer.status, path).toBe(200);
      expect(geminiAnswer.body, path).toEqual({ decision: "deny", reason: expect.stringContaining("toolhost failed, so the call is refused") });
      expect(geminiAnswer.body, path).not.toHaveProperty("hookSpecificOutput");
    }
    expect(failedAnswer("/other", new Error("boom")).status).toBe(500);
  });

  it("will not listen beyond loopback without a token", async () => {
    // A token is the default on every address now; only --no-token goes without one, on loopback alone.
    const result = await toolhost(["hook", "serve", "--http", "0.0.0.0:0", "--no-token"], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("without a token");
  });

  it("with a token, a call without it is denied (200), with it decided", async () => {
    const tokenServer = await startHookServer(dir, ["--token", "s3cret-token"]);
    try {
      const base = tokenServer.url;
      const send = (headers: Record<string, string>) =>
        fetch(`${base}/claude-code`, { method: "POST", body: claude("Bash", { command: "ls" }), headers }).then(async (r) => ({ status: r.status, body: await r.json() }));
      const without = await send({});
      expect(without).toMatchObject({ status: 200, body: { hookSpecificOutput: { permissionDecision: "deny", permissionDecisionReason: expect.stringContaining("bearer token") } } });
      const wrong = await send({ authorization: "Bearer nope" });
      expect(wrong.body).toMatchObject({ hookSpecificOutput: { permissionDecision: "deny" } });
      const right = await send({ authorization: "Bearer s3cret-token" });
      expect(right.body).toMatchObject({ hookSpecificOutput: { permissionDecision: "allow", updatedInput: { command: expect.stringContaining("/bwrap ") } } });
    } finally {
      await tokenServer.stop();
    }
  });
});

describe("toolhost hook install", () => {
  it("prints the settings with the hook added and writes nothing without --write", async () => {
    const project = tempDir("toolhost-hook-install-");
    try {
      const result = await toolhost(["hook", "install", "claude-code"], { cwd: project });
      expect(result.code).toBe(0);
      const settings = JSON.parse(result.stdout) as { hooks: { PreToolUse: Array<{ matcher: string; hooks: Array<{ command: string }> }> } };
      expect(settings.hooks.PreToolUse[0]?.matcher).toBe("*");
      expect(settings.hooks.PreToolUse[0]?.hooks[0]?.command).toBe('"$CLAUDE_PROJECT_DIR"/node_modules/.bin/toolhost hook claude-code');
      expect(() => readFileSync(join(project, ".claude", "settings.json"))).toThrow();
    } finally {
      removeDir(project);
    }
  });

  it("merges into an existing settings file without losing what is there, once", async () => {
    const project = tempDir("toolhost-hook-install-");
    try {
      const file = join(project, ".claude", "settings.json");
      const existing = {
        permissions: { allow: ["Bash(npm test)"], deny: ["Read(./.env)"] },
        hooks: { PreToolUse: [{ matcher: "Write", hooks: [{ type: "command", command: "prettier --check" }] }], Stop: [{ hooks: [{ type: "command", command: "notify" }] }] },
        model: "opus",
      };
      writeFile(file, JSON.stringify(existing));
      const noTerminal = await toolhost(["hook", "install", "claude-code", "--write"], { cwd: project });
      expect(noTerminal.code).toBe(2);
      expect(noTerminal.stderr).toContain("--yes");
      const written = await toolhost(["hook", "install", "claude-code", "--write", "--yes"], { cwd: project });
      expect(written.code).toBe(0);
      const settings = JSON.parse(readFileSync(file, "utf8")) as typeof existing;
      expect(settings.permissions).toEqual(existing.permissions);
      expect(settings.model).toBe("opus");
      expect(settings.hooks.Stop).toEqual(existing.hooks.Stop);
      expect(settings.hooks.PreToolUse).toHaveLength(2);
      expect(settings.hooks.PreToolUse[0]).toEqual(existing.hooks.PreToolUse[0]);
      const again = await toolhost(["hook", "install", "claude-code", "--write", "--yes"], { cwd: project });
      expect(again.code).toBe(0);
      expect(again.stderr).toContain("nothing to change");
      expect((JSON.parse(readFileSync(file, "utf8")) as typeof existing).hooks.PreToolUse).toHaveLength(2);
    } finally {
      removeDir(project);
    }
  });

  it("adds a BeforeTool hook for Gemini CLI, and refuses a settings file that is not JSON", async () => {
    const project = tempDir("toolhost-hook-install-");
    try {
      const result = await toolhost(["hook", "install", "gemini", "--write", "--yes"], { cwd: project });
      expect(result.code).toBe(0);
      const settings = JSON.parse(readFileSync(join(project, ".gemini", "settings.json"), "utf8")) as { hooks: { BeforeTool: Array<{ hooks: Array<{ command: string }> }> } };
      expect(settings.hooks.BeforeTool[0]?.hooks[0]?.command).toContain("toolhost hook gemini");
      writeFileSync(join(project, ".gemini", "settings.json"), "{ broken");
      const broken = await toolhost(["hook", "install", "gemini", "--write", "--yes"], { cwd: project });
      expect(broken.code).toBe(2);
      expect(broken.stderr).toContain("is not valid JSON");
      expect(readFileSync(join(project, ".gemini", "settings.json"), "utf8")).toBe("{ broken");
    } finally {
      removeDir(project);
    }
  });
});
