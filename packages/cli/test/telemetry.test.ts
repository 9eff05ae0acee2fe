import { writeFileSync } from "node:fs";
import { type IncomingMessage, type Server, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { removeDir, tempDir, toolhost } from "./_helpers.js";

// `toolhost call` with OTEL_EXPORTER_OTLP_ENDPOINT set: the CLI starts @toolhost/otel's OTLP/HTTP
// exporters before the host, so the call's execute_tool span (and the child's trace context)
// reach a receiver on 127.0.0.1, and shuts them down before it exits so nothing is lost.

interface Span {
  traceId: string;
  spanId: string;
  name: string;
  attributes: Array<{ key: string; value: { stringValue?: string } }>;
}

async function startReceiver(): Promise<{ server: Server; url: string; spans: Span[] }> {
  const spans: Span[] = [];
  const server = createServer((request: IncomingMessage, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      let raw = Buffer.concat(chunks);
      if (request.headers["content-encoding"] === "gzip") raw = gunzipSync(raw);
      if (request.url?.endsWith("/v1/traces")) {
        const body = JSON.parse(raw.toString("utf8")) as { resourceSpans?: Array<{ scopeSpans?: Array<{ spans?: Span[] }> }> };
        for (const resource of body.resourceSpans ?? []) for (const scope of resource.scopeSpans ?? []) spans.push(...(scope.spans ?? []));
      }
      response.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, spans };
}

describe("toolhost call with OTEL_EXPORTER_OTLP_ENDPOINT", () => {
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let dir: string;
  beforeAll(async () => {
    receiver = await startReceiver();
    dir = tempDir();
    writeFileSync(join(dir, "hello.txt"), "hello\n");
    writeFileSync(
      join(dir, "toolhost.config.json"),
      JSON.stringify({ plugins: ["@toolhost/tool-fs", ["@toolhost/hooks-policy", { extends: ["recommended"] }], "@toolhost/otel"] }),
    );
  });
  afterAll(() => {
    receiver.server.close();
    removeDir(dir);
  });

  it("exports the call's execute_tool span before it exits", async () => {
    const result = await toolhost(["call", "read", '{"path": "hello.txt"}'], { cwd: dir, env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_SERVICE_NAME: "cli-test" } });
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const span = receiver.spans.find((each) => each.name === "execute_tool read");
    expect(span, JSON.stringify(receiver.spans.map((each) => each.name))).toBeDefined();
    const attribute = (key: string) => span?.attributes.find((each) => each.key === key)?.value.stringValue;
    expect(attribute("gen_ai.tool.name")).toBe("read");
    expect(attribute("gen_ai.operation.name")).toBe("execute_tool");
  });

  it("applies @toolhost/otel from beside the CLI when the config does not name it, and says so", async () => {
    const plain = tempDir();
    try {
      writeFileSync(join(plain, "hello.txt"), "hello\n");
      writeFileSync(join(plain, "toolhost.config.json"), JSON.stringify({ plugins: ["@toolhost/tool-fs", ["@toolhost/hooks-policy", { extends: ["recommended"] }]] }));
      const before = receiver.spans.length;
      const result = await toolhost(["call", "read", '{"path": "hello.txt"}'], { cwd: plain, env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_SERVICE_NAME: "cli-test-plain" } });
      expect(result.code).toBe(0);
      expect(result.stderr).toContain("@toolhost/otel is not in the config, so toolhost applied it with its defaults because OTEL_EXPORTER_OTLP_ENDPOINT is set");
      expect(receiver.spans.slice(before).map((span) => span.name)).toContain("execute_tool read");
    } finally {
      removeDir(plain);
    }
  });

  it("says what is missing, and runs the call, when the endpoint is set but nothing can export", async () => {
    const bare = tempDir();
    try {
      writeFileSync(join(bare, "hello.txt"), "hello\n");
      writeFileSync(join(bare, "toolhost.config.json"), JSON.stringify({ plugins: ["@toolhost/tool-fs", ["@toolhost/hooks-policy", { extends: ["recommended"] }]] }));
      const result = await toolhost(["call", "read", '{"path": "hello.txt"}'], { cwd: bare, env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" } });
      expect(result.code).toBe(0);
      expect(result.stdout).toContain("hello");
      expect(result.stderr).toContain("grpc");
    } finally {
      removeDir(bare);
    }
  });
});
