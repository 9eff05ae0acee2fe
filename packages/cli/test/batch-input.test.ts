import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { jsonLines, project, removeDir, tempDir, toolhost, writeConfig } from "./_helpers.js";

// Whatever a user feeds `toolhost run` or `toolhost call`, they get results or a clear error with a
// code: never a stack trace, never a batch whose results are lost after its calls ran.

const DEEP = `${"[".repeat(5_000)}1${"]".repeat(5_000)}`;
const STACK = /\n\s+at /;

let dir: string;
beforeEach(() => {
  dir = project(tempDir());
  writeConfig(dir, { plugins: ["@toolhost/tool-bash", ["./plugins/echo-plugin.mjs", { prefix: "> " }], "./plugins/keep-plugin.mjs"] });
});
afterEach(() => removeDir(dir));

type Result = { toolCallId: string; isError: boolean; content: { text: string }[]; details: { code?: string; args?: unknown } };

describe("batches a user types", () => {
  it("skips a null content block of an assistant message, and says when no call is left", async () => {
    const empty = await toolhost(["run", "-"], { cwd: dir, input: '{"role":"assistant","content":[null]}\n' });
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain("The batch has no tool calls.");
    expect(empty.stderr).not.toMatch(STACK);
    const mixed = JSON.stringify({ role: "assistant", content: [null, 5, { type: "toolCall", id: "m1", name: "echo", arguments: { text: "hi" } }] });
    const ran = await toolhost(["run", "-"], { cwd: dir, input: `${mixed}\n` });
    expect(ran.code).toBe(0);
    expect((jsonLines(ran.stdout) as Result[]).map((r) => r.content[0]?.text)).toEqual(["> hi"]);
  });

  it("says a 5,000-level deep item is not a tool call, in a short message", async () => {
    const result = await toolhost(["run", "-"], { cwd: dir, input: `[${DEEP}]` });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("item 1 of the batch is not a tool call");
    expect(result.stderr).not.toMatch(STACK);
    expect(result.stderr.length).toBeLessThan(2_000);
  });

  it("prints every result of a batch whose last call has 5,000-level deep arguments, after the earlier calls ran", async () => {
    const input = `[{"id":"w","name":"bash","arguments":{"command":"echo written > out.txt"}},{"id":"d","name":"echo","arguments":${DEEP}},{"id":"k","name":"keep","arguments":{"deep":${DEEP}}}]`;
    const result = await toolhost(["run", "-"], { cwd: dir, input });
    expect(result.stderr).not.toMatch(STACK);
    expect(existsSync(join(dir, "out.txt"))).toBe(true);
    const results = jsonLines(result.stdout) as Result[];
    expect(results.map((r) => [r.toolCallId, r.isError, r.details.code])).toEqual([
      ["w", false, undefined],
      ["d", true, "TOOLHOST_INVALID_ARGUMENTS"],
      ["k", false, undefined],
    ]);
    // The kept arguments are too deep for JSON: they are printed as a bounded preview.
    expect(typeof results[2]?.details.args).toBe("string");
    expect(result.code).toBe(1);
  });

  it("prints every event of such a batch with --events", async () => {
    const input = `[{"id":"k","name":"keep","arguments":${DEEP}}]`;
    const result = await toolhost(["run", "--events", "-"], { cwd: dir, input });
    expect(result.code).toBe(0);
    expect(result.stderr).toBe("");
    const types = (jsonLines(result.stdout) as Array<{ type: string }>).map((event) => event.type);
    expect(types).toEqual(["tool_execution_start", "tool_execution_end", "message_start", "message_end"]);
  });

  it("prints the whole result of toolhost call --json for deep arguments", async () => {
    const result = await toolhost(["--json", "call", "keep", "-"], { cwd: dir, input: DEEP });
    expect(result.code).toBe(0);
    expect(result.stderr).not.toMatch(STACK);
    expect(jsonLines(result.stdout)).toHaveLength(1);
  });
});
