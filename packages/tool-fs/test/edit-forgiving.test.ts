import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createEditTool, FsErrorCode } from "../src/index.js";
import { run, tempDir, textOf } from "./_helpers.js";

async function fileWith(content: string | Buffer): Promise<{ root: string; file: string }> {
  const root = await tempDir();
  const file = join(root, "f.txt");
  await writeFile(file, content);
  return { root, file };
}

describe("several edits in one call", () => {
  it("applies them in order to the same content, with one diff", async () => {
    const { root, file } = await fileWith("a = 1\nb = 2\nc = 3\n");
    const result = await run(createEditTool({ cwd: root }), {
      path: "f.txt",
      edits: [
        { oldText: "a = 1", newText: "a = 10" },
        { oldText: "a = 10\nb = 2", newText: "a = 10\nb = 20" },
        { oldText: "c = 3", newText: "c = 30" },
      ],
    });
    expect(textOf(result)).toBe("✓ Edited lines 1-3 in f.txt (3 replacements)");
    expect(await readFile(file, "utf8")).toBe("a = 10\nb = 20\nc = 30\n");
    expect(result.details.diff).toBe(
      "--- f.txt\n+++ f.txt\n@@ -1,3 +1,3 @@\n-a = 1\n-b = 2\n-c = 3\n+a = 10\n+b = 20\n+c = 30\n",
    );
  });

  it("is all or nothing: one edit that does not match leaves the file as it was", async () => {
    const { root, file } = await fileWith("a = 1\nb = 2\n");
    const result = await run(createEditTool({ cwd: root }), {
      path: "f.txt",
      edits: [
        { oldText: "a = 1", newText: "a = 10" },
        { oldText: "zzz", newText: "y" },
      ],
    });
    expect(result.details.code).toBe(FsErrorCode.NO_MATCH);
    expect(result.details.edit).toBe(1);
    expect(textOf(result)).toMatch(/^edits\[1\]: oldText was not found/);
    expect(textOf(result)).toContain("Nothing was changed.");
    expect(await readFile(file, "utf8")).toBe("a = 1\nb = 2\n");
  });

  it("dryRun returns the diff and writes nothing", async () => {
    const { root, file } = await fileWith("a = 1\n");
    const result = await run(createEditTool({ cwd: root }), { path: "f.txt", oldText: "1", newText: "2", dryRun: true });
    expect(textOf(result)).toBe("Dry run: nothing was written. This edit would change lines 1-1 of f.txt:\n--- f.txt\n+++ f.txt\n@@ -1,1 +1,1 @@\n-a = 1\n+a = 2\n");
    expect(result.details.dryRun).toBe(true);
    expect(await readFile(file, "utf8")).toBe("a = 1\n");
  });
});

describe("forgiving matching, one relaxation at a time", () => {
  const cases: [string, string, string, string, string][] = [
    ["trailing whitespace", "let a = 1;   \nlet b = 2;\n", "let a = 1;\nlet b = 2;", "trailing whitespace ignored", "let a = 9;\nlet b = 2;\n"],
    ["fullwidth punctuation (NFKC)", "say（hello）\n", "say(hello)", "Unicode normalisation", "let a = 9;\n"],
    ["a decomposed accent (NFD in the file)", "caf\u0065\u0301 = 1\n", "caf\u00e9 = 1", "Unicode normalisation", "let a = 9;\n"],
    ["typographic quotes", "print(\u201chello\u201d)\n", 'print("hello")', "typographic quotes and dashes", "let a = 9;\n"],
    ["an en dash", "range 1\u20132\n", "range 1-2", "typographic quotes and dashes", "let a = 9;\n"],
    ["a non-breaking space", "price:\u00a0100\n", "price: 100", "non-breaking and other Unicode spaces", "let a = 9;\n"],
  ];
  for (const [what, content, oldText, relaxation, expected] of cases) {
    it(`matches despite ${what}, and says which relaxation was used`, async () => {
      const { root, file } = await fileWith(content);
      const newText = expected.startsWith("let a = 9;\nlet b") ? "let a = 9;\nlet b = 2;" : "let a = 9;";
      const result = await run(createEditTool({ cwd: root }), { path: "f.txt", oldText, newText });
      expect(result.isError).toBeUndefined();
      expect(textOf(result)).toContain(`[oldText matched only with ${relaxation}`);
      expect(String(Object.values(result.details.relaxations as object)[0])).toContain(relaxation);
      expect(await readFile(file, "utf8")).toBe(expected);
    });
  }

  it("a relaxed oldText with trailing spaces matches only at a line end", async () => {
    const { root, file } = await fileWith("x = 1 + 2\nx = 1\n");
    const result = await run(createEditTool({ cwd: root }), { path: "f.txt", oldText: "x = 1  ", newText: "x = 7" });
    expect(textOf(result)).toContain("trailing whitespace ignored");
    expect(await readFile(file, "utf8")).toBe("x = 1 + 2\nx = 7\n");
  });

  it("matches ignoring indentation and re-indents newText by the same offset", async () => {
    const { root, file } = await fileWith("class A {\n    run() {\n        go();\n    }\n}\n");
    const result = await run(createEditTool({ cwd: root }), {
      path: "f.txt",
      oldText: "run() {\n    go();\n}",
      newText: "run() {\n    go();\n    stop();\n}",
    });
    expect(textOf(result)).toContain("indentation ignored");
    expect(await readFile(file, "utf8")).toBe("class A {\n    run() {\n        go();\n        stop();\n    }\n}\n");
  });

  it("never applies a relaxed match that is not unique", async () => {
    const { root, file } = await fileWith("x = \u201ca\u201d\ny = \u2018a\u2019\nx = \u201ca\u201d\n");
    const result = await run(createEditTool({ cwd: root }), { path: "f.txt", oldText: 'x = "a"', newText: "x = 1" });
    expect(result.details.code).toBe(FsErrorCode.MULTIPLE_MATCHES);
    expect(textOf(result)).toContain("after relaxing (typographic quotes and dashes taken as ASCII)");
    expect(result.details.lines).toEqual([1, 3]);
    expect(await readFile(file, "utf8")).toBe("x = \u201ca\u201d\ny = \u2018a\u2019\nx = \u201ca\u201d\n");
  });

  it("a file over 2 MiB is matched exactly only, and a miss says so", async () => {
    const { root } = await fileWith(`${"filler line\n".repeat(200_000)}print(\u201chello\u201d)\n`);
    const result = await run(createEditTool({ cwd: root }), { path: "f.txt", oldText: 'print("hello")', newText: "x" });
    expect(result.details.code).toBe(FsErrorCode.NO_MATCH);
    expect(textOf(result)).toContain("over 2 MiB, so only exact matches were tried");
  });

  it("the closest-lines hint shows the differing characters by code point", async () => {
    const { root } = await fileWith("alpha\nprice:\u00a0100 \u2013 total\nomega\n");
    const result = await run(createEditTool({ cwd: root }), { path: "f.txt", oldText: "prices: 100 - total", newText: "x" });
    expect(result.details.code).toBe(FsErrorCode.NO_MATCH);
    expect(textOf(result)).toContain('line 2, column 6: the file has U+003A ":", oldText has U+0073 "s"');
    const nbsp = await run(createEditTool({ cwd: root }), { path: "f.txt", oldText: "price: 100 \u2013 totals", newText: "x" });
    expect(textOf(nbsp)).toContain("line 2, column 7: the file has U+00A0, oldText has U+0020");
  });
});

describe("mixed line endings", () => {
  it("an LF oldText matches a CRLF copy, keeping CRLF", async () => {
    const { root, file } = await fileWith("head\nalpha\r\nbeta\r\ntail\n");
    const result = await run(createEditTool({ cwd: root }), { path: "f.txt", oldText: "alpha\nbeta", newText: "one\ntwo" });
    expect(result.isError).toBeUndefined();
    expect(await readFile(file, "utf8")).toBe("head\none\r\ntwo\r\ntail\n");
  });

  it("an LF copy and a CRLF copy of the same lines make oldText ambiguous", async () => {
    const content = "alpha\nbeta\n--\r\nalpha\r\nbeta\r\n";
    const { root, file } = await fileWith(content);
    const result = await run(createEditTool({ cwd: root }), { path: "f.txt", oldText: "alpha\nbeta", newText: "x" });
    expect(result.details.code).toBe(FsErrorCode.MULTIPLE_MATCHES);
    expect(textOf(result)).toContain("both a copy with LF line endings and one with CRLF");
    expect(result.details.lines).toEqual([1, 4]);
    expect(await readFile(file, "utf8")).toBe(content);
  });
});
