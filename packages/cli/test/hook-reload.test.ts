import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { BIN, project, removeDir, tempDir, toolhost, trust, writeConfig, writeFile } from "./_helpers.js";

// `toolhost hook serve` keeps a loaded config per working directory: these change the files it was
// loaded from while a real server runs, and send the next call. Generous time on a busy machine.

let dir: string;
let server: ChildProcess | undefined;
let url: string;
/** The server's token: every request carries it (a token is needed on loopback too). */
const TOKEN = "reload-test-token";

/** Starts `toolhost hook serve` on a free loopback port in `dir`; stopped by PID after each test. */
async function startServer(): Promise<void> {
  const child = spawn(process.execPath, [BIN, "hook", "serve", "--http", "127.0.0.1:0", "--token", TOKEN], { cwd: dir, stdio: ["ignore", "pipe", "pipe"] });
  server = child;
  url = await new Promise<string>((resolve, reject) => {
    let text = "";
    child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
      text += chunk;
      const found = /http:\/\/\S+/.exec(text);
      if (found) resolve(found[0]);
    });
    child.on("exit", (code) => reject(new Error(`hook server exited with ${code}`)));
  });
}

beforeEach(() => {
  // The tests' plugins are files of the project: code, which loads only from a folder the user trusts.
  dir = trust(tempDir("toolhost-hook-reload-"));
});
afterEach(() => {
  if (server?.pid !== undefined) process.kill(server.pid, "SIGTERM");
  server = undefined;
  removeDir(dir);
});

const payload = (command: string, cwd = dir) =>
  JSON.stringify({ session_id: "s1", cwd, hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command }, tool_use_id: "toolu_01" });

/** The server's decision on a Bash call, and its reason. */
async function judged(command: string, cwd = dir): Promise<{ decision: string; reason: string; body: Record<string, unknown> }> {
  const response = await fetch(`${url}/claude-code`, { method: "POST", body: payload(command, cwd), headers: { "content-type": "application/json", authorization: `Bearer ${TOKEN}` } });
  expect(response.status).toBe(200);
  const body = (await response.json()) as { hookSpecificOutput?: { permissionDecision: string; permissionDecisionReason: string } };
  return { decision: body.hookSpecificOutput?.permissionDecision ?? "allow", reason: body.hookSpecificOutput?.permissionDecisionReason ?? "", body };
}

const policy = (extendsList: unknown[], more: Record<string, unknown> = {}) => ({
  plugins: [["@toolhost/hooks-policy", { extends: extendsList, default: "allow", ...more }]],
});
const denyLs = { rules: [{ id: "no-ls", tool: "*", command: "ls *", decision: "deny", reason: "listing is off today" }] };

/** A plugin that decides every call by `verdict`, and provides a policy service unless another plugin does. */
const gate = (verdict: string, providesPolicy = true) => `import { definePlugin } from "@toolhost/core";
export default definePlugin({
  name: "gate",
  apply(harness) {
    if (${providesPolicy}) harness.provideService("policy", { explain: async () => { throw new Error("unused"); }, protectedPaths: async () => ({ denyRead: [], denyWrite: [] }) });
    harness.hooks.beforeToolCall.tapPromise("gate", async () => (${verdict}));
  },
});
`;

describe("toolhost hook serve reloads what changed", () => {
  it("judges the next call by an edited policy file of extends, deny to allow and back", async () => {
    writeConfig(dir, policy(["./org.json"]));
    writeFile(join(dir, "org.json"), JSON.stringify({ rules: [] }));
    await startServer();
    expect((await judged("ls src")).decision).toBe("allow");

    writeFile(join(dir, "org.json"), JSON.stringify(denyLs));
    const denied = await judged("ls src");
    expect(denied.decision).toBe("deny");
    expect(denied.reason).toContain("listing is off today");

    writeFile(join(dir, "org.json"), JSON.stringify({ rules: [] }));
    expect((await judged("ls src")).decision).toBe("allow");
  });

  it("answers every call by one version of the file or the other while it is rewritten under concurrent calls", async () => {
    writeConfig(dir, policy(["./org.json"]));
    writeFile(join(dir, "org.json"), JSON.stringify({ rules: [] }));
    await startServer();
    const answers: Array<Promise<{ decision: string; reason: string }>> = [];
    for (let round = 0; round < 10; round++) {
      // As editors save: a new file renamed over the old, so no call reads it half-written.
      writeFile(join(dir, "org.json.new"), JSON.stringify(round % 2 ? { rules: [] } : denyLs));
      renameSync(join(dir, "org.json.new"), join(dir, "org.json"));
      for (let i = 0; i < 5; i++) answers.push(judged("ls"));
      await answers.at(-1);
    }
    for (const answer of await Promise.all(answers)) {
      // Never a failure of the server's own (a host disposed under a call): allowed, or denied by the rule.
      if (answer.decision !== "allow") expect(answer).toMatchObject({ decision: "deny", reason: expect.stringContaining("listing is off today") });
    }
    // The last version written decides.
    expect((await judged("ls")).decision).toBe("allow");
  });

  it("follows a layer file that a layer file extends, and refuses while one is missing", async () => {
    writeConfig(dir, policy(["./org.json"]));
    writeFile(join(dir, "org.json"), JSON.stringify({ extends: ["./team.yaml"], rules: [] }));
    writeFile(join(dir, "team.yaml"), "rules: []\n");
    await startServer();
    expect((await judged("ls")).decision).toBe("allow");

    writeFile(join(dir, "team.yaml"), "rules:\n  - { tool: '*', command: 'ls *', decision: deny, reason: team says no }\n");
    expect(await judged("ls")).toMatchObject({ decision: "deny", reason: expect.stringContaining("team says no") });

    renameSync(join(dir, "team.yaml"), join(dir, "team.yml"));
    const missing = await judged("ls");
    expect(missing.decision).toBe("deny");
    expect(missing.reason).toContain("team.yaml");
  });

  it("uses a config created nearer the call's folder than the one loaded", async () => {
    writeConfig(dir, policy([]));
    const sub = join(dir, "sub");
    mkdirSync(sub);
    await startServer();
    expect((await judged("ls", sub)).decision).toBe("allow");

    writeConfig(sub, policy([], denyLs));
    expect(await judged("ls", sub)).toMatchObject({ decision: "deny", reason: expect.stringContaining("listing is off today") });
    // The folder above still has its own config, loaded for its own calls.
    expect((await judged("ls")).decision).toBe("allow");
  });

  it("judges as without a config once the config is deleted", async () => {
    writeConfig(dir, policy([], denyLs));
    await startServer();
    expect((await judged("ls")).decision).toBe("deny");

    rmSync(join(dir, "toolhost.config.json"));
    const served = await judged("rm -rf build");
    // What the command form answers without a config: the CLI's default plugins.
    const oneShot = await toolhost(["hook", "claude-code"], { cwd: dir, input: payload("rm -rf build") });
    expect(oneShot.code).toBe(0);
    expect(served.body).toEqual(JSON.parse(oneShot.stdout));
    expect((await judged("ls")).decision).toBe("allow");
  });

  it("reloads a policy package whose files were replaced (a CommonJS one, read anew)", async () => {
    const pkg = join(dir, "node_modules", "org-policy");
    const install = (rules: unknown[], version: string) => {
      rmSync(pkg, { recursive: true, force: true });
      writeFile(join(pkg, "package.json"), JSON.stringify({ name: "org-policy", version, main: "index.js" }));
      writeFile(join(pkg, "index.js"), `module.exports = ${JSON.stringify({ name: "org", rules })};\n`);
    };
    install([], "1.0.0");
    writeConfig(dir, policy(["org-policy"]));
    await startServer();
    expect((await judged("ls")).decision).toBe("allow");

    install(denyLs.rules, "1.0.1");
    expect(await judged("ls")).toMatchObject({ decision: "deny", reason: expect.stringContaining("listing is off today") });
  });

  it("follows a package's link re-pointed to a new version's folder, the old one left in place (as pnpm installs)", async () => {
    project(dir);
    // A policy package and a plugin package, each a link into a store folder per version.
    const install = (name: string, version: string, files: Record<string, string>) => {
      const stored = join(dir, "node_modules", ".pnpm", `${name}@${version}`, "node_modules", name);
      for (const [file, text] of Object.entries(files)) writeFile(join(stored, file), text);
      const link = join(dir, "node_modules", name);
      rmSync(link, { force: true });
      symlinkSync(relative(dirname(link), stored), link, "dir");
    };
    const policyPackage = (version: string, rules: unknown[]) =>
      install("org-policy", version, { "package.json": JSON.stringify({ name: "org-policy", version, main: "policy.json" }), "policy.json": JSON.stringify({ name: "org", rules }) });
    const gatePackage = (version: string, verdict: string) =>
      install("gate-plugin", version, {
        "package.json": JSON.stringify({ name: "gate-plugin", version, type: "module", main: "index.js", toolhost: { provides: ["policy"] } }),
        "index.js": gate(verdict, false),
      });
    policyPackage("1.0.0", []);
    gatePackage("1.0.0", "undefined");
    writeConfig(dir, { plugins: ["gate-plugin", ["@toolhost/hooks-policy", { extends: ["org-policy"], default: "allow" }]] });
    await startServer();
    expect((await judged("ls")).decision).toBe("allow");

    policyPackage("1.0.1", denyLs.rules);
    expect(await judged("ls")).toMatchObject({ decision: "deny", reason: expect.stringContaining("listing is off today") });
    policyPackage("1.0.2", []);
    expect((await judged("ls")).decision).toBe("allow");

    gatePackage("2.0.0", `{ block: true, reason: "gate 2.0.0 says no" }`);
    expect(await judged("ls")).toMatchObject({ decision: "deny", reason: expect.stringContaining("gate 2.0.0 says no") });
  });

  it("runs the new code of a plugin module replaced while it serves", async () => {
    project(dir);
    writeFile(join(dir, "gate.mjs"), gate(`{ block: true, reason: "gate version 1 says no" }`));
    writeConfig(dir, { plugins: ["./gate.mjs"] });
    await startServer();
    expect(await judged("ls")).toMatchObject({ decision: "deny", reason: expect.stringContaining("gate version 1 says no") });

    writeFile(join(dir, "gate.mjs"), gate(`{ block: true, reason: "gate version 2 says no" }`));
    expect(await judged("ls")).toMatchObject({ decision: "deny", reason: expect.stringContaining("gate version 2 says no") });
    writeFile(join(dir, "gate.mjs"), gate("undefined"));
    expect((await judged("ls")).decision).toBe("allow");
  });

  it("denies with the config's syntax error while it is broken, then works again once fixed", async () => {
    writeConfig(dir, policy([], denyLs));
    await startServer();
    expect((await judged("ls")).decision).toBe("deny");
    expect((await judged("pwd")).decision).toBe("allow");

    writeFileSync(join(dir, "toolhost.config.json"), '{ "plugins": [ ["@toolhost/hooks-policy", { "default": "allow" ');
    for (const command of ["pwd", "pwd"]) {
      const broken = await judged(command);
      expect(broken.decision).toBe("deny");
      expect(broken.reason).toContain("syntax error");
      expect(broken.reason).toContain("TOOLHOST_CONFIG_SYNTAX");
    }

    writeConfig(dir, policy([], denyLs));
    expect((await judged("pwd")).decision).toBe("allow");
    expect((await judged("ls")).decision).toBe("deny");
  });
});
