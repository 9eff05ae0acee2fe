import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type FakeOpenAI, startFakeOpenAI, textTurn, toolCallsTurn } from "../../../packages/provider-openai/test/_fake-openai.js";

const AGENT = new URL("../agent.mjs", import.meta.url).pathname;

let dir: string;
let fake: FakeOpenAI | undefined;
beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), "toolhost-ai-sdk-agent-")));
  writeFileSync(join(dir, "notes.txt"), "buy milk\n");
  writeFileSync(
    join(dir, "toolhost.config.json"),
    JSON.stringify({
      plugins: [
        "@toolhost/tool-fs",
        "@toolhost/tool-bash",
        ["@toolhost/hooks-policy", { default: "allow", rules: [{ id: "ask-touch", command: "touch *", decision: "ask", reason: "touch changes files" }] }],
        "@toolhost/otel",
      ],
    }),
  );
});
afterEach(async () => {
  await fake?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Runs the example as a user would, answering its approval prompt with `reply`. */
async function runAgent(question: string, reply: string, env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child: ChildProcess = spawn(process.execPath, [AGENT, question], {
    cwd: dir,
    env: { PATH: process.env.PATH, HOME: dir, OPENAI_BASE_URL: fake?.url, OPENAI_API_KEY: "test-key", MODEL: "fake-model", ...env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
    if (/\[y\/N\] $/.test(stderr)) child.stdin?.write(`${reply}\n`);
  });
  const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
  return { code, stdout, stderr };
}

describe("the AI SDK agent example, against an OpenAI-compatible endpoint on 127.0.0.1", () => {
  it("runs the allowed read at once, asks before the command the policy asks about, and runs it once approved", async () => {
    fake = await startFakeOpenAI([
      toolCallsTurn([
        { id: "c1", name: "read", arguments: { path: "notes.txt" } },
        { id: "c2", name: "bash", arguments: { command: "touch hello.txt" } },
      ]),
      textTurn("All done."),
    ]);
    const { code, stdout, stderr } = await runAgent("Read my notes and make hello.txt", "y");
    expect(code, stderr).toBe(0);
    expect(stderr).toContain('Allow bash {"command":"touch hello.txt"}? (touch hello.txt: asked by config › "touch *" (ask-touch)');
    expect(stdout).toContain("All done.");
    expect(existsSync(join(dir, "hello.txt"))).toBe(true);
    const toolMessages = fake.requests[1]?.body.messages.filter((message: { role: string }) => message.role === "tool");
    expect(toolMessages.map((message: { tool_call_id: string }) => message.tool_call_id).sort()).toEqual(["c1", "c2"]);
    expect(JSON.stringify(toolMessages)).toContain("buy milk");
  });

  it("a refusal at the prompt leaves the command unrun, and the model is told", async () => {
    fake = await startFakeOpenAI([toolCallsTurn([{ id: "c3", name: "bash", arguments: { command: "touch hello.txt" } }]), textTurn("I did not make it.")]);
    const { code, stdout, stderr } = await runAgent("make hello.txt", "n");
    expect(code, stderr).toBe(0);
    expect(existsSync(join(dir, "hello.txt"))).toBe(false);
    expect(stdout).toContain("I did not make it.");
    const tool = fake.requests[1]?.body.messages.find((message: { role: string }) => message.role === "tool");
    expect(JSON.stringify(tool)).toContain("refused at the terminal");
  });

  it("sends its spans over OTLP when OTEL_EXPORTER_OTLP_ENDPOINT is set: each tool call under the run's span, though the project's config does not name @toolhost/otel", async () => {
    writeFileSync(join(dir, "toolhost.config.json"), JSON.stringify({ plugins: ["@toolhost/tool-fs", ["@toolhost/hooks-policy", { default: "allow" }]] }));
    const bodies: { resourceSpans: { scopeSpans: { spans: { name: string; spanId: string; parentSpanId?: string }[] }[] }[] }[] = [];
    const receiver = createServer((request, response) => {
      const parts: Buffer[] = [];
      request.on("data", (part: Buffer) => parts.push(part));
      request.on("end", () => {
        if (request.url === "/v1/traces") bodies.push(JSON.parse(Buffer.concat(parts).toString("utf8")));
        response.writeHead(200, { "content-type": "application/json" }).end("{}");
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    try {
      fake = await startFakeOpenAI([toolCallsTurn([{ id: "c4", name: "read", arguments: { path: "notes.txt" } }]), textTurn("Milk.")]);
      const { code, stderr } = await runAgent("what do my notes say?", "n", { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}` });
      expect(code, stderr).toBe(0);
      const spans = bodies.flatMap((body) => body.resourceSpans.flatMap((resource) => resource.scopeSpans.flatMap((scope) => scope.spans)));
      const run = spans.find((span) => span.name === "agent run");
      const read = spans.find((span) => span.name === "execute_tool read");
      expect(run).toBeDefined();
      expect(read?.parentSpanId).toBe(run?.spanId);
    } finally {
      await new Promise((resolve) => receiver.close(resolve));
    }
  });
});
