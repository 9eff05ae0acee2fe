import { existsSync, readdirSync, statSync } from "node:fs";
import { dirname } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { AgentHarness } from "@toolhost/core";
import { describe, expect, it } from "vitest";
import bashPlugin from "../src/index.js";
import { runBash, tempFolder } from "./_helpers.js";

const MiB = 1024 ** 2;

async function harnessIn(dir: string, options: Record<string, unknown>): Promise<AgentHarness> {
  const harness = new AgentHarness({ cwd: dir, workspace: dir });
  await harness.use(bashPlugin, options);
  return harness;
}

describe("bash: the host's disk is bounded (issue 36)", () => {
  it("a 200 MB flood under fileSizeBytes 32 MiB leaves at most 32 MiB on the host, says the cut, and the file goes with the tool", async () => {
    const { dir, remove } = tempFolder();
    const harness = await harnessIn(dir, { sandbox: "required", limits: { fileSizeBytes: 32 * MiB } });
    try {
      const result = await runBash(harness, "yes xxxxxxxxx | head -c 200M");
      const path = result.details.fullOutputPath as string;
      expect(result.isError).toBe(false);
      expect(statSync(path).size).toBe(32 * MiB);
      const total = 200 * MiB;
      expect(result.details.fullOutputCut).toEqual({ keptBytes: 32 * MiB, totalBytes: total });
      expect(result.text).toContain(`full output: ${path} (kept until ${result.details.fullOutputExpiresAt}, cut at 32 MiB of 200 MiB (fullOutputBytes))`);
      await harness.dispose();
      expect(existsSync(path)).toBe(false);
      expect(existsSync(dirname(path))).toBe(false);
    } finally {
      remove();
    }
  }, 180_000);

  it("fullOutputBytes bounds it below fileSizeBytes; a file past its lifetime is removed; an output that fits leaves no file", async () => {
    const { dir, remove } = tempFolder();
    const harness = await harnessIn(dir, { sandbox: "off", fullOutputBytes: 4096, fullOutputLifetime: 1 });
    try {
      const result = await runBash(harness, "seq 1 100000");
      const path = result.details.fullOutputPath as string;
      expect(statSync(path).size).toBe(4096);
      expect(result.details.fullOutputCut).toEqual({ keptBytes: 4096, totalBytes: 588_895 });
      expect(result.text).toContain("cut at 4 KiB of 575.1 KiB (fullOutputBytes)");
      // Removed when its lifetime (1 s) is over: waited for, not timed.
      while (existsSync(path)) await delay(50);
      const small = await runBash(harness, "seq 1 10");
      expect(small.details.fullOutputPath).toBeNull();
      expect(small.details.fullOutputCut).toBeUndefined();
      expect(readdirSync(dirname(path))).toEqual([]);
    } finally {
      await harness.dispose();
      remove();
    }
  }, 60_000);
});
