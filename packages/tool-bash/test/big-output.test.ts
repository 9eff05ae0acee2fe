import { execFileSync } from "node:child_process";
import { rmSync, statSync } from "node:fs";
import { dirname } from "node:path";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import { createBashTool } from "../src/index.js";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

const LINE = "x".repeat(100);
const COMMAND = `yes ${LINE} | head -c 100M`;
const SIZE = 100 * 1024 * 1024;

describe("bash: 100 MB of output", () => {
  it(
    "keeps this process's memory bounded and the full-output file complete",
    async () => {
      const tool = createBashTool({ cwd: process.cwd() });
      gc();
      const before = process.memoryUsage().rss;
      let peak = before;
      const sampler = setInterval(() => {
        peak = Math.max(peak, process.memoryUsage().rss);
      }, 10);
      let updates = 0;
      const result = await tool.execute("big", { command: COMMAND }, new AbortController().signal, () => {
        updates += 1;
      }, undefined);
      clearInterval(sampler);
      peak = Math.max(peak, process.memoryUsage().rss);
      const path = result.details.fullOutputPath as string;
      try {
        expect(result.isError).toBeUndefined();
        // A memory bound, not a timing: the output is 100 MB, what this process holds stays far below.
        // (About 10 MiB here; Node's own child pipes would take about 40. 64 leaves room for a busy machine.)
        expect((peak - before) / 2 ** 20).toBeLessThan(64);
        expect(statSync(path).size).toBe(SIZE);
        const sha = (command: string) => execFileSync("bash", ["-c", command], { encoding: "utf8" }).split(" ")[0];
        expect(sha(`sha256sum ${path}`)).toBe(sha(`${COMMAND} | sha256sum`));

        const { stdout } = result.details;
        expect(Buffer.byteLength(stdout)).toBeLessThanOrEqual(50 * 1024 + 200);
        const lines = stdout.split("\n");
        expect(lines[0]).toBe(LINE);
        // 100 MB of 101-byte lines: 1,038,194 whole lines and a last one of 6 bytes.
        expect(lines[lines.length - 1]).toBe("xxxxxx");
        const marker = lines.find((line) => line.startsWith("… ")) ?? "";
        const left = Number(/^… ([\d,]+) lines left out; full output: /.exec(marker)?.[1]?.replace(/,/g, ""));
        expect(left + lines.length - 1).toBe(1_038_195);
        expect(updates).toBeGreaterThan(0);
      } finally {
        rmSync(dirname(path), { recursive: true, force: true });
      }
    },
    120_000,
  );
});
