import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { AgentHarness } from "@toolhost/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import plugin, { createApiCallTool } from "../src/index.js";

let server: Server;
let base: string;
const hanging = new Set<ServerResponse>();

beforeAll(async () => {
  server = createServer(async (request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString("utf8");
    if (request.url === "/json") {
      response.writeHead(200, { "content-type": "application/json" });
      response.end('{"temp":21,"city":"Oslo"}');
    } else if (request.url === "/echo") {
      response.writeHead(201, { "content-type": "application/json" });
      response.end(JSON.stringify({ method: request.method, body, token: request.headers["x-token"], agent: request.headers["x-agent"] }));
    } else if (request.url === "/big") {
      response.writeHead(200, { "content-type": "text/plain" });
      response.end("x".repeat(5000));
    } else if (request.url === "/hang") {
      hanging.add(response);
    } else {
      response.writeHead(404, { "content-type": "text/plain" });
      response.end("no such thing");
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  for (const response of hanging) response.destroy();
  await new Promise((resolve) => server.close(resolve));
});

async function harnessWith(options?: unknown): Promise<AgentHarness> {
  const harness = new AgentHarness();
  await harness.use(plugin, options);
  return harness;
}

function textOf(message: { content: { type: string; text?: string }[] }): string {
  return message.content.map((block) => block.text ?? "").join("\n");
}

describe("make_api_call through the harness", () => {
  it("returns a JSON body pretty-printed, with the status in details", async () => {
    const harness = await harnessWith();
    const [result] = await harness.executeToolCalls([{ id: "1", name: "make_api_call", arguments: { url: `${base}/json` } }]);
    expect(result?.isError).toBe(false);
    expect(textOf(result!)).toBe('{\n  "temp": 21,\n  "city": "Oslo"\n}');
    expect(result?.details).toMatchObject({ statusCode: 200, method: "GET", url: `${base}/json` });
  });

  it("sends the method, body, the call's headers and the plugin's headers", async () => {
    const harness = await harnessWith({ headers: { "x-agent": "toolhost" } });
    const [result] = await harness.executeToolCalls([
      {
        id: "1",
        name: "make_api_call",
        arguments: { url: `${base}/echo`, method: "POST", body: "hello", headers: { "x-token": "t1" } },
      },
    ]);
    expect(JSON.parse(textOf(result!))).toEqual({ method: "POST", body: "hello", token: "t1", agent: "toolhost" });
    expect(result?.details).toMatchObject({ statusCode: 201 });
  });

  it("turns an HTTP error status into an error result with the body", async () => {
    const harness = await harnessWith();
    const [result] = await harness.executeToolCalls([{ id: "1", name: "make_api_call", arguments: { url: `${base}/missing` } }]);
    expect(result?.isError).toBe(true);
    expect(textOf(result!)).toBe("HTTP 404 Not Found\nno such thing");
    expect(result?.details).toMatchObject({ statusCode: 404 });
  });

  it("turns a refused connection into an error result naming the cause", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const harness = await harnessWith();
    const [result] = await harness.executeToolCalls([
      { id: "1", name: "make_api_call", arguments: { url: `http://127.0.0.1:${port}/` } },
    ]);
    expect(result?.isError).toBe(true);
    expect(textOf(result!)).toContain(`Network error calling GET http://127.0.0.1:${port}/: ECONNREFUSED`);
  });

  it("cuts a long body to maxResponseChars", async () => {
    const harness = await harnessWith({ maxResponseChars: 100 });
    const [result] = await harness.executeToolCalls([{ id: "1", name: "make_api_call", arguments: { url: `${base}/big` } }]);
    expect(textOf(result!)).toBe(`${"x".repeat(100)}\n… (cut: 4900 more characters)`);
    expect(result?.details).toMatchObject({ truncated: true });
  });

  it("refuses a URL that is not a URL before any request, and a non-http scheme", async () => {
    const harness = await harnessWith();
    const [bad, file] = await harness.executeToolCalls([
      { id: "1", name: "make_api_call", arguments: { url: "not a url" } },
      { id: "2", name: "make_api_call", arguments: { url: "file:///etc/passwd" } },
    ]);
    expect(bad?.isError).toBe(true);
    expect(textOf(bad!)).toContain('Invalid arguments for tool "make_api_call"');
    expect(textOf(bad!)).toContain("/url");
    expect(file?.isError).toBe(true);
    expect(textOf(file!)).toBe("Only http and https URLs can be called, not file:");
  });

  it("stops the request when the batch is aborted", async () => {
    const harness = await harnessWith();
    const controller = new AbortController();
    const pending = harness.executeToolCalls([{ id: "1", name: "make_api_call", arguments: { url: `${base}/hang` } }], {
      signal: controller.signal,
    });
    while (hanging.size === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    const [response] = [...hanging];
    const closed = new Promise<void>((resolve) => response!.on("close", () => resolve()));
    controller.abort();
    const [result] = await pending;
    expect(result?.isError).toBe(true);
    expect(textOf(result!)).toBe('Tool "make_api_call" aborted.');
    await closed; // the server sees the connection end: the request really stopped
  });

  it("rejects unknown plugin options with their path", async () => {
    const harness = new AgentHarness();
    await expect(harness.use(plugin, { retries: 3 })).rejects.toMatchObject({ code: "TOOLHOST_INVALID_PLUGIN_OPTIONS" });
  });

  it("works from code without a harness", async () => {
    const tool = createApiCallTool();
    const result = await tool.execute("1", { url: `${base}/json` }, new AbortController().signal, () => {}, undefined);
    expect(result.details.statusCode).toBe(200);
  });
});

describe("what a call declares it touches", () => {
  it("declares its URL and method, which the kernel hands to beforeToolCall as ctx.access", async () => {
    const harness = await harnessWith();
    const seen: unknown[] = [];
    harness.hooks.beforeToolCall.tap("test", (ctx) => {
      seen.push(ctx.access);
      return { block: true, reason: "only looking" };
    });
    await harness.executeToolCalls([
      { id: "1", name: "make_api_call", arguments: { url: `${base}/json` } },
      { id: "2", name: "make_api_call", arguments: { url: `${base}/echo`, method: "DELETE" } },
    ]);
    expect(seen).toEqual([{ network: [{ url: `${base}/json`, method: "GET" }] }, { network: [{ url: `${base}/echo`, method: "DELETE" }] }]);
    expect(createApiCallTool().annotations).toEqual({ openWorld: true });
  });
});
