import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { AgentHarness } from "@toolhost/core";
import { describe, expect, it } from "vitest";
import fsPlugin, { createEditTool, FsErrorCode } from "../src/index.js";
import { run, tempDir, textOf } from "./_helpers.js";

const lines = (count: number, eol = "\n"): string =>
  Array.from({ length: count }, (_, i) => `line ${i + 1}`).join(eol) + eol;

async function fileWith(content: string | Buffer): Promise<{ root: string; file: string }> {
  const root = await tempDir();
  const file = join(root, "f.txt");
  await writeFile(file, content);
  return { root, file };
}

describe("edit by lines", () => {
  it("replaces a range and reports a unified diff", async () => {
    const { root, file } = await fileWith(lines(10));
    const result = await run(createEditTool({ cwd: root }), { path: "f.txt", startLine: 5, endLine: 6, content: "five\nsix\nsix and a half" });
    expect(textOf(result)).toBe("✓ Edited lines 5-6 in f.txt");
    expect(await readFile(file, "utf8")).toBe(lines(10).replace("line 5\nline 6\n", "five\nsix\nsix and a half\n"));
    expect(result.details).toMatchObject({ path: file, startLine: 5, endLine: 6, linesChanged: 2 });
    const diff = result.details.diff as string;
    expect(diff).toContain("--- f.txt\n+++ f.txt\n@@ -2,8 +2,9 @@\n line 2\n line 3\n line 4\n-line 5\n-line 6\n+five\n+six\n+six and a half\n line 7\n");
  });

  it("deletes lines when content is empty", async () => {
    const { root, file } = await fileWith(lines(3));
    await run(createEditTool({ cwd: root }), { path: "f.txt", startLine: 2, endLine: 2, content: "" });
    expect(await readFile(file, "utf8")).toBe("line 1\nline 3\n");
  });

  it("keeps a missing final newline missing", async () => {
    const { root, file } = await fileWith("a\nb\nc");
    await run(createEditTool({ cwd: root }), { path: "f.txt", startLine: 3, endLine: 3, content: "C\n" });
    expect(await readFile(file, "utf8")).toBe("a\nb\nC");
  });

  it("keeps CRLF line endings and the BOM", async () => {
    const { root, file } = await fileWith(`\uFEFF${lines(4, "\r\n")}`);
    await run(createEditTool({ cwd: root }), { path: "f.txt", startLine: 2, endLine: 3, content: "two\nthree" });
    expect(await readFile(file, "utf8")).toBe("\uFEFFline 1\r\ntwo\r\nthree\r\nline 4\r\n");
  });

  it("refuses a range past the end or reversed, showing the file's length", async () => {
    const { root } = await fileWith(lines(4));
    const past = await run(createEditTool({ cwd: root }), { path: "f.txt", startLine: 3, endLine: 9, content: "x" });
    expect(past.details.code).toBe(FsErrorCode.BAD_RANGE);
    expect(textOf(past)).toContain("goes past the end; the file has 4 lines");
    const reversed = await run(createEditTool({ cwd: root }), { path: "f.txt", startLine: 3, endLine: 2, content: "x" });
    expect(reversed.details.code).toBe(FsErrorCode.BAD_RANGE);
    expect(textOf(reversed)).toContain("reversed");
  });
});

describe("edit by text", () => {
  it("replaces text that occurs once", async () => {
    const { root, file } = await fileWith("const a = 1;\nconst b = 2;\nconst c = 3;\n");
    const result = await run(createEditTool({ cwd: root }), { path: "f.txt", oldText: "const b = 2;", newText: "const b = 20;" });
    expect(textOf(result)).toBe("✓ Edited lines 2-2 in f.txt");
    expect(await readFile(file, "utf8")).toBe("const a = 1;\nconst b = 20;\nconst c = 3;\n");
    expect(result.details.diff).toContain("-const b = 2;\n+const b = 20;");
  });

  it("matches LF oldText in a CRLF file and writes CRLF back, BOM kept", async () => {
    const { root, file } = await fileWith("\uFEFFa\r\nb\r\nc\r\n");
    await run(createEditTool({ cwd: root }), { path: "f.txt", oldText: "a\nb", newText: "A\nB\nB2" });
    expect(await readFile(file, "utf8")).toBe("\uFEFFA\r\nB\r\nB2\r\nc\r\n");
  });

  it("leaves bytes that are not valid UTF-8 untouched outside the edit", async () => {
    const { root, file } = await fileWith(Buffer.concat([Buffer.from("caf"), Buffer.from([0xe9]), Buffer.from("\nold\n")]));
    await run(createEditTool({ cwd: root }), { path: "f.txt", oldText: "old", newText: "new" });
    expect(await readFile(file)).toEqual(Buffer.concat([Buffer.from("caf"), Buffer.from([0xe9]), Buffer.from("\nnew\n")]));
  });

  it("leaves mixed line endings as they are", async () => {
    const { root, file } = await fileWith("a\r\nb\nc\r\n");
    await run(createEditTool({ cwd: root }), { path: "f.txt", oldText: "b", newText: "B" });
    expect(await readFile(file, "utf8")).toBe("a\r\nB\nc\r\n");
  });

  it("says how many times and where when oldText is not unique, and replaces all with replaceAll", async () => {
    const { root, file } = await fileWith("x = 1\ny = 2\nx = 1\nx = 1\n");
    const many = await run(createEditTool({ cwd: root }), { path: "f.txt", oldText: "x = 1", newText: "x = 9" });
    expect(many.details.code).toBe(FsErrorCode.MULTIPLE_MATCHES);
    expect(textOf(many)).toContain("occurs 3 times");
    expect(textOf(many)).toContain("at lines 1, 3, 4");
    const all = await run(createEditTool({ cwd: root }), { path: "f.txt", oldText: "x = 1", newText: "x = 9", replaceAll: true });
    expect(textOf(all)).toBe("✓ Edited lines 1-4 in f.txt (3 replacements)");
    expect(await readFile(file, "utf8")).toBe("x = 9\ny = 2\nx = 9\nx = 9\n");
  });

  it("shows the closest lines when oldText does not match", async () => {
    const { root } = await fileWith("function add(a, b) {\n  return a + b;\n}\n\nfunction sub(a, b) {\n  return a - b;\n}\n");
    const result = await run(createEditTool({ cwd: root }), { path: "f.txt", oldText: "  return a -b;", newText: "x" });
    expect(result.details.code).toBe(FsErrorCode.NO_MATCH);
    expect(textOf(result)).toContain("The closest lines are 6-6");
    expect(textOf(result)).toContain("6|   return a - b;");
    expect(result.details.closestLine).toBe(6);
  });

  it("refuses both forms, neither, or half of one", async () => {
    const { root } = await fileWith("a\n");
    const edit = createEditTool({ cwd: root });
    const both = await run(edit, { path: "f.txt", startLine: 1, endLine: 1, content: "b", oldText: "a", newText: "b" });
    expect(both.details.code).toBe(FsErrorCode.BAD_EDIT);
    expect(textOf(both)).toContain("both forms");
    const neither = await run(edit, { path: "f.txt" });
    expect(textOf(neither)).toContain("no change to make");
    const half = await run(edit, { path: "f.txt", startLine: 1 });
    expect(textOf(half)).toContain("missing endLine and content");
    const empty = await run(edit, { path: "f.txt", oldText: "", newText: "x" });
    expect(empty.details.code).toBe(FsErrorCode.BAD_EDIT);
  });

  it("refuses binary files and missing files", async () => {
    const { root } = await fileWith(Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 1]));
    const binary = await run(createEditTool({ cwd: root }), { path: "f.txt", oldText: "E", newText: "e" });
    expect(binary.details.code).toBe(FsErrorCode.BINARY_FILE);
    const missing = await run(createEditTool({ cwd: root }), { path: "f.txx", oldText: "E", newText: "e" });
    expect(missing.details.code).toBe(FsErrorCode.NOT_FOUND);
    expect(textOf(missing)).toContain('Did you mean "f.txt"?');
  });
});

describe("edit through the harness", () => {
  it("applies every one of many edits of one file in one batch", async () => {
    const root = await tempDir();
    const file = join(root, "list.txt");
    await writeFile(file, Array.from({ length: 20 }, (_, i) => `item ${i}`).join("\n") + "\n");
    const harness = new AgentHarness({ cwd: root });
    await harness.use(fsPlugin);
    const calls = Array.from({ length: 20 }, (_, i) => ({
      id: `e${i}`,
      name: "edit",
      arguments: { path: "list.txt", oldText: `item ${i}\n`, newText: `item ${i} done\n` },
    }));
    const results = await harness.executeToolCalls(calls);
    expect(results.map((r) => r.isError)).toEqual(Array(20).fill(false));
    expect(await readFile(file, "utf8")).toBe(Array.from({ length: 20 }, (_, i) => `item ${i} done`).join("\n") + "\n");
  });

  it("applies parallel edits of one file from tools run concurrently (the per-path lock)", async () => {
    const { root, file } = await fileWith(lines(30));
    const edit = createEditTool({ cwd: root });
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, i) => run(edit, { path: "f.txt", oldText: `line ${i + 1}\n`, newText: `LINE ${i + 1}\n` })),
    );
    expect(results.every((r) => r.isError === undefined)).toBe(true);
    expect(await readFile(file, "utf8")).toBe(lines(30).replaceAll("line", "LINE"));
  });
});
