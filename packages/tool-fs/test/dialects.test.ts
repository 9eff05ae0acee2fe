import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { AgentHarness } from "@toolhost/core";
import { describe, expect, it } from "vitest";
import fsPlugin from "../src/index.js";
import { tempDir, textOf } from "./_helpers.js";

const numbered = (n: number): string => Array.from({ length: n }, (_, i) => `line ${i + 1}`).join("\n") + "\n";

/** The same project in a fresh folder each time: a dialect call and the native call each get one. */
async function project(): Promise<string> {
  const root = await tempDir();
  await mkdir(join(root, "src"));
  await mkdir(join(root, "node_modules"));
  await writeFile(join(root, "f.txt"), numbered(100));
  await writeFile(join(root, "src", "a.ts"), "const Alpha = 1;\nconst beta = 2;\nconst alpha = 3;\n");
  await writeFile(join(root, "node_modules", "x.ts"), "alpha\n");
  await writeFile(join(root, "debug.log"), "alpha\n");
  return root;
}

/** What a user sees of a call and what it left on disk, with the folder's name taken out. */
async function outcome(tool: string, args: Record<string, unknown>): Promise<string> {
  const root = await project();
  const harness = new AgentHarness({ cwd: root });
  await harness.use(fsPlugin, {});
  const [result] = await harness.executeToolCalls([{ id: "1", name: tool, arguments: args }]);
  const files = await Promise.all(["f.txt", "src/a.ts", "out.txt"].map((file) => readFile(join(root, file), "utf8").catch(() => "-")));
  return JSON.stringify({ text: textOf(result as never), details: result?.details, isError: result?.isError, files }).replaceAll(root, "<root>");
}

// Each row: [host, tool, the host's arguments, the same call in toolhost's own names].
const TABLE: [string, string, Record<string, unknown>, Record<string, unknown>][] = [
  ["Claude Code", "read", { file_path: "f.txt" }, { path: "f.txt" }],
  ["Claude Code", "read", { file_path: "f.txt", offset: 51, limit: 10 }, { path: "f.txt", startLine: 51, endLine: 60 }],
  ["pi", "read", { path: "f.txt", offset: 51, limit: 10 }, { path: "f.txt", startLine: 51, endLine: 60 }],
  ["pi", "read", { path: "f.txt", limit: 3 }, { path: "f.txt", endLine: 3 }],
  ["MCP filesystem", "read", { path: "f.txt", head: 5 }, { path: "f.txt", endLine: 5 }],
  ["Claude Code", "write", { file_path: "out.txt", content: "hello\n" }, { path: "out.txt", content: "hello\n" }],
  ["Claude Code", "edit", { file_path: "src/a.ts", old_string: "beta", new_string: "gamma" }, { path: "src/a.ts", oldText: "beta", newText: "gamma" }],
  [
    "Claude Code",
    "edit",
    { file_path: "src/a.ts", old_string: "const", new_string: "let", replace_all: true },
    { path: "src/a.ts", oldText: "const", newText: "let", replaceAll: true },
  ],
  [
    "Claude Code (MultiEdit)",
    "edit",
    { file_path: "src/a.ts", edits: [{ old_string: "beta", new_string: "gamma" }, { old_string: "gamma = 2", new_string: "gamma = 20" }] },
    { path: "src/a.ts", edits: [{ oldText: "beta", newText: "gamma" }, { oldText: "gamma = 2", newText: "gamma = 20" }] },
  ],
  ["Claude Code", "ls", { path: ".", ignore: ["*.log", "node_modules"] }, { path: ".", exclude: ["*.log", "node_modules"] }],
  ["MCP filesystem", "ls", { path: ".", excludePatterns: ["*.log"] }, { path: ".", exclude: ["*.log"] }],
  ["MCP filesystem", "find", { path: ".", pattern: "**/*.ts", excludePatterns: ["node_modules"] }, { path: ".", pattern: "**/*.ts", exclude: ["node_modules"] }],
  [
    "Claude Code",
    "grep",
    { pattern: "alpha", "-i": true, "-C": 1, head_limit: 5, output_mode: "content", "-n": true, path: "src" },
    { pattern: "alpha", ignoreCase: true, context: 1, limit: 5, path: "src" },
  ],
];

describe("other hosts' argument names give the same result as toolhost's own", () => {
  for (const [host, tool, dialect, native] of TABLE) {
    it(`${host}: ${tool} ${JSON.stringify(dialect)}`, async () => {
      const [fromDialect, fromNative] = await Promise.all([outcome(tool, dialect), outcome(tool, native)]);
      expect(fromDialect).toBe(fromNative);
      expect(JSON.parse(fromNative).isError).not.toBe(true);
    });
  }

  it("the MCP server's edits with dryRun: the diff, and nothing written", async () => {
    const result = JSON.parse(await outcome("edit", { path: "src/a.ts", edits: [{ oldText: "beta", newText: "gamma" }], dryRun: true }));
    expect(result.text).toContain("Dry run: nothing was written.");
    expect(result.text).toContain("-const beta = 2;\n+const gamma = 2;");
    expect(result.files[1]).toBe("const Alpha = 1;\nconst beta = 2;\nconst alpha = 3;\n");
  });

  it("refuses what has no equivalent, saying what to send, and a name given twice with two values", async () => {
    const refused = JSON.parse(await outcome("grep", { pattern: "alpha", output_mode: "files_with_matches" }));
    expect(refused.isError).toBe(true);
    expect(refused.text).toContain("use find for file names");
    expect(JSON.parse(await outcome("grep", { pattern: "alpha", "-A": 2 })).text).toContain("Send context");
    expect(JSON.parse(await outcome("read", { path: "f.txt", file_path: "src/a.ts" })).text).toContain('got both "file_path" and "path"');
    expect(JSON.parse(await outcome("read", { path: "f.txt", head: 2, tail: 2 })).text).toContain('both "head" and "tail"');
  });
});
