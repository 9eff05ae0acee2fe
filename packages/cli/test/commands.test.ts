import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { jsonLines, project, removeDir, tempDir, toolhost, writeConfig, writeFile } from "./_helpers.js";

let dir: string;
beforeEach(() => {
  dir = project(tempDir());
  writeConfig(dir, {
    plugins: [["./plugins/echo-plugin.mjs", { prefix: "> " }], "./plugins/guard-plugin.mjs", "@toolhost/example-plugin-http"],
  });
});
afterEach(() => removeDir(dir));

describe("toolhost list", () => {
  it("shows each tool with its plugin and parameters", async () => {
    const result = await toolhost(["list"], { cwd: dir });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("echo  (echo-plugin)\n  Returns its text\n    text: string");
    expect(result.stdout).toContain("make_api_call  (@toolhost/example-plugin-http)");
    expect(result.stdout).toContain('    method?: "GET" | "POST" | "PUT" | "DELETE"');
  });

  it("--json gives the tools with their JSON Schema parameters", async () => {
    const result = await toolhost(["list", "--json"], { cwd: dir });
    const tools = JSON.parse(result.stdout) as Array<{ name: string; plugin: string; parameters: { required?: string[] } }>;
    expect(tools.map((tool) => tool.name)).toEqual(["echo", "fail", "read_file", "make_api_call"]);
    expect(tools[3]).toMatchObject({ plugin: "@toolhost/example-plugin-http", parameters: { required: ["url"] } });
  });
});

describe("toolhost config", () => {
  it("shows the config file, each plugin with version, origin and tools", async () => {
    const result = await toolhost(["config"], { cwd: dir });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`config     ${join(dir, "toolhost.config.json")}`);
    expect(result.stdout).toContain(`  echo-plugin 1.2.3\n    from   ${join(dir, "plugins", "echo-plugin.mjs")}\n    tools  echo, fail, read_file`);
    expect(result.stdout).toContain("  guard-plugin (no version)");
    expect(result.stdout).toMatch(/@toolhost\/example-plugin-http 0\.1\.0\n {4}from {3}\S+example-plugin-http\/dist\/index\.js/);
  });

  it("finds the config upward from a subfolder, and --cwd sets the working directory", async () => {
    writeFile(join(dir, "deep", "er", "note.txt"), "x");
    const fromSub = await toolhost(["--json", "config"], { cwd: join(dir, "deep", "er") });
    expect(JSON.parse(fromSub.stdout)).toMatchObject({ configPath: join(dir, "toolhost.config.json"), workspace: dir });
    const viaFlag = await toolhost(["--cwd", join(dir, "deep"), "--json", "config"], { cwd: "/" });
    expect(JSON.parse(viaFlag.stdout)).toMatchObject({ configPath: join(dir, "toolhost.config.json") });
  });

  it("reads YAML, .mjs and .ts configs", async () => {
    const expectEcho = async (): Promise<void> => {
      const result = await toolhost(["--json", "config"], { cwd: dir });
      expect(result.stderr).toBe("");
      expect((JSON.parse(result.stdout) as { plugins: { name: string }[] }).plugins.map((p) => p.name)).toEqual(["echo-plugin"]);
    };
    removeDir(join(dir, "toolhost.config.json"));
    writeFile(join(dir, "toolhost.config.yaml"), "toolExecution: sequential\nplugins:\n  - ./plugins/echo-plugin.mjs\n");
    await expectEcho();
    removeDir(join(dir, "toolhost.config.yaml"));
    writeFile(
      join(dir, "toolhost.config.mjs"),
      'import { defineConfig } from "@toolhost/core/config";\nexport default defineConfig({ plugins: ["./plugins/echo-plugin.mjs"] });\n',
    );
    await expectEcho();
    removeDir(join(dir, "toolhost.config.mjs"));
    writeFile(
      join(dir, "toolhost.config.ts"),
      'import { defineConfig, type ToolhostConfig } from "@toolhost/core/config";\nconst config: ToolhostConfig = { plugins: ["./plugins/echo-plugin.mjs"], maxConcurrency: 2 };\nexport default defineConfig(config);\n',
    );
    await expectEcho();
  });

  it("without a config file uses the default plugins that are installed and names the missing ones", async () => {
    const bare = tempDir();
    try {
      const result = await toolhost(["--json", "config"], { cwd: bare });
      expect(result.code).toBe(0);
      const shown = JSON.parse(result.stdout) as { configPath: null; plugins: { name: string }[]; missing: string[] };
      expect(shown.configPath).toBeNull();
      const names = [...shown.plugins.map((p) => p.name), ...shown.missing].sort();
      expect(names).toEqual(["@toolhost/hooks-policy", "@toolhost/tool-bash", "@toolhost/tool-fs"]);
      expect(result.stderr).toContain("No toolhost config file found");
    } finally {
      removeDir(bare);
    }
  });
});

describe("toolhost call", () => {
  it("prints the result's text and exits 0", async () => {
    const result = await toolhost(["call", "echo", '{"text":"hello"}'], { cwd: dir });
    expect(result).toMatchObject({ code: 0, stdout: "> hello\n", stderr: "" });
  });

  it("reads the arguments from stdin with -", async () => {
    const result = await toolhost(["call", "echo", "-"], { cwd: dir, input: '{"text":"piped"}' });
    expect(result.stdout).toBe("> piped\n");
  });

  it("--json prints the result message", async () => {
    const result = await toolhost(["--json", "call", "echo", '{"text":"x"}'], { cwd: dir });
    expect(JSON.parse(result.stdout)).toMatchObject({
      role: "toolResult",
      toolName: "echo",
      isError: false,
      content: [{ type: "text", text: "> x" }],
      details: { text: "x" },
    });
  });

  it("exits 1 when the tool reports an error", async () => {
    const result = await toolhost(["call", "fail"], { cwd: dir });
    expect(result).toMatchObject({ code: 1, stdout: "it went wrong\n" });
  });

  it("exits 2 when the call is blocked, with the reason and who blocked it", async () => {
    const result = await toolhost(["call", "echo", '{"text":"blocked"}'], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain("Blocked by guard-plugin: echo of blocked is not allowed");
  });

  it("exits 2 when approval is needed and no one can approve (no terminal)", async () => {
    const result = await toolhost(["call", "echo", '{"text":"ask me"}'], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("needs approval (echo of ask needs a human), and no one could approve it");
  });

  it("exits 2 for invalid arguments and for an unknown tool", async () => {
    const invalid = await toolhost(["call", "echo", '{"txt":"x"}'], { cwd: dir });
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toContain('Invalid arguments for tool "echo"');
    const unknown = await toolhost(["call", "ecko", "{}"], { cwd: dir });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('Tool "ecko" not found. Available tools: echo, fail, read_file, make_api_call.');
  });

  it("resolves relative paths against the working directory", async () => {
    writeFile(join(dir, "sub", "data.txt"), "inside sub\n");
    const result = await toolhost(["call", "read_file", '{"path":"data.txt"}'], { cwd: join(dir, "sub") });
    expect(result.stdout).toBe("inside sub\n");
  });
});

describe("toolhost run", () => {
  const batch = [
    { id: "a", name: "echo", arguments: { text: "one" } },
    { name: "fail", arguments: {} },
    { id: "c", name: "echo", arguments: { text: "blocked" } },
    { id: "d", name: "nope", arguments: {} },
    { id: "e", name: "echo", arguments: '{"text":"as a string"}' },
  ];

  it("runs a mixed batch from a JSON array and prints one result a line, in order", async () => {
    writeFile(join(dir, "batch.json"), JSON.stringify(batch));
    const result = await toolhost(["run", "batch.json"], { cwd: dir });
    expect(result.code).toBe(1);
    const results = jsonLines(result.stdout) as Array<{ toolCallId: string; isError: boolean; content: { text: string }[]; details: { code?: string } }>;
    expect(results.map((r) => [r.toolCallId, r.isError])).toEqual([
      ["a", false],
      // A call without an id gets its place and the run's own tag (unique across runs).
      [expect.stringMatching(/^call-2-[0-9a-f]{8}$/), true],
      ["c", true],
      ["d", true],
      ["e", false],
    ]);
    expect(results[0]?.content[0]?.text).toBe("> one");
    expect(results[2]?.details.code).toBe("TOOLHOST_BLOCKED");
    expect(results[3]?.details.code).toBe("TOOLHOST_TOOL_NOT_FOUND");
    expect(results[4]?.content[0]?.text).toBe("> as a string");
  });

  it("reads JSON lines and assistant messages from stdin, and exits 0 when every call is done", async () => {
    const message = {
      role: "assistant",
      content: [
        { type: "text", text: "let me echo" },
        { type: "toolCall", id: "m1", name: "echo", arguments: { text: "from a message" } },
      ],
    };
    const input = `${JSON.stringify({ id: "l1", name: "echo", arguments: { text: "line" } })}\n${JSON.stringify(message)}\n`;
    const result = await toolhost(["run", "-"], { cwd: dir, input });
    expect(result.code).toBe(0);
    const texts = (jsonLines(result.stdout) as Array<{ toolCallId: string; content: { text: string }[] }>).map((r) => [
      r.toolCallId,
      r.content[0]?.text,
    ]);
    expect(texts).toEqual([
      ["l1", "> line"],
      ["m1", "> from a message"],
    ]);
  });

  it("--events prints every event as a JSON line", async () => {
    const result = await toolhost(["run", "--events"], { cwd: dir, input: JSON.stringify(batch.slice(0, 2)) });
    const types = (jsonLines(result.stdout) as Array<{ type: string }>).map((event) => event.type);
    expect(types.filter((type) => type === "tool_execution_start")).toHaveLength(2);
    expect(types.filter((type) => type === "tool_execution_end")).toHaveLength(2);
    expect(types.slice(-4)).toEqual(["message_start", "message_end", "message_start", "message_end"]);
  });

  it("exits 2 on input that is not a batch", async () => {
    const notJson = await toolhost(["run"], { cwd: dir, input: '{"name":"echo"}\n{oops\n' });
    expect(notJson.code).toBe(2);
    expect(notJson.stderr).toContain("Line 2 of the batch is not valid JSON");
    const notCalls = await toolhost(["run"], { cwd: dir, input: '[{"tool":"echo"}]' });
    expect(notCalls.code).toBe(2);
    expect(notCalls.stderr).toContain("item 1 of the batch is not a tool call");
  });
});

describe("toolhost init and schema", () => {
  it("writes a starter config with $schema, and never overwrites", async () => {
    const fresh = tempDir();
    try {
      const first = await toolhost(["init"], { cwd: fresh });
      expect(first.code).toBe(0);
      const written = JSON.parse(readFileSync(join(fresh, "toolhost.config.json"), "utf8")) as Record<string, unknown>;
      expect(written.$schema).toMatch(/^https:\/\/unpkg\.com\/@toolhost\/core@\d+\.\d+\.\d+\/dist\/config\/schema\.json$/);
      expect(written.plugins).toEqual(["@toolhost/tool-fs", "@toolhost/tool-bash", ["@toolhost/hooks-policy", { extends: ["recommended"] }]]);
      const again = await toolhost(["init"], { cwd: fresh });
      expect(again.code).toBe(2);
      expect(again.stderr).toContain("already exists; toolhost init never overwrites a config");
      expect(readFileSync(join(fresh, "toolhost.config.json"), "utf8")).toContain("$schema");
    } finally {
      removeDir(fresh);
    }
  });

  it("refuses when another kind of config is there", async () => {
    removeDir(join(dir, "toolhost.config.json"));
    writeFile(join(dir, "toolhost.config.yaml"), "plugins: []\n");
    const result = await toolhost(["init"], { cwd: dir });
    expect(result.code).toBe(2);
    expect(existsSync(join(dir, "toolhost.config.json"))).toBe(false);
  });

  it("prints the JSON Schema, which is the one shipped in core's dist", async () => {
    const result = await toolhost(["schema"], { cwd: dir });
    const schema = JSON.parse(result.stdout) as { properties: Record<string, unknown>; additionalProperties: boolean; required: string[] };
    expect(Object.keys(schema.properties).sort()).toEqual(["$schema", "agent", "maxConcurrency", "plugins", "toolExecution", "toolTimeoutMs"]);
    expect(schema.additionalProperties).toBe(false);
    expect(schema.required).toEqual(["plugins"]);
    const shipped = join(dir, "node_modules", "@toolhost", "core", "dist", "config", "schema.json");
    expect(JSON.parse(readFileSync(shipped, "utf8"))).toEqual(schema);
  });
});
