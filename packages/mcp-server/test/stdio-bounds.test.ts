import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { RawClient, SERVE_STDIO, idOf, peakKiB, removeDir, tempDir } from "./_raw.js";

// `serveToolsOverStdio` in a process of its own (test/fixtures/serve-stdio.mjs: the built package,
// tool-fs and a `wait` tool), driven over its stdin and stdout by a raw JSON-RPC client that
// pipelines, batches and misbehaves, and by the SDK's own client.
let dir: string;
let client: RawClient | undefined;
beforeEach(() => {
  dir = tempDir();
  // 1,000 lines of 1,000 bytes: a read returns it whole (tool-fs reads up to 2,000 lines and 1 MiB).
  writeFileSync(join(dir, "big.txt"), `${"y".repeat(999)}\n`.repeat(1000));
  writeFileSync(join(dir, "small.txt"), "hello\n");
});
afterEach(async () => {
  if (client && client.child.exitCode === null) client.child.kill("SIGKILL");
  client = undefined;
  removeDir(dir);
});

const call = (id: number | string, name: string, args: Record<string, unknown>) => ({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } });
const errorCode = (line: { message?: unknown } | undefined) => ((line?.message as { error?: { data?: { code?: string } } } | undefined)?.error?.data?.code);

// The bound: 32 calls in flight, each holding about 5 MB (the file's bytes and text, the result the
// kernel checks, its JSON, and the line handed to the pipe until the client has read it), plus
// ~80 MB for Node, the harness and the SDK, and the garbage V8 lets build up between collections:
// 370 to 380 MB measured. Without the bound every call ran at once: 5.3 GB, then a crash (ENOBUFS).
const PIPELINE_PEAK_KIB = 640 * 1024;

describe("serveToolsOverStdio: calls in flight", () => {
  it("answers 1,500 pipelined 1 MB reads, every one, within a bounded peak", async () => {
    client = new RawClient(dir);
    await client.initialize();
    const from = client.lines.length;
    const ids = Array.from({ length: 1500 }, (_, i) => 100 + i);
    client.sendText(ids.map((id) => `${JSON.stringify(call(id, "read", { path: "big.txt" }))}\n`).join(""));
    const answered = () => client?.lines.slice(from).filter((line) => typeof idOf(line) === "number").length ?? 0;
    await client.until(() => answered() >= ids.length, "1,500 answers");
    const answers = client.lines.slice(from);
    expect(answers.map(idOf).sort((a, b) => Number(a) - Number(b))).toEqual(ids);
    for (const line of answers) {
      // Every answer is the file (a 1 MB line): a result, not an error.
      expect(line.text.startsWith('{"result":{"content":[{"type":"text","text":"yyyy')).toBe(true);
    }
    const peak = peakKiB(client.child.pid as number);
    expect(await client.close()).toBe(0);
    expect(peak).toBeLessThan(PIPELINE_PEAK_KIB);
    expect(client.stderr).not.toContain("MaxListenersExceededWarning");
  }, 600_000);

  it("reads a cancellation while every slot is taken, and serves the next request in the freed slot", async () => {
    client = new RawClient(dir, { maxInFlight: 4 });
    await client.initialize();
    for (const id of [1, 2, 3, 4]) client.send(call(id, "wait", {}));
    client.send({ jsonrpc: "2.0", id: 5, method: "ping" });
    client.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 2, reason: "the test" } });
    await client.until(() => client?.answersTo(5).length === 1, "the ping in the freed slot");
    // The cancelled call gets no answer (MCP); the others still wait.
    expect(client.answersTo(2)).toEqual([]);
    expect([1, 3, 4].flatMap((id) => client?.answersTo(id) ?? [])).toEqual([]);
    for (const id of [1, 3, 4]) client.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id } });
    client.send({ jsonrpc: "2.0", id: 6, method: "tools/call", params: { name: "read", arguments: { path: "small.txt" } } });
    await client.until(() => client?.answersTo(6).length === 1, "a read after the cancellations");
    expect(JSON.stringify(client.answersTo(6)[0]?.message)).toContain("hello");
    expect(await client.close()).toBe(0);
  }, 120_000);

  it("serves the SDK's own client with 200 calls at once, and prints no listener warning", async () => {
    const sdk = new Client({ name: "test", version: "1.0.0" });
    const transport = new StdioClientTransport({ command: process.execPath, args: [SERVE_STDIO], cwd: dir, stderr: "pipe", env: { ...process.env, SERVE_LIMITS: '{"maxInFlight":8}' } as Record<string, string> });
    let stderr = "";
    transport.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    await sdk.connect(transport);
    const results = await Promise.all(Array.from({ length: 200 }, () => sdk.callTool({ name: "read", arguments: { path: "small.txt" } })));
    expect(results.every((result) => JSON.stringify(result.content).includes("hello"))).toBe(true);
    await sdk.close();
    expect(stderr).not.toContain("MaxListenersExceededWarning");
  }, 120_000);
});

describe("serveToolsOverStdio: batches", () => {
  const batch = [
    call("a", "read", { path: "small.txt" }),
    { jsonrpc: "2.0", id: 7, method: "ping" },
    { jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: 1, progress: 1 } },
    { not: "JSON-RPC" },
    { jsonrpc: "2.0", id: "same", method: "ping" },
    { jsonrpc: "2.0", id: "same", method: "ping" },
  ];

  it("answers a batch as one array in protocol 2025-03-26, every id", async () => {
    client = new RawClient(dir);
    await client.initialize("2025-03-26");
    const from = client.lines.length;
    client.send(batch);
    await client.until(() => client?.lines.slice(from).some((line) => Array.isArray(line.message)) ?? false, "the batch's answer");
    const answers = client.lines.slice(from).find((line) => Array.isArray(line.message))?.message as Array<{ id?: unknown; result?: unknown; error?: { data?: { code?: string } } }>;
    expect(answers.map((answer) => answer.id).sort()).toEqual([7, null, "a", "same", "same"].sort());
    expect(JSON.stringify(answers.find((answer) => answer.id === "a")?.result)).toContain("hello");
    expect(answers.filter((answer) => answer.id === "same").map((answer) => answer.error?.data?.code ?? "answered")).toEqual(expect.arrayContaining(["answered", "TOOLHOST_MCP_DUPLICATE_ID"]));
    expect(answers.find((answer) => answer.id === null)?.error?.data?.code).toBe("TOOLHOST_MCP_INVALID_MESSAGE");
    // A batch of notifications only gets no answer; one with more requests than maxInFlight is refused, each id.
    const after = client.lines.length;
    client.send([{ jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: 1, progress: 2 } }]);
    client.send(Array.from({ length: 33 }, (_, i) => ({ jsonrpc: "2.0", id: 1000 + i, method: "ping" })));
    await client.until(() => client?.lines.length === after + 1, "the refusal of a 33-request batch");
    const refused = client.lines[after]?.message as Array<{ id: number; error: { data: { code: string }; message: string } }>;
    expect(refused.map((answer) => answer.id)).toEqual(Array.from({ length: 33 }, (_, i) => 1000 + i));
    expect(refused[0]?.error.data.code).toBe("TOOLHOST_MCP_BATCH_TOO_LARGE");
    expect(refused[0]?.error.message).toContain("more than the 32 a session may have in flight (maxInFlight)");
    expect(await client.close()).toBe(0);
  }, 120_000);

  it("answers an error for each request id of a batch in 2025-06-18, which has no batches, and runs none of it", async () => {
    client = new RawClient(dir);
    await client.initialize("2025-06-18");
    const from = client.lines.length;
    client.send(batch);
    client.send({ jsonrpc: "2.0", id: "after", method: "ping" });
    await client.until(() => client?.answersTo("after", from).length === 1, "the ping after the batch");
    const refusals = client.lines.slice(from).filter((line) => idOf(line) !== "after");
    expect(refusals.map(idOf)).toEqual(["a", 7, "same", "same"]);
    for (const line of refusals) {
      expect(errorCode(line)).toBe("TOOLHOST_MCP_BATCH_UNSUPPORTED");
      expect(line.text).toContain("JSON-RPC batches are not part of MCP in protocol version 2025-06-18 (only 2025-03-26 had them); nothing in the batch was run");
    }
    expect(await client.close()).toBe(0);
  }, 120_000);
});

describe("serveToolsOverStdio: a hostile client", () => {
  it("answers a 40 MB message for its id, garbage as JSON-RPC says, and goes on", async () => {
    client = new RawClient(dir);
    await client.initialize();
    const from = client.lines.length;
    // As the TypeScript SDK writes a request: its id last.
    client.sendText(`{"method":"tools/call","params":{"name":"write","arguments":{"path":"x.txt","content":"${"x".repeat(40 * 1024 * 1024)}"}},"jsonrpc":"2.0","id":41}\n`);
    client.sendText("this is not JSON\n");
    client.send({ jsonrpc: "2.0", id: 42, method: "tools/call" });
    client.send({ jsonrpc: "2.0", id: 43, method: "tools/call", params: { name: "read", arguments: { path: "small.txt" } } });
    await client.until(() => client?.answersTo(43, from).length === 1, "the read after the garbage");
    expect(errorCode(client.answersTo(41, from)[0])).toBe("TOOLHOST_MCP_MESSAGE_TOO_LARGE");
    expect(client.answersTo(41, from)[0]?.text).toContain("The message is longer than 4 MiB, toolhost's limit for one message (maxMessageBytes); it was skipped.");
    expect(client.lines.slice(from).some((line) => errorCode(line) === "TOOLHOST_MCP_PARSE_ERROR" && idOf(line) === null)).toBe(true);
    expect(client.answersTo(42, from)[0]?.text).toContain('"error"');
    expect(JSON.stringify(client.answersTo(43, from)[0]?.message)).toContain("hello");
    const peak = peakKiB(client.child.pid as number);
    expect(await client.close()).toBe(0);
    // Never more than the 4 MiB limit of the line is held (Node, the harness and the SDK: ~80 MB).
    expect(peak).toBeLessThan(300 * 1024);
  }, 120_000);

  it("answers a line that never ends and then ends the connection", async () => {
    client = new RawClient(dir);
    await client.initialize();
    const from = client.lines.length;
    client.sendText('{"jsonrpc":"2.0","id":77,"method":"tools/call","params":{"name":"write","arguments":{"path":"x","content":"');
    const piece = "z".repeat(1024 * 1024);
    const pump = () => {
      while (client && client.child.exitCode === null && client.child.stdin.write(piece));
      if (client?.child.exitCode === null) client.child.stdin.once("drain", pump);
    };
    pump();
    expect(await client.exited).toBe(0);
    expect(errorCode(client.answersTo(77, from)[0])).toBe("TOOLHOST_MCP_MESSAGE_TOO_LARGE");
  }, 120_000);
});
