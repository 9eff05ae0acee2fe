import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { AgentHarness } from "@toolhost/core";
import policyPlugin from "@toolhost/hooks-policy";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FILESYSTEM_SERVER, call, codeOf, harnessWith, removeDir, tempDir, text } from "./_helpers.js";

// The official @modelcontextprotocol/server-filesystem (2026.8.31, the v1 SDK: draft-07 schemas)
// over stdio, started by tool-mcp as a process of its own.
let dir: string;
let harness: AgentHarness | undefined;
beforeEach(() => {
  dir = tempDir();
  writeFileSync(join(dir, "notes.txt"), "hello from the workspace\n");
  writeFileSync(join(dir, ".env"), "TOKEN=secret\n");
});
afterEach(async () => {
  await harness?.dispose();
  harness = undefined;
  removeDir(dir);
});

const fsServer = { command: process.execPath, args: [FILESYSTEM_SERVER, "${workspace}"] };

describe("tool-mcp with the official filesystem server", () => {
  it("lists its tools as fs__<tool>, read-only ones parallel and the others sequential", async () => {
    ({ harness } = await harnessWith(dir, { servers: { fs: fsServer } }));
    const names = harness.tools.map((tool) => tool.name);
    expect(names).toContain("fs__read_text_file");
    expect(names).toContain("fs__write_file");
    const read = harness.getTool("fs__read_text_file");
    const write = harness.getTool("fs__write_file");
    expect(read?.executionMode).toBe("parallel");
    expect(read?.annotations).toMatchObject({ readOnly: true });
    expect(write?.executionMode).toBe("sequential");
    expect(write?.annotations).toMatchObject({ destructive: true });
    expect(write?.annotations?.readOnly).toBeUndefined();
    // The server's JSON Schema is the tool's schema, as models and MCP clients will see it.
    expect(JSON.parse(JSON.stringify(read?.parameters))).toMatchObject({ type: "object", properties: { path: { type: "string" } } });
  });

  it("calls a tool and returns what the server answered", async () => {
    ({ harness } = await harnessWith(dir, { servers: { fs: fsServer } }));
    const result = await call(harness, "fs__read_text_file", { path: join(dir, "notes.txt") });
    expect(result.isError).toBe(false);
    expect(text(result)).toBe("hello from the workspace\n");
  });

  it("refuses a schema-invalid call itself, naming the field, before it reaches the server", async () => {
    ({ harness } = await harnessWith(dir, { servers: { fs: fsServer } }));
    const result = await call(harness, "fs__read_text_file", { path: 42 });
    expect(result.isError).toBe(true);
    expect(codeOf(result)).toBe("TOOLHOST_INVALID_ARGUMENTS");
    expect(text(result)).toContain("/path: must be string");
  });

  it("applies the policy by full name, glob and path: a denied call never reaches the server", async () => {
    ({ harness } = await harnessWith(dir, { servers: { fs: fsServer } }, async (h) => {
      await h.use(policyPlugin, {
        default: "deny",
        rules: [
          { tool: "fs__write_*", decision: "deny", reason: "no writes through MCP" },
          { tool: "fs__*", path: "**/.env", decision: "deny" },
          { tool: ["fs__read_text_file", "fs__list_directory"], decision: "allow" },
        ],
      });
    }));
    const write = await call(harness, "fs__write_file", { path: join(dir, "new.txt"), content: "x" });
    expect(write.isError).toBe(true);
    expect(codeOf(write)).toBe("TOOLHOST_BLOCKED");
    expect(text(write)).toContain("no writes through MCP");
    expect(existsSync(join(dir, "new.txt"))).toBe(false);

    const env = await call(harness, "fs__read_text_file", { path: ".env" });
    expect(codeOf(env)).toBe("TOOLHOST_BLOCKED");
    expect(text(env)).not.toContain("secret");

    const allowed = await call(harness, "fs__read_text_file", { path: join(dir, "notes.txt") });
    expect(text(allowed)).toBe("hello from the workspace\n");
  });

  it("shows only included tools that no exclude glob names (exclude wins)", async () => {
    ({ harness } = await harnessWith(dir, {
      servers: { fs: fsServer },
      include: { fs: ["read_*", "list_*"] },
      exclude: { fs: ["read_media_file", "list_directory_with_*"] },
    }));
    expect(harness.tools.map((tool) => tool.name).sort()).toEqual(
      ["fs__list_allowed_directories", "fs__list_directory", "fs__read_file", "fs__read_multiple_files", "fs__read_text_file"].sort(),
    );
    const hidden = await call(harness, "fs__write_file", { path: "x", content: "x" });
    expect(codeOf(hidden)).toBe("TOOLHOST_TOOL_NOT_FOUND");
  });
});
