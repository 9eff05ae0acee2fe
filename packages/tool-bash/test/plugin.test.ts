import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { AgentHarness, ErrorCode, isPlugin, type ToolhostError } from "@toolhost/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import bashPlugin, { BashErrorCode, createBashTool } from "../src/index.js";
import { tempFolder, textOf } from "./_helpers.js";

let dir: string;
let remove: () => void;
beforeEach(() => {
  ({ dir, remove } = tempFolder());
});
afterEach(() => remove());

async function harnessWith(options?: unknown): Promise<AgentHarness> {
  const harness = new AgentHarness({ cwd: dir });
  await harness.use(bashPlugin, options);
  return harness;
}

// The config loader (core's `@toolhost/core/config`) is being written beside this package; until it
// lands, these tests check what it relies on: a plugin value, and options validated by `use`.
describe("the plugin", () => {
  it("is a plugin named after its package, registering bash", async () => {
    expect(isPlugin(bashPlugin)).toBe(true);
    expect(bashPlugin.name).toBe("@toolhost/tool-bash");
    expect(bashPlugin.version).toBe(JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")).version);
    const harness = await harnessWith();
    expect(harness.tools.map((tool) => tool.name)).toEqual(["bash"]);
    expect(harness.toolOwner("bash")).toBe('plugin "@toolhost/tool-bash"');
    expect(harness.getTool("bash")?.executionMode).toBe("sequential");
  });

  it("runs in the harness's cwd, and resolves a relative cwd option against it", async () => {
    const [here] = await (await harnessWith()).executeToolCalls([{ id: "1", name: "bash", arguments: { command: "pwd" } }]);
    expect(textOf(here as never)).toBe(dir);
    const harness = new AgentHarness({ cwd: dir });
    await harness.use(bashPlugin, { cwd: ".." });
    const [parent] = await harness.executeToolCalls([{ id: "1", name: "bash", arguments: { command: "pwd" } }]);
    expect(textOf(parent as never)).toBe(join(dir, ".."));
  });

  it("refuses bad options, naming each", async () => {
    const error = await harnessWith({ timeout: -1, maxOutputBytes: "big", tiemout: 5 }).then(
      () => undefined,
      (thrown: unknown) => thrown as ToolhostError,
    );
    expect(error?.code).toBe(ErrorCode.INVALID_PLUGIN_OPTIONS);
    expect(error?.message).toContain('Invalid options for plugin "@toolhost/tool-bash"');
    expect(error?.message).toContain("/timeout");
    expect(error?.message).toContain("/maxOutputBytes");
    expect(error?.message).toContain("/tiemout");
  });

  it("createBashTool refuses bad options the same way", () => {
    expect(() => createBashTool({ killGraceMs: -5 })).toThrow(/\/killGraceMs/);
  });

  it("checks the arguments of a call", async () => {
    const harness = await harnessWith();
    const [result] = await harness.executeToolCalls([{ id: "1", name: "bash", arguments: { command: "true", timeout: 0 } }]);
    expect(result?.isError).toBe(true);
    expect(result?.details).toMatchObject({ code: ErrorCode.INVALID_ARGUMENTS });
  });

  it("passes a failed start through the pipeline as an error result", async () => {
    const harness = await harnessWith({ cwd: join(dir, "gone") });
    const [result] = await harness.executeToolCalls([{ id: "1", name: "bash", arguments: { command: "true" } }]);
    expect(result?.isError).toBe(true);
    expect(result?.details).toMatchObject({ code: BashErrorCode.CWD_NOT_FOUND });
  });
});

describe("a batch of bash calls", { timeout: 60_000 }, () => {
  // Call "wait" waits for the file that call "make" creates: it ends only if "make" runs beside it.
  const waitFor = (file: string, timeout: number) => ({
    command: `until [ -e ${file} ]; do sleep 0.01; done; echo waited`,
    timeout,
  });
  const make = (file: string) => ({ command: `touch ${file}; echo made` });

  it("runs the calls in the model's order by default, one at a time", async () => {
    const harness = await harnessWith({ killGraceMs: 100 });
    const file = join(dir, "flag");
    const results = await harness.executeToolCalls([
      // It can only time out: "make" runs after it.
      { id: "wait", name: "bash", arguments: waitFor(file, 1) },
      { id: "make", name: "bash", arguments: make(file) },
    ]);
    expect(results.map((result) => result.toolCallId)).toEqual(["wait", "make"]);
    expect(results[0]?.details).toMatchObject({ code: BashErrorCode.TIMED_OUT });
    expect(textOf(results[1] as never)).toBe("made");
    expect(existsSync(file)).toBe(true);
  });

  it('runs them side by side with executionMode "parallel", results in the calls\' order', async () => {
    // Sandboxed ("required": it fails without bwrap). This once lost the "wait" call's output under
    // load: the reading stopped before the pipes were polled (see test/stress.test.ts).
    const harness = await harnessWith({ executionMode: "parallel", sandbox: "required" });
    const file = join(dir, "flag");
    const results = await harness.executeToolCalls([
      // It ends as soon as "make" has run beside it; the timeout only bounds a failure.
      { id: "wait", name: "bash", arguments: waitFor(file, 30) },
      { id: "make", name: "bash", arguments: make(file) },
      { id: "fail", name: "bash", arguments: { command: "echo no >&2; exit 1" } },
    ]);
    expect(results.map((result) => [result.toolCallId, textOf(result as never), result.isError])).toEqual([
      ["wait", "waited", false],
      ["make", "made", false],
      ["fail", "[stderr]\nno\n[exit code 1]", true],
    ]);
  });
});
