import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { removeDir, tempDir, writeConfig, writeFile } from "./_helpers.js";
import { httpClient, serveHttp, textOf } from "./_mcp.js";


// `toolhost mcp serve` keeps the host it started with (its client was told the tools): when a file
// the host was made from changes, it refuses calls until restarted rather than judge by old rules.
type CallResult = { content: Array<{ type: string; text?: string }>; isError?: boolean };
let dir: string;
beforeEach(() => {
  dir = tempDir("toolhost-mcp-stale-");
  writeFileSync(join(dir, "notes.txt"), "hello\n");
});
afterEach(() => removeDir(dir));

const config = (extendsList: string[]) => ({ plugins: ["@toolhost/tool-fs", ["@toolhost/hooks-policy", { extends: extendsList, default: "allow" }]] });

describe("toolhost mcp serve after what it loaded changed", () => {
  it("refuses every call once a policy file of extends changed, saying to restart, and a restarted server uses the change", async () => {
    writeConfig(dir, config(["./org.json"]));
    writeFile(join(dir, "org.json"), JSON.stringify({ rules: [] }));
    let server = await serveHttp(dir);
    try {
      const client = await httpClient(server.url);
      const before = (await client.callTool({ name: "read", arguments: { path: "notes.txt" } })) as CallResult;
      expect(textOf(before)).toContain("hello");

      writeFile(join(dir, "org.json"), JSON.stringify({ rules: [{ tool: "read", path: "**/notes.txt", decision: "deny", reason: "notes are private" }] }));
      const after = (await client.callTool({ name: "read", arguments: { path: "notes.txt" } })) as CallResult;
      expect(after.isError).toBe(true);
      expect(textOf(after)).toContain(`${join(dir, "org.json")} changed since`);
      expect(textOf(after)).toContain("restart the server");
      expect(textOf(after)).not.toContain("hello");
      await client.close();
    } finally {
      expect(await server.stop()).toBe(0);
    }
    server = await serveHttp(dir);
    try {
      const client = await httpClient(server.url);
      const restarted = (await client.callTool({ name: "read", arguments: { path: "notes.txt" } })) as CallResult;
      expect(restarted.isError).toBe(true);
      expect(textOf(restarted)).toContain("notes are private");
      await client.close();
    } finally {
      expect(await server.stop()).toBe(0);
    }
  });

  it("refuses calls once a config is created nearer than the one it started with", async () => {
    writeConfig(dir, config([]));
    const sub = join(dir, "sub");
    writeFile(join(sub, "notes.txt"), "sub notes\n");
    const server = await serveHttp(sub);
    try {
      const client = await httpClient(server.url);
      expect(textOf((await client.callTool({ name: "read", arguments: { path: "notes.txt" } })) as CallResult)).toContain("sub notes");
      writeConfig(sub, config([]));
      const after = (await client.callTool({ name: "read", arguments: { path: "notes.txt" } })) as CallResult;
      expect(after.isError).toBe(true);
      expect(textOf(after)).toContain(`now finds ${join(sub, "toolhost.config.json")}`);
      await client.close();
    } finally {
      expect(await server.stop()).toBe(0);
    }
  });
});
