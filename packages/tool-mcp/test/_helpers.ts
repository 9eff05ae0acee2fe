import { mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { AgentHarness, type ToolResultMessage } from "@toolhost/core";
import { vi } from "vitest";
import mcpPlugin from "../src/index.js";

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);

/** The official filesystem server's entry point (a devDependency; run with node, nothing downloaded). */
export const FILESYSTEM_SERVER = join(dirname(require.resolve("@modelcontextprotocol/server-filesystem/package.json")), "dist", "index.js");
/** Our probe server: the official v2 server SDK, logging every call it receives. */
export const PROBE_SERVER = join(here, "fixtures", "probe-server.mjs");
/** A malicious server, plain Node over stdio: each tool misbehaves in its own way. */
export const HOSTILE_SERVER = join(here, "fixtures", "hostile-server.mjs");
/** A malicious server over Streamable HTTP; prints its URL. */
export const HOSTILE_HTTP_SERVER = join(here, "fixtures", "hostile-http-server.mjs");
/** A host in a process of its own (the built tool-mcp), printing each result and its peak memory. */
export const HOST = join(here, "fixtures", "host.mjs");

export function tempDir(): string {
  return realpathSync(mkdtempSync(join(tmpdir(), "toolhost-mcp-")));
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

/** A harness in `dir` with tool-mcp applied with `options`; what the plugin wrote on stderr. */
export async function harnessWith(dir: string, options: Record<string, unknown>, before?: (harness: AgentHarness) => Promise<void>) {
  const harness = new AgentHarness({ cwd: dir, workspace: dir });
  if (before) await before(harness);
  const stderr: string[] = [];
  const spy = vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => {
    stderr.push(String(chunk));
    return true;
  });
  try {
    await harness.use(mcpPlugin, options);
  } finally {
    spy.mockRestore();
  }
  return { harness, stderr: stderr.join("") };
}

export async function call(harness: AgentHarness, name: string, args: unknown, signal?: AbortSignal): Promise<ToolResultMessage> {
  const [result] = await harness.executeToolCalls([{ id: "t1", name, arguments: args }], signal ? { signal } : {});
  return result as ToolResultMessage;
}

export function text(result: ToolResultMessage): string {
  return result.content.map((part) => (part.type === "text" ? part.text : `[image]`)).join("\n");
}

export function codeOf(result: ToolResultMessage): string | undefined {
  return (result.details as { code?: string } | undefined)?.code;
}

/** The calls the probe server received. */
export function probeLog(path: string): Array<Record<string, unknown>> {
  let content = "";
  try {
    content = readFileSync(path, "utf8");
  } catch {
    return [];
  }
  return content
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export async function until(check: () => boolean, what = "the condition"): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`waited 30 s for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
