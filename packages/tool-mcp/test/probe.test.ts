import { join } from "node:path";
import type { AgentHarness } from "@toolhost/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { PROBE_SERVER, call, codeOf, harnessWith, isRunning, probeLog, removeDir, tempDir, text, until } from "./_helpers.js";
import { readFileSync, existsSync } from "node:fs";

// Our probe server (the official v2 server SDK) logs every call it receives, so these tests can
// tell what reached it.
let dir: string;
let log: string;
let harness: AgentHarness | undefined;
beforeEach(() => {
  dir = tempDir();
  log = join(dir, "calls.jsonl");
});
afterEach(async () => {
  await harness?.dispose();
  harness = undefined;
  removeDir(dir);
});

const probe = (env: Record<string, string> = {}) => ({ command: process.execPath, args: [PROBE_SERVER], env: { PROBE_LOG: "${workspace}/calls.jsonl", ...env } });

describe("tool-mcp with a v2 server", () => {
  it("checks a draft-07 schema fully: types, minimum, enum and extra fields are refused before the server", async () => {
    ({ harness } = await harnessWith(dir, { servers: { probe: probe() } }));
    const low = await call(harness, "probe__strict", { path: "a", count: 0 });
    expect(codeOf(low)).toBe("TOOLHOST_INVALID_ARGUMENTS");
    expect(text(low)).toContain("/count: must be >= 1");
    const extra = await call(harness, "probe__strict", { path: "a", color: "red" });
    expect(text(extra)).toContain("/color: must NOT have additional properties");
    const mode = await call(harness, "probe__strict", { path: "a", mode: "c" });
    expect(text(mode)).toContain('/mode: must be equal to one of the allowed values: ["a","b"]');
    const missing = await call(harness, "probe__strict", {});
    expect(text(missing)).toContain("/path: must have required property 'path'");
    expect(probeLog(log)).toEqual([]);
    const ok = await call(harness, "probe__strict", { path: "a", count: 2, mode: "b" });
    expect(text(ok)).toBe('strict {"path":"a","count":2,"mode":"b"}');
    expect(probeLog(log)).toEqual([{ tool: "strict", args: { path: "a", count: 2, mode: "b" } }]);
  });

  it("turns progress into updates, and an abort into a cancellation the server receives", async () => {
    ({ harness } = await harnessWith(dir, { servers: { probe: probe() } }));
    const updates: string[] = [];
    const controller = new AbortController();
    harness.subscribe((event) => {
      if (event.type !== "tool_execution_update") return;
      updates.push(text({ content: event.partialResult.content } as never));
      if (updates.length === 2) controller.abort();
    });
    const result = await call(harness, "probe__slow", {}, controller.signal);
    expect(result.isError).toBe(true);
    expect(codeOf(result)).toBe("TOOLHOST_ABORTED");
    expect(updates.slice(0, 2)).toEqual(["tick 1", "tick 2"]);
    await until(() => probeLog(log).some((entry) => entry.cancelled === "slow"), "the server to see the cancellation");
  });

  it("ends a call after toolTimeout with a result that says so, and cancels it on the server", async () => {
    ({ harness } = await harnessWith(dir, { servers: { probe: probe() }, toolTimeout: 0.5 }));
    const result = await call(harness, "probe__slow", {});
    expect(codeOf(result)).toBe("TOOLHOST_MCP_TIMED_OUT");
    expect(text(result)).toContain('MCP server "probe" did not answer slow within 0.5 s (tool-mcp\'s toolTimeout)');
    await until(() => probeLog(log).some((entry) => entry.cancelled === "slow"), "the server to see the cancellation");
  });

  it("reports a server that crashes mid-call with its stderr, and starts it again on the next call", async () => {
    ({ harness } = await harnessWith(dir, { servers: { probe: probe() } }));
    const crashed = await call(harness, "probe__crash", {});
    expect(crashed.isError).toBe(true);
    expect(codeOf(crashed)).toBe("TOOLHOST_MCP_SERVER_EXITED");
    expect(text(crashed)).toContain('MCP server "probe" stopped during the call of crash (exit code 7)');
    expect(text(crashed)).toContain("probe: crashing on purpose");
    const next = await call(harness, "probe__echo", { text: "back again" });
    expect(next.isError).toBe(false);
    expect(text(next)).toBe("back again");
  });

  it("cuts a large result to maxResultChars with a note", async () => {
    ({ harness } = await harnessWith(dir, { servers: { probe: probe() }, maxResultChars: 1000 }));
    const result = await call(harness, "probe__big", {});
    expect(result.isError).toBe(false);
    expect(result.content[0]).toEqual({ type: "text", text: "x".repeat(1000) });
    expect(text(result)).toContain("199000 characters of this result were cut (tool-mcp's maxResultChars is 1000)");
  });

  it("keeps a server's isError as an error result with a stable code", async () => {
    ({ harness } = await harnessWith(dir, { servers: { probe: probe() } }));
    const result = await call(harness, "probe__fails", {});
    expect(result.isError).toBe(true);
    expect(codeOf(result)).toBe("TOOLHOST_MCP_TOOL_ERROR");
    expect(text(result)).toBe("the probe failed on purpose");
  });

  it("reports a server that never answers initialize (startupTimeout) and a broken one, and keeps the others", async () => {
    let stderr: string;
    ({ harness, stderr } = await harnessWith(dir, {
      servers: {
        probe: probe(),
        silent: { command: process.execPath, args: ["-e", "process.stdin.resume()"] },
        broken: { command: process.execPath, args: ["-e", "console.error('cannot open the database'); process.exit(4)"] },
        missing: { command: "toolhost-no-such-program" },
      },
      startupTimeout: 2,
    }));
    expect(stderr).toMatch(/MCP server "silent" did not start \(after \d+\.\d s\): it did not answer initialize within 2 s \(startupTimeout\)/);
    expect(stderr).toMatch(/MCP server "broken" did not start \(after \d+\.\d s\): its process exited \(exit code 4\)/);
    expect(stderr).toContain("cannot open the database");
    expect(stderr).toMatch(/MCP server "missing" did not start .*ENOENT/);
    expect(harness.tools.map((tool) => tool.name)).toContain("probe__echo");
    expect(text(await call(harness, "probe__echo", { text: "still here" }))).toBe("still here");
  });

  it("refuses two tools that reduce to one name, naming both, and ends the servers it started", async () => {
    const pidFile = join(dir, "probe.pid");
    const attempt = harnessWith(dir, { servers: { probe: probe({ PROBE_COLLIDE: "1", PROBE_PID: pidFile }) } });
    await expect(attempt).rejects.toMatchObject({ code: "TOOLHOST_MCP_NAME_COLLISION" });
    await expect(attempt).rejects.toThrow(/tool "read_file" of MCP server "probe" and tool "read.file" of MCP server "probe" both become the tool name "probe__read_file"/);
    const pid = Number(readFileSync(pidFile, "utf8"));
    await until(() => !isRunning(pid), "the server to end");
  });

  it("substitutes ${workspace} and ${env:NAME}, and reports a variable that is not set", async () => {
    process.env.TOOLHOST_TEST_PROBE = join(dir, "from-env.pid");
    let stderr: string;
    ({ harness, stderr } = await harnessWith(dir, {
      servers: {
        probe: probe({ PROBE_PID: "${env:TOOLHOST_TEST_PROBE}" }),
        other: probe({ PROBE_PID: "${env:TOOLHOST_TEST_UNSET_VARIABLE}" }),
      },
    }));
    delete process.env.TOOLHOST_TEST_PROBE;
    expect(existsSync(join(dir, "from-env.pid"))).toBe(true);
    expect(stderr).toContain("servers.other.env.PROBE_PID uses ${env:TOOLHOST_TEST_UNSET_VARIABLE}, but the environment variable TOOLHOST_TEST_UNSET_VARIABLE is not set");
    await call(harness, "probe__echo", { text: "x" });
    expect(probeLog(log)).toEqual([{ tool: "echo", args: { text: "x" } }]);
  });

  it("ends the server's process on dispose", async () => {
    const pidFile = join(dir, "probe.pid");
    ({ harness } = await harnessWith(dir, { servers: { probe: probe({ PROBE_PID: pidFile }) } }));
    const pid = Number(readFileSync(pidFile, "utf8"));
    expect(isRunning(pid)).toBe(true);
    await harness.dispose();
    harness = undefined;
    expect(isRunning(pid)).toBe(false);
  });

  it("hands the call's trace context to the server in _meta (traceparent at its root), beside the progress token", async () => {
    ({ harness } = await harnessWith(dir, { servers: { probe: probe() } }));
    const traceparent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
    harness.hooks.propagate.tap("test-trace", (carrier) => {
      carrier.traceparent = traceparent;
    });
    const result = await call(harness, "probe__echo", { text: "traced" });
    expect(text(result)).toBe("traced");
    expect(probeLog(log)).toEqual([{ tool: "echo", args: { text: "traced" }, meta: { traceparent, progressToken: true } }]);
  });
});

