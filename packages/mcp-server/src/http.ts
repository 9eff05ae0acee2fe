import { timingSafeEqual } from "node:crypto";
import { type IncomingMessage, type ServerResponse, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { ErrorCode, ToolhostError, type AgentHarness } from "@toolhost/core";
import { createMcpHandler } from "@modelcontextprotocol/server";
import { hostHeaderValidation, originValidation, toNodeHandler } from "@modelcontextprotocol/node";
import { HttpGate } from "./_http-gate.js";
import { resolveLimits } from "./limits.js";
import { stderrReporter } from "./_report.js";
import { type McpServeOptions, createServerFactory } from "./server.js";
import type { RunningServer } from "./stdio.js";

/** Where and how the Streamable HTTP endpoint listens. */
export interface HttpServeOptions extends McpServeOptions {
  /** Default `127.0.0.1`. Anything not on loopback needs `token`. */
  host?: string;
  /** `0` picks a free port. */
  port: number;
  /** A bearer token every request must carry (`Authorization: Bearer <token>`). */
  token?: string;
  /** Host names accepted in the `Host` and `Origin` headers besides the loopback names and `host`. */
  allowedHosts?: string[];
}

export interface RunningHttpServer extends RunningServer {
  /** The endpoint, e.g. `http://127.0.0.1:4123/mcp`. */
  url: string;
}

const LOOPBACK = ["localhost", "127.0.0.1", "[::1]"];

/** Whether a host name or address is on the loopback interface. */
export function isLoopback(host: string): boolean {
  return host === "localhost" || host === "::1" || host === "[::1]" || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/**
 * Serves the tools of `harness` over Streamable HTTP at `/mcp`, statelessly (each request is served
 * on its own, so replicas behind one load balancer can answer any request). The Host and Origin
 * headers are checked against the loopback names, `host` and `allowedHosts` (DNS rebinding).
 */
export async function serveToolsOverHttp(harness: AgentHarness, options: HttpServeOptions): Promise<RunningHttpServer> {
  const host = options.host ?? "127.0.0.1";
  if (!isLoopback(host) && !options.token) {
    throw new ToolhostError(
      ErrorCode.INVALID_PLUGIN_OPTIONS,
      `Serving MCP on ${host}, which is not a loopback address, needs a bearer token: anyone who reaches the port could run tools. Set one (toolhost mcp serve --token-env NAME), or serve on 127.0.0.1.`,
    );
  }
  const bracketed = host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
  const allowed = [...new Set([...LOOPBACK, bracketed, ...(options.allowedHosts ?? [])])];
  const checkHost = hostHeaderValidation(allowed);
  const checkOrigin = originValidation(allowed);
  const limits = resolveLimits(options.limits);
  const report = stderrReporter();
  const handler = createMcpHandler(createServerFactory(harness, options), { onerror: report, maxRequestBodySize: limits.maxMessageBytes });
  const serve = toNodeHandler(handler, { onerror: report, maxRequestBodySize: limits.maxMessageBytes });
  const gate = new HttpGate(limits);
  const expected = options.token ? Buffer.from(`Bearer ${options.token}`) : undefined;

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    if (!checkHost(req, res) || !checkOrigin(req, res) || !authorized(req, res, expected) || !atEndpoint(req, res)) return;
    gate.serve(req, res, serve).catch((error: unknown) => {
      report(error instanceof Error ? error : new Error(String(error)));
      if (!res.headersSent) {
        res.writeHead(500, { "content-type": "application/json" });
        res.end(JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32603, message: "Internal server error" } }));
      } else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  let done!: () => void;
  const closed = new Promise<void>((resolve) => {
    done = resolve;
  });
  return {
    url: `http://${bracketed}:${address.port}/mcp`,
    closed,
    async close() {
      await handler.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      done();
    },
  };
}

/** Whether the request carries the bearer token (when one is set); answers 401 when not. */
function authorized(req: IncomingMessage, res: ServerResponse, expected: Buffer | undefined): boolean {
  if (!expected || tokenMatches(req.headers.authorization, expected)) return true;
  res.writeHead(401, { "content-type": "application/json", "www-authenticate": "Bearer" });
  res.end(JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32001, message: "Unauthorized: send Authorization: Bearer <token>." } }));
  return false;
}

/** Whether the request is for `/mcp`; answers 404 when not. */
function atEndpoint(req: IncomingMessage, res: ServerResponse): boolean {
  if (new URL(req.url ?? "/", "http://localhost").pathname === "/mcp") return true;
  res.writeHead(404, { "content-type": "text/plain" });
  res.end("Not found: the MCP endpoint is /mcp.\n");
  return false;
}

function tokenMatches(header: string | undefined, expected: Buffer): boolean {
  if (header === undefined) return false;
  const given = Buffer.from(header);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
