import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync, readdirSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { BIN, TEST_ENV } from "./_helpers.js";

const require = createRequire(import.meta.url);
const INSPECTOR = join(dirname(require.resolve("@modelcontextprotocol/inspector-cli/package.json")), "build", "cli.js");

/**
 * Runs the official MCP Inspector in its non-interactive CLI mode (`--cli`) from `cwd` (whose
 * parent must hold a package.json) and parses the JSON it prints.
 */
export function inspector(cwd: string, target: string[], method: string[]): Promise<{ code: number | null; json: unknown; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [INSPECTOR, "--cli", ...target, "--method", ...method], { cwd, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.on("error", reject);
    child.on("close", (code) => {
      const start = stdout.indexOf("{");
      let json: unknown;
      try {
        json = start >= 0 ? JSON.parse(stdout.slice(start)) : undefined;
      } catch {
        json = undefined;
      }
      resolve({ code, json, stdout, stderr });
    });
  });
}

/** `toolhost mcp serve` over stdio, as inspector target arguments. */
export function stdioTarget(extra: string[] = []): string[] {
  return [process.execPath, BIN, "mcp", "serve", ...extra];
}

/** The bearer token the test servers take (a token is needed on loopback too), and the header that carries it. */
export const MCP_TOKEN = "mcp-test-token";
export const MCP_AUTH = { Authorization: `Bearer ${MCP_TOKEN}` };

/** Starts `toolhost mcp serve --http 127.0.0.1:0 …` in `cwd` (its token `MCP_TOKEN`, unless `env` says otherwise) and waits for the URL it prints. */
export async function serveHttp(cwd: string, extra: string[] = [], env: Record<string, string> = {}): Promise<{ url: string; child: ChildProcess; stderr: () => string; stop: () => Promise<number | null> }> {
  const child = spawn(process.execPath, [BIN, "mcp", "serve", "--http", "127.0.0.1:0", ...extra], {
    cwd,
    env: { ...process.env, TOOLHOST_MCP_TOKEN: MCP_TOKEN, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.setEncoding("utf8");
  const closed = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr.on("data", (chunk: string) => {
      stderr += chunk;
      const match = /at (http:\/\/\S+\/mcp)/.exec(stderr);
      if (match?.[1]) resolve(match[1]);
    });
    void closed.then((code) => reject(new Error(`toolhost mcp serve exited (${code}) before serving:\n${stderr}`)));
  });
  return {
    url,
    child,
    stderr: () => stderr,
    async stop() {
      child.kill("SIGTERM");
      return closed;
    },
  };
}

export interface ClientOptions {
  /** Declare the elicitation capability. */
  elicitation?: boolean;
  /** Negotiate the 2026-07-28 protocol revision (the SDK's default is the 2025 handshake). */
  modern?: boolean;
}

function newClient(options: ClientOptions): Client {
  return new Client(
    { name: "test-client", version: "1.0.0" },
    {
      capabilities: options.elicitation ? { elicitation: { form: {} } } : {},
      ...(options.modern ? { versionNegotiation: { mode: "auto" as const } } : {}),
    },
  );
}

/** A v2 SDK client connected to `toolhost mcp serve` over stdio in `cwd`. */
export async function stdioClient(cwd: string, options: ClientOptions = {}): Promise<{ client: Client; transport: StdioClientTransport }> {
  const client = newClient(options);
  // The SDK starts the server with a few variables only: the test's user config folder is one more.
  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, "mcp", "serve"], cwd, stderr: "pipe", env: { ...getDefaultEnvironment(), ...TEST_ENV } });
  await client.connect(transport);
  return { client, transport };
}

/** A v2 SDK client connected to a Streamable HTTP endpoint (with the test servers' token unless `headers` say otherwise). */
export async function httpClient(url: string, headers: Record<string, string> = MCP_AUTH, options: ClientOptions = {}): Promise<Client> {
  const client = newClient(options);
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return client;
}

/** The pids of processes whose command line (arguments joined by spaces) contains `marker`, or matches it. */
export function processesWith(marker: string | RegExp): number[] {
  const pids: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      const line = readFileSync(`/proc/${name}/cmdline`, "utf8").replaceAll("\0", " ").trim();
      if (typeof marker === "string" ? line.includes(marker) : marker.test(line)) pids.push(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

export function textOf(result: { content?: unknown }): string {
  return ((result.content ?? []) as Array<{ type: string; text?: string }>).map((part) => part.text ?? `[${part.type}]`).join("\n");
}
