import { spawn } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BIN, project, removeDir, tempDir, toolhost, writeConfig } from "./_helpers.js";
import { MCP_AUTH, processesWith, serveHttp } from "./_mcp.js";


// The round trip: toolhost A serves its fs and bash tools over Streamable HTTP with its policy;
// toolhost B uses them through @toolhost/tool-mcp, with a policy of its own. Both are the built
// CLI, as child processes.
let root: string;
let a: string;
let b: string;
let aConfig: string;
let server: Awaited<ReturnType<typeof serveHttp>>;

beforeAll(async () => {
  root = tempDir();
  a = project(join(root, "server"));
  b = project(join(root, "client"));
  writeFileSync(join(a, "notes.txt"), "hello from A\n");
  writeFileSync(join(a, "secret.txt"), "the launch code is 0000\n");
  aConfig = writeConfig(a, {
    plugins: [
      "@toolhost/tool-fs",
      "@toolhost/tool-bash",
      [
        "@toolhost/hooks-policy",
        {
          default: "deny",
          rules: [
            { tool: ["read", "ls"], decision: "allow" },
            { tool: "read", args: { path: "secret.txt" }, decision: "deny", reason: "server side: secrets stay here" },
            // bash declares the command it runs: command rules judge it (args rules would leave it to the default).
            { tool: "bash", command: "echo *", decision: "allow" },
            { tool: "bash", command: "sleep *", decision: "allow" },
          ],
        },
      ],
    ],
  });
  server = await serveHttp(a);
  writeConfig(b, {
    plugins: [
      // The server needs its token on loopback too.
      ["@toolhost/tool-mcp", { servers: { remote: { url: server.url, headers: MCP_AUTH } } }],
      [
        "@toolhost/hooks-policy",
        {
          default: "deny",
          rules: [
            { tool: "remote__*", decision: "allow" },
            { tool: "remote__write", decision: "deny", reason: "client side: no remote writes" },
          ],
        },
      ],
    ],
  });
});
afterAll(async () => {
  await server?.stop();
  removeDir(root);
});

describe("toolhost → MCP over HTTP → toolhost", () => {
  it("lists the remote tools under <server>__<tool>", async () => {
    const { code, stdout } = await toolhost(["list"], { cwd: b });
    expect(code).toBe(0);
    for (const name of ["remote__read", "remote__write", "remote__bash", "remote__ls"]) expect(stdout).toContain(name);
  });

  it("runs a call both policies allow", async () => {
    const { code, stdout } = await toolhost(["call", "remote__read", '{"path": "notes.txt"}'], { cwd: b });
    expect(code).toBe(0);
    expect(stdout).toContain("hello from A");
  });

  it("the client's policy refuses before anything is sent", async () => {
    const { code, stderr } = await toolhost(["call", "remote__write", '{"path": "new.txt", "content": "x"}'], { cwd: b });
    expect(code).toBe(2);
    expect(stderr).toContain("client side: no remote writes");
    expect(existsSync(join(a, "new.txt"))).toBe(false);
  });

  it("the server's policy refuses what the client allowed, and the client reports it as the tool's error", async () => {
    const secret = await toolhost(["call", "remote__read", '{"path": "secret.txt"}'], { cwd: b });
    expect(secret.code).toBe(1);
    expect(secret.stdout).toContain("server side: secrets stay here");
    expect(secret.stdout).toContain("TOOLHOST_BLOCKED");
    expect(secret.stdout + secret.stderr).not.toContain("launch code");

    const rm = await toolhost(["call", "remote__bash", '{"command": "rm -rf notes.txt"}'], { cwd: b });
    expect(rm.code).toBe(1);
    expect(rm.stdout).toContain("Blocked by @toolhost/hooks-policy");
    expect(existsSync(join(a, "notes.txt"))).toBe(true);

    const echo = await toolhost(["call", "remote__bash", '{"command": "echo through two hosts"}'], { cwd: b });
    expect(echo.code).toBe(0);
    expect(echo.stdout).toContain("through two hosts");
  });

  it("the client checks the remote schema before sending", async () => {
    const { code, stderr } = await toolhost(["call", "remote__read", '{"path": 42}'], { cwd: b });
    expect(code).toBe(2);
    expect(stderr).toContain("/path: must be string");
  });
});

describe("Ctrl-C with an MCP server over stdio", () => {
  it("cancels the remote call and ends the server's process tree", async () => {
    const c = project(join(root, "ctrl-c"));
    writeConfig(c, {
      plugins: [
        ["@toolhost/tool-mcp", { servers: { inner: { command: process.execPath, args: [BIN, "--config", aConfig, "mcp", "serve"] } } }],
        ["@toolhost/hooks-policy", { rules: [{ tool: "inner__*", decision: "allow" }] }],
      ],
    });
    const marker = `298.${process.pid}`;
    // The sleep itself, not the command lines that carry its text.
    const sleeps = new RegExp(`^sleep ${marker.replace(".", "\\.")}$`);
    const child = spawn(process.execPath, [BIN, "call", "inner__bash", JSON.stringify({ command: `sleep ${marker}` })], { cwd: c, stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    const closed = new Promise<number | null>((resolve) => child.on("close", resolve));
    await until(() => processesWith(sleeps).length > 0);
    const inner = processesWith(`--config ${aConfig} mcp serve`);
    expect(inner.length).toBe(1);
    child.kill("SIGINT");
    expect(await closed).toBe(130);
    expect(stderr).toContain("aborted");
    await until(() => processesWith(sleeps).length === 0);
    await until(() => !existsSync(`/proc/${inner[0]}`) || readFileSync(`/proc/${inner[0]}/stat`, "utf8").includes(") Z"));
  });
});

/** Waits for the thing itself: the test's own (generous) bound ends a wait that never ends. */
async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 25));
}
