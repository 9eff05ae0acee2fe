import { type ChildProcess, spawn } from "node:child_process";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { HOSTILE_HTTP_SERVER, HOSTILE_SERVER, HOST, removeDir, tempDir } from "./_helpers.js";

// A malicious MCP server (our own, plain Node, no SDK: test/fixtures/hostile-server.mjs and
// hostile-http-server.mjs) against a real host: a harness with tool-mcp in a process of its own
// (test/fixtures/host.mjs), which prints each result and its peak memory. Nothing the server does
// may crash the host, leave a call without a result, or grow its memory with what it sends.
//
// The memory bound: Node, the SDK, Ajv and the harness take about 80 MB; tool-mcp holds at most one
// message under maxMessageBytes (10 MiB) at a time, as chunks, text and parsed value (about 40 MB);
// V8 lets garbage build up between collections while 40 MB lines and 200,000 notifications go
// through (measured peaks: 110 to 215 MB). A host that kept any 40 MB line (the SDK's reader
// concatenated every chunk), the 74 MB of the line without an end, or the notifications, would
// pass 300 MiB.
const PEAK_BOUND_KIB = 300 * 1024;

interface Line {
  tool: string;
  isError: boolean;
  code?: string;
  text: string;
  chars: number;
}

let dir: string;
const children: ChildProcess[] = [];
beforeEach(() => {
  dir = tempDir();
});
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
  removeDir(dir);
});

/** Runs the host on `batches` of tool names and returns its results, its peak memory and how it exited. */
function runHost(options: Record<string, unknown>, batches: string[][]): Promise<{ code: number | null; results: Line[]; peakKiB: number; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [HOST, JSON.stringify({ options, batches })], { cwd: dir, stdio: ["ignore", "pipe", "pipe"] });
    children.push(child);
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.on("error", reject);
    child.on("close", (code) => {
      const lines = stdout.split("\n").filter(Boolean).map((line) => JSON.parse(line) as Line & { peakKiB?: number });
      const last = lines.at(-1);
      resolve({ code, results: lines.filter((line) => line.peakKiB === undefined), peakKiB: last?.peakKiB ?? Number.NaN, stderr });
    });
  });
}

const stdioServer = { command: process.execPath, args: [HOSTILE_SERVER] };
const pidOf = (line: Line | undefined): string => /^pid (\d+)$/.exec(line?.text ?? "")?.[1] ?? `no pid in ${JSON.stringify(line)}`;

describe("tool-mcp against a hostile stdio server", () => {
  it("answers every call, stays up, restarts the server when the stream is lost, and bounds its memory", async () => {
    const batches = [
      ["evil__echo"],
      ["evil__huge"],
      ["evil__huge_id_first"],
      ["evil__garbage"],
      ["evil__malformed"],
      ["evil__flood"],
      ["evil__big"],
      ["evil__echo"],
      ["evil__huge_anonymous"],
      ["evil__echo"],
      ["evil__endless"],
      ["evil__echo"],
      ["evil__crash"],
      ["evil__echo", "evil__huge", "evil__echo"],
    ];
    // No per-call time-out: 200,000 notifications take longer than its default 60 s on a loaded machine,
    // and every case here ends by what the server does, not by the clock.
    const { code, results, peakKiB, stderr } = await runHost({ servers: { evil: stdioServer }, toolTimeout: 0 }, batches);
    expect(code, stderr).toBe(0);
    expect(results.map((line) => line.tool)).toEqual(batches.flat());
    const [first, huge, idFirst, garbage, malformed, flood, big, same, anonymous, second, endless, third, crash, fourth, hugeBeside, fifth] = results;

    // A 40 MB answer ends its call, whether its id comes last (the TypeScript SDK) or first.
    for (const line of [huge, idFirst, hugeBeside]) {
      expect(line?.code).toBe("TOOLHOST_MCP_MESSAGE_TOO_LARGE");
      expect(line?.text).toContain('on MCP server "evil" ended: the server sent an answer longer than 10 MiB, tool-mcp\'s limit for one message (maxMessageBytes)');
    }
    // Garbage between messages is skipped; an answer that is not JSON-RPC ends its call.
    expect(garbage).toMatchObject({ isError: false, text: "answered after the garbage" });
    expect(malformed).toMatchObject({ isError: true, code: "TOOLHOST_MCP_BAD_ANSWER" });
    expect(malformed?.text).toContain("answered with a message that is not valid JSON-RPC");
    // 200,000 notifications, then the answer; a 5 MB answer is under the limit and cut as before.
    expect(flood).toMatchObject({ isError: false, text: "answered after 200000 notifications" });
    expect(big?.isError).toBe(false);
    expect(big?.chars).toBeLessThan(50_300);
    expect(big?.text).toContain("characters of this result were cut (tool-mcp's maxResultChars is 50000)");
    // None of that needed a new server process.
    expect(pidOf(same)).toBe(pidOf(first));

    // A 40 MB line that names no call, while a call waits: the server is stopped, and restarted.
    expect(anonymous?.code).toBe("TOOLHOST_MCP_MESSAGE_TOO_LARGE");
    expect(anonymous?.text).toContain("that names no call, while calls waited for answers; the server was stopped");
    expect(pidOf(second)).not.toBe(pidOf(first));
    // A line with no end: stopped after 74 MiB, restarted.
    expect(endless?.code).toBe("TOOLHOST_MCP_MESSAGE_TOO_LARGE");
    expect(endless?.text).toContain("sent a line that went on for more than 74 MiB without an end");
    expect(pidOf(third)).not.toBe(pidOf(second));
    // A crash in the middle of an answer: the call says so, the next call starts the server again.
    expect(crash?.code).toBe("TOOLHOST_MCP_SERVER_EXITED");
    expect(crash?.text).toMatch(/stopped during the call of crash \(exit code 3\).*Its last message was cut off after \d+ bytes\. The next call starts it again\./);
    expect(pidOf(fourth)).not.toBe(pidOf(third));
    expect(pidOf(fifth)).toBe(pidOf(fourth));

    expect(peakKiB).toBeLessThan(PEAK_BOUND_KIB);
  }, 300_000);

  it("names the limit and the option when maxMessageBytes is set lower", async () => {
    const { code, results } = await runHost({ servers: { evil: stdioServer }, maxMessageBytes: 1024 * 1024 }, [["evil__big"], ["evil__echo"]]);
    expect(code).toBe(0);
    expect(results[0]?.code).toBe("TOOLHOST_MCP_MESSAGE_TOO_LARGE");
    expect(results[0]?.text).toContain("sent an answer longer than 1 MiB, tool-mcp's limit for one message (maxMessageBytes); it was skipped. If the server's answers are meant to be this large, raise maxMessageBytes");
    expect(results[1]?.text).toMatch(/^pid \d+$/);
  }, 120_000);

  it("stops reading a server that floods requests and does not read the answers, and times the call out", async () => {
    const { code, results, peakKiB } = await runHost({ servers: { evil: stdioServer }, toolTimeout: 3 }, [["evil__requests"]]);
    expect(code).toBe(0);
    expect(results[0]).toMatchObject({ isError: true, code: "TOOLHOST_MCP_TIMED_OUT" });
    // 300,000 pings answered and held would be several hundred MB of the SDK's request state.
    expect(peakKiB).toBeLessThan(PEAK_BOUND_KIB);
  }, 120_000);
});

describe("tool-mcp against a hostile Streamable HTTP server", () => {
  it("bounds response bodies and events, ends the call they answer, and goes on", async () => {
    const server = spawn(process.execPath, [HOSTILE_HTTP_SERVER], { cwd: dir, stdio: ["ignore", "pipe", "inherit"] });
    children.push(server);
    const url = await new Promise<string>((resolve, reject) => {
      server.stdout.setEncoding("utf8").once("data", (chunk: string) => resolve(chunk.trim()));
      server.once("exit", (exit) => reject(new Error(`the hostile HTTP server exited (${exit})`)));
    });
    const batches = [["web__huge_json"], ["web__echo"], ["web__huge_event"], ["web__endless_event"], ["web__huge_error"], ["web__echo"]];
    const { code, results, peakKiB, stderr } = await runHost({ servers: { web: { url } } }, batches);
    expect(code, stderr).toBe(0);
    const [json, echo, event, endless, error, again] = results;
    expect(json?.code).toBe("TOOLHOST_MCP_MESSAGE_TOO_LARGE");
    expect(json?.text).toContain("sent an answer longer than 10 MiB");
    expect(echo?.text).toMatch(/^pid \d+$/);
    for (const line of [event, endless]) {
      expect(line?.code).toBe("TOOLHOST_MCP_MESSAGE_TOO_LARGE");
      expect(line?.text).toContain("sent an event longer than 10 MiB");
    }
    expect(error?.isError).toBe(true);
    expect(error?.text).toContain("longer than 10485760 bytes (tool-mcp's maxMessageBytes) and was not read");
    expect(again?.text).toBe(echo?.text);
    expect(peakKiB).toBeLessThan(PEAK_BOUND_KIB);
  }, 300_000);
});
