import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createFsTools, createReadTool, FsErrorCode } from "../src/index.js";
import { byName, linesOf, run, tempDir, textOf } from "./_helpers.js";

describe("read pages end at whole lines", () => {
  it("paging a 3,000-line file of 1,000-byte lines by nextStartLine loses nothing", async () => {
    const root = await tempDir();
    const lines = Array.from({ length: 3000 }, (_, i) => `${String(i + 1).padStart(6, "0")} ${"x".repeat(992)}`);
    await writeFile(join(root, "f.txt"), `${lines.join("\n")}\n`);
    const read = createReadTool({ cwd: root });
    const pages: string[] = [];
    let next: number | undefined = 1;
    while (next !== undefined) {
      const result = await run(read, { path: "f.txt", startLine: next });
      expect(Buffer.byteLength(linesOf(result))).toBeLessThanOrEqual(1024 * 1024);
      pages.push(linesOf(result));
      next = result.details.nextStartLine as number | undefined;
    }
    expect(pages.join("\n")).toBe(lines.join("\n"));
    expect(pages.length).toBe(3);
  });

  it("cuts only a single line longer than the limit, and byteOffset reads the rest of it", async () => {
    const root = await tempDir();
    const long = "é".repeat(700); // 1,400 bytes
    await writeFile(join(root, "f.txt"), `short\n${long}\nafter\n`);
    const read = createReadTool({ cwd: root, maxSize: 1001 });
    const first = await run(read, { path: "f.txt" });
    expect(textOf(first)).toBe("short\n\n[Showing lines 1-1 of 3: the next line would pass the 1,001-byte limit (maxSize). Use startLine=2 to continue.]");
    const cut = await run(read, { path: "f.txt", startLine: 2 });
    expect(textOf(cut)).toContain("[Line 2 is cut: it is longer than the 1,001-byte limit (maxSize)");
    // Cut at a character boundary: 500 characters (1,000 bytes), never half of one.
    expect(linesOf(cut)).toBe("é".repeat(500));
    expect(cut.details).toMatchObject({ nextStartLine: 3, nextByteOffset: 6 + 1000 });
    const rest = await run(read, { path: "f.txt", byteOffset: cut.details.nextByteOffset as number });
    expect(textOf(rest)).toBe(`${"é".repeat(200)}\nafter`);
  });

  it("says a page or a window of bytes ended at the byte limit, and where to go on", async () => {
    const root = await tempDir();
    const lines = Array.from({ length: 10 }, (_, i) => `${String(i + 1).padStart(2, "0")} ${"y".repeat(97)}`); // 100 bytes and a newline each
    await writeFile(join(root, "f.txt"), `${lines.join("\n")}\n`);
    const read = createReadTool({ cwd: root, maxSize: 350 });
    const page = await run(read, { path: "f.txt", startLine: 2, endLine: 9 });
    expect(textOf(page)).toBe(
      `${lines.slice(1, 4).join("\n")}\n\n[Showing lines 2-4 of 10: the next line would pass the 350-byte limit (maxSize). Use startLine=5 to continue.]`,
    );
    expect(page.details).toMatchObject({ truncated: true, nextStartLine: 5 });
    const window = await run(read, { path: "f.txt", byteOffset: 101 });
    expect(textOf(window)).toBe(`${lines.slice(1, 4).join("\n")}\n\n[Bytes 101-404 of 1,010: the 350-byte limit (maxSize). Use byteOffset=404 to continue.]`);
  });

  it("tail: the last lines, with and without a final newline, capped by the limits", async () => {
    const root = await tempDir();
    const lines = Array.from({ length: 50_000 }, (_, i) => `line ${i + 1}`);
    await writeFile(join(root, "big.txt"), `${lines.join("\n")}\n`);
    await writeFile(join(root, "open.txt"), "a\nb\nc");
    await writeFile(join(root, "small.txt"), "one\ntwo\n");
    await writeFile(join(root, "empty.txt"), "");
    const { read } = byName(createFsTools({ cwd: root, maxLines: 100 }));
    const tail = await run(read, { path: "big.txt", tail: 3 });
    expect(linesOf(tail)).toBe("line 49998\nline 49999\nline 50000");
    expect(tail.details).toMatchObject({ linesRead: 3, truncated: false });
    expect(linesOf(await run(read, { path: "open.txt", tail: 2 }))).toBe("b\nc");
    const whole = await run(read, { path: "small.txt", tail: 10 });
    expect(textOf(whole)).toBe("one\ntwo\n\n[The whole file: 2 lines.]");
    expect(whole.details).toMatchObject({ totalLines: 2 });
    const capped = await run(read, { path: "big.txt", tail: 500 });
    expect(linesOf(capped).split("\n")).toEqual(lines.slice(-100));
    expect(textOf(capped)).toContain("the 100-line limit, maxLines");
    expect(textOf(await run(read, { path: "empty.txt", tail: 1 }))).toBe("[The file is empty.]");
    const both = await run(read, { path: "big.txt", tail: 1, startLine: 2 });
    expect(both.details.code).toBe(FsErrorCode.BAD_RANGE);
  });

  it("endLine before the end says how many lines remain", async () => {
    const root = await tempDir();
    await writeFile(join(root, "f.txt"), "1\n2\n3\n4\n5\n");
    const result = await run(createReadTool({ cwd: root }), { path: "f.txt", endLine: 2 });
    expect(textOf(result)).toBe("1\n2\n\n[Lines 1-2 of 5: 3 more lines follow. Use startLine=3 to continue.]");
    expect(result.details).toMatchObject({ totalLines: 5, nextStartLine: 3, truncated: false });
  });
});
