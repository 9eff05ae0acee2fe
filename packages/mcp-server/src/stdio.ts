import type { AgentHarness } from "@toolhost/core";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { resolveLimits } from "./limits.js";
import { type McpServeOptions, serverFactory } from "./server.js";
import { stderrReporter } from "./_report.js";
import { BoundedStdioWire } from "./_stdio-wire.js";

/** A server that is running; `closed` settles when the client has gone (stdio) or `close` was called. */
export interface RunningServer {
  close(): Promise<void>;
  closed: Promise<void>;
}

/**
 * Serves the tools of `harness` over this process's stdin and stdout until the client closes
 * stdin (or sends a line that never ends). Nothing else may write to stdout meanwhile. The client's
 * requests are bounded by `options.limits`: past `maxInFlight` its input is not read until one is
 * answered.
 */
export function serveToolsOverStdio(harness: AgentHarness, options: McpServeOptions = {}): RunningServer {
  let done!: () => void;
  const closed = new Promise<void>((resolve) => {
    done = resolve;
  });
  const wire = new BoundedStdioWire(process.stdin, process.stdout, resolveLimits(options.limits), () => done());
  const handle = serveStdio(serverFactory(harness, options, wire), {
    transport: wire,
    onerror: stderrReporter(),
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
