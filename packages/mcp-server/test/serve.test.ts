import { AgentHarness, Type } from "@toolhost/core";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterEach, describe, expect, it } from "vitest";
import { clientConfig, serveToolsOverHttp, type RunningHttpServer } from "../src/index.js";

// The library in-process, called by the official v2 SDK client over real HTTP on 127.0.0.1.
let running: RunningHttpServer | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

function harness(): AgentHarness {
  const h = new AgentHarness();
  h.registerTool({
    name: "greet",
    label: "Greet",
    description: "Says hello",
    parameters: Type.Object({ name: Type.String({ minLength: 1 }) }),
    annotations: { readOnly: true },
    async execute(_id, params) {
      return { content: [{ type: "text", text: `hello ${(params as { name: string }).name}` }], details: { secret: "not sent" } };
    },
  });
  h.registerTool({
    name: "guarded",
    label: "guarded",
    description: "Always blocked",
    parameters: Type.Object({}),
    async execute() {
      return { content: [{ type: "text", text: "ran" }], details: {} };
    },
  });
  h.hooks.beforeToolCall.tap("test-guard", (ctx) => (ctx.tool.name === "guarded" ? { block: true, reason: "never" } : undefined));
  return h;
}

async function connect(url: string): Promise<Client> {
  const client = new Client({ name: "test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

describe("serveToolsOverHttp", () => {
  it("lists the harness's tools with JSON Schema, title and annotations", async () => {
    running = await serveToolsOverHttp(harness(), { port: 0 });
    expect(running.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const client = await connect(running.url);
    const { tools } = await client.listTools();
    expect(tools.find((tool) => tool.name === "greet")).toEqual({
      name: "greet",
      title: "Greet",
      description: "Says hello",
      inputSchema: { type: "object", properties: { name: { type: "string", minLength: 1 } }, required: ["name"] },
      annotations: { readOnlyHint: true },
    });
    expect(tools.find((tool) => tool.name === "guarded")?.annotations).toBeUndefined();
    await client.close();
  });

  it("runs calls through the harness: hooks refuse, the schema is checked, details stay out", async () => {
    running = await serveToolsOverHttp(harness(), { port: 0 });
    const client = await connect(running.url);
    expect(await client.callTool({ name: "greet", arguments: { name: "Ada" } })).toEqual({ content: [{ type: "text", text: "hello Ada" }] });
    const blocked = await client.callTool({ name: "guarded", arguments: {} });
    expect(blocked.isError).toBe(true);
    expect(JSON.stringify(blocked.content)).toContain("Blocked by test-guard: never");
    expect(JSON.stringify(blocked.content)).toContain("TOOLHOST_BLOCKED");
    const invalid = await client.callTool({ name: "greet", arguments: { name: "" } });
    expect(invalid.isError).toBe(true);
    expect(JSON.stringify(invalid.content)).toContain("/name");
    await client.close();
  });

  it("refuses to listen off loopback without a token", async () => {
    await expect(serveToolsOverHttp(harness(), { host: "0.0.0.0", port: 0 })).rejects.toThrow(/needs a bearer token/);
  });
});

describe("clientConfig", () => {
  const command = { command: "/usr/bin/node", args: ["/p/bin.js", "mcp", "serve"] };
  it("writes each host's stdio snippet", () => {
    expect(clientConfig("claude", command)).toContain('"command": "/usr/bin/node"');
    expect(clientConfig("gemini", command)).toContain('"mcpServers"');
    expect(JSON.parse(clientConfig("opencode", command).split("\n").slice(1).join("\n")).mcp.toolhost).toEqual({
      type: "local",
      command: ["/usr/bin/node", "/p/bin.js", "mcp", "serve"],
      enabled: true,
    });
    expect(clientConfig("codex", command)).toBe('# ~/.codex/config.toml\n[mcp_servers.toolhost]\ncommand = "/usr/bin/node"\nargs = ["/p/bin.js", "mcp", "serve"]\n');
  });

  it("writes the URL form with the token read from the environment", () => {
    const url = { url: "http://h:1/mcp", tokenEnv: "T" };
    expect(clientConfig("codex", url)).toContain('url = "http://h:1/mcp"\nbearer_token_env_var = "T"');
    expect(clientConfig("claude", url)).toContain('"Authorization": "Bearer ${T}"');
    expect(clientConfig("gemini", url)).toContain('"httpUrl": "http://h:1/mcp"');
    expect(clientConfig("opencode", url)).toContain('"Authorization": "Bearer {env:T}"');
  });
});
