import type { AgentHarness } from "@toolhost/core";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { type McpServeOptions, createServerFactory } from "./_server.js";

/** A server that is running; `closed` settles when the client has gone (stdio) or `close` was called. */
export interface RunningServer {
  close(): Promise<void>;
  closed: Promise<void>;
}

/**
 * Serves the tools of `harness` over this process's stdin and stdout until the client closes
 * stdin. Nothing else may write to stdout meanwhile.
 */
export function serveToolsOverStdio(harness: AgentHarness, options: McpServeOptions = {}): RunningServer {
  let done!: () => void;
  const closed = new Promise<void>((resolve) => {
    done = resolve;
  });
  const handle = serveStdio(createServerFactory(harness, options), {
    onerror: (error) => process.stderr.write(`toolhost mcp: ${error.message}\n`),
  });
  process.stdin.once("end", () => done());
  process.stdin.once("close", () => done());
  return {
    closed,
    async close() {
      await handle.close();
      done();
    },
  };
}
