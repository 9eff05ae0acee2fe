import { type ChildProcess, spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { connect } from "node:net";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SERVE_HTTP, peakKiB, removeDir, tempDir } from "./_raw.js";

// `serveToolsOverHttp` in a process of its own (test/fixtures/serve-http.mjs), over real loopback
// connections: pipelined on one connection (raw), on many at once (fetch), batches by protocol
// version, and a body over the limit.
let dir: string;
let server: ChildProcess | undefined;
beforeEach(() => {
  dir = tempDir();
  writeFileSync(join(dir, "big.txt"), `${"y".repeat(999)}\n`.repeat(1000));
  writeFileSync(join(dir, "small.txt"), "hello\n");
});
afterEach(() => {
  if (server && server.exitCode === null) server.kill("SIGKILL");
  server = undefined;
  removeDir(dir);
});

async function serve(limits: Record<string, unknown> = {}): Promise<{ url: URL; pid: number }> {
  const child = spawn(process.execPath, [SERVE_HTTP], { cwd: dir, env: { ...process.env, SERVE_LIMITS: JSON.stringify(limits) }, stdio: ["ignore", "pipe", "inherit"] });
  server = child;
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.setEncoding("utf8").once("data", (chunk: string) => resolve(chunk.trim()));
    child.once("exit", (code) => reject(new Error(`the server exited (${code})`)));
  });
  return { url: new URL(url), pid: child.pid as number };
}

const readCall = (id: number) => ({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "read", arguments: { path: "big.txt" } } });
const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" };

// Calls in flight hold their file, its text, the result and the event being written: 32 on one
// connection (or 16 in all) plus Node, the harness and the SDK measured 250 to 300 MB; the same 600
// calls with no bound, all at once, 860 MB.
const PEAK_BOUND_KIB = 512 * 1024;

describe("serveToolsOverHttp: calls in flight", () => {
  it("answers 600 reads of 1 MB pipelined on one connection, within a bounded peak", async () => {
    const { url, pid } = await serve();
    const socket = connect(Number(url.port), url.hostname);
    const ids = Array.from({ length: 600 }, (_, i) => i + 1);
    socket.write(
      ids
        .map((id) => {
          const body = JSON.stringify(readCall(id));
          return `POST ${url.pathname} HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
        })
        .join(""),
    );
    const seen = new Set<number>();
    let statuses = 0;
    let window = "";
    await new Promise<void>((resolve, reject) => {
      socket.on("error", reject);
      socket.setEncoding("utf8").on("data", (chunk: string) => {
        // Answers are 1 MB each: only a rolling window of the stream is looked at.
        const text = window + chunk;
        for (const match of text.matchAll(/"jsonrpc":"2\.0","id":(\d+)\}/g)) seen.add(Number(match[1]));
        statuses += (chunk.match(/HTTP\/1\.1 200 OK/g) ?? []).length;
        window = text.slice(-200);
        if (seen.size === ids.length) resolve();
      });
    });
    socket.destroy();
    expect([...seen].sort((a, b) => a - b)).toEqual(ids);
    expect(statuses).toBeGreaterThanOrEqual(ids.length - 1);
    expect(peakKiB(pid)).toBeLessThan(PEAK_BOUND_KIB);
  }, 600_000);

  it("bounds the calls of many connections together (maxInFlightTotal)", async () => {
    const { url, pid } = await serve({ maxInFlightTotal: 16 });
    const ids = Array.from({ length: 600 }, (_, i) => i + 1);
    const answers = await Promise.all(
      ids.map(async (id) => {
        const response = await fetch(url, { method: "POST", headers: { ...headers, connection: "close" }, body: JSON.stringify(readCall(id)) });
        const text = await response.text();
        return { status: response.status, answered: text.includes(`"id":${id}}`) && text.includes('"text":"yyyy') };
      }),
    );
    expect(answers.every((answer) => answer.status === 200 && answer.answered)).toBe(true);
    expect(peakKiB(pid)).toBeLessThan(PEAK_BOUND_KIB);
  }, 600_000);
});

describe("serveToolsOverHttp: batches and bodies", () => {
  const batch = [
    { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "read", arguments: { path: "small.txt" } } },
    { jsonrpc: "2.0", id: "two", method: "ping" },
  ];

  it("serves a batch when the protocol version has batches (2025-03-26, also when no version is sent)", async () => {
    const { url } = await serve();
    for (const version of [undefined, "2025-03-26"]) {
      const response = await fetch(url, { method: "POST", headers: { ...headers, ...(version ? { "mcp-protocol-version": version } : {}) }, body: JSON.stringify(batch) });
      const text = await response.text();
      expect(response.status).toBe(200);
      expect(text).toContain('"id":1}');
      expect(text).toContain('"id":"two"}');
      expect(text).toContain("hello");
    }
  }, 120_000);

  it("answers an error for each request id of a batch in a version without batches, and runs none", async () => {
    const { url } = await serve();
    const response = await fetch(url, { method: "POST", headers: { ...headers, "mcp-protocol-version": "2025-06-18" }, body: JSON.stringify(batch) });
    expect(response.status).toBe(400);
    const answers = (await response.json()) as Array<{ id: unknown; error: { message: string; data: { code: string } } }>;
    expect(answers.map((answer) => answer.id)).toEqual([1, "two"]);
    for (const answer of answers) {
      expect(answer.error.data.code).toBe("TOOLHOST_MCP_BATCH_UNSUPPORTED");
      expect(answer.error.message).toContain("not part of MCP in protocol version 2025-06-18");
    }
  }, 120_000);

  it("reads a body over maxMessageBytes to its end and answers 413 with the limit named", async () => {
    const { url } = await serve({ maxMessageBytes: 1024 * 1024 });
    const body = JSON.stringify({ jsonrpc: "2.0", id: 9, method: "tools/call", params: { name: "write", arguments: { path: "x", content: "x".repeat(6 * 1024 * 1024) } } });
    const response = await fetch(url, { method: "POST", headers, body });
    expect(response.status).toBe(413);
    const answer = (await response.json()) as { error: { message: string; data: { code: string; limit: number } } };
    expect(answer.error.data).toEqual({ code: "TOOLHOST_MCP_MESSAGE_TOO_LARGE", limit: 1024 * 1024 });
    expect(answer.error.message).toContain("longer than 1 MiB, toolhost's limit for one message (maxMessageBytes)");
    // The server goes on serving.
    const next = await fetch(url, { method: "POST", headers, body: JSON.stringify(batch[1]) });
    expect(await next.text()).toContain('"id":"two"');
  }, 120_000);
});
