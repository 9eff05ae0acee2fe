import { spawnSync } from "node:child_process";
import { stat } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createReadTool } from "../src/index.js";
import { run, tempDir, linesOf, textOf } from "./_helpers.js";

const LINE = 100; // bytes per line, newline included
const LINES = 6_000_000; // 600 MB

/** Line n (1-based) of the generated file, without its newline. */
const lineText = (n: number): string => `${String(n).padStart(10, "0")} ${"x".repeat(LINE - 12)}`;

describe("read of a 600 MB file", () => {
  it("returns lines near the end with memory bounded", async () => {
    const root = await tempDir();
    const file = join(root, "big.txt");
    // Generated in a child process, so its buffers do not count against this one.
    const generated = spawnSync(
      process.execPath,
      [
        "-e",
        `const fs = require("node:fs");
const [file, LINE, LINES] = [process.argv[1], ${LINE}, ${LINES}];
const per = 40000;
const chunk = Buffer.alloc(per * LINE, "x");
for (let i = 0; i < per; i++) { chunk[i * LINE + 10] = 32; chunk[i * LINE + LINE - 1] = 10; }
const fd = fs.openSync(file, "w");
for (let first = 1; first <= LINES; first += per) {
  const count = Math.min(per, LINES - first + 1);
  for (let i = 0; i < count; i++) chunk.write(String(first + i).padStart(10, "0"), i * LINE, "latin1");
  fs.writeSync(fd, chunk, 0, count * LINE);
}
fs.closeSync(fd);`,
        file,
      ],
      { stdio: "inherit" },
    );
    expect(generated.status).toBe(0);
    expect((await stat(file)).size).toBe(LINE * LINES);

    const read = createReadTool({ cwd: root });
    global.gc?.();
    const before = process.memoryUsage().rss;
    let peak = before;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss);
    }, 2);
    const result = await run(read, { path: "big.txt", startLine: LINES - 10, endLine: LINES - 6 });
    clearInterval(sampler);
    peak = Math.max(peak, process.memoryUsage().rss, process.resourceUsage().maxRSS * 1024);

    const expected = Array.from({ length: 5 }, (_, i) => lineText(LINES - 10 + i)).join("\n");
    expect(linesOf(result)).toBe(expected);
    expect(textOf(result)).toContain(`Use startLine=${LINES - 5} to continue.`);
    expect(result.details).toMatchObject({ linesRead: 5, truncated: false });
    expect(peak - before).toBeLessThan(100 * 1024 * 1024);

    // Without a range, the first maxLines lines come back and the note says where to go on.
    const head = await run(read, { path: "big.txt" });
    expect(head.details).toMatchObject({ linesRead: 2000, truncated: true, nextStartLine: 2001 });
    expect(textOf(head)).toContain("[Showing lines 1-2000 (the file has 600,000,000 bytes): the 2,000-line limit (maxLines). Use startLine=2001 to continue.]");
  }, 300_000);
});
