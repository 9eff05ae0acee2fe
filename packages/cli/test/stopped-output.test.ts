import { AgentHarness, ErrorCode, type ToolResultMessage } from "@toolhost/core";
import bash from "@toolhost/tool-bash";
import { afterEach, describe, expect, it } from "vitest";
import { removeDir, tempDir } from "./_helpers.js";

// A stopped call keeps what its tool printed before it was stopped: the real bash plugin, a real
// shell. The grace is generous so that a loaded machine cannot make the test flaky; the kernel
// returns as soon as the tool has settled.

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) removeDir(dir);
});

async function bashHarness(options: { toolTimeoutMs?: number } = {}): Promise<AgentHarness> {
  const dir = tempDir("toolhost-stopped-");
  dirs.push(dir);
  const harness = new AgentHarness({ cwd: dir, abortGraceMs: 60_000, ...options });
  await harness.use(bash, { killGraceMs: 500 });
  return harness;
}

const textOf = (result: ToolResultMessage | undefined): string =>
  (result?.content ?? []).map((block) => (block.type === "text" ? block.text : "")).join("\n");
const codeOf = (result: ToolResultMessage | undefined): unknown => (result?.details as { code?: unknown } | undefined)?.code;

describe("a stopped call keeps its output so far", () => {
  it("returns what an aborted bash command printed, with the aborted code", async () => {
    const harness = await bashHarness();
    const controller = new AbortController();
    // Abort once the command's first line has streamed out.
    harness.subscribe((event) => {
      if (event.type === "tool_execution_update" && JSON.stringify(event.partialResult).includes("started")) controller.abort();
    });
    const [result] = await harness.executeToolCalls(
      [{ id: "1", name: "bash", arguments: { command: "echo started; sleep 30; echo never" } }],
      { signal: controller.signal },
    );
    await harness.dispose();
    expect(result?.isError).toBe(true);
    expect(codeOf(result)).toBe(ErrorCode.ABORTED);
    expect(textOf(result)).toContain("started");
    expect(textOf(result)).not.toContain("never");
    expect(textOf(result)).toContain('Tool "bash" aborted.');
  });

  it("returns what a timed-out bash command printed, with the timed-out code", async () => {
    const harness = await bashHarness({ toolTimeoutMs: 8_000 });
    const [result] = await harness.executeToolCalls([
      { id: "1", name: "bash", arguments: { command: "echo started; sleep 60; echo never" } },
    ]);
    await harness.dispose();
    expect(result?.isError).toBe(true);
    expect(result?.details).toMatchObject({ code: ErrorCode.TIMED_OUT, timeoutMs: 8_000 });
    expect(textOf(result)).toContain("started");
    expect(textOf(result)).not.toContain("never");
    expect(textOf(result)).toContain('Tool "bash" timed out after 8000 ms.');
  });
});
