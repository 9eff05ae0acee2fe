import { readFileSync } from "node:fs";
import { type AgentHarness, type AnyAgentTool, definePlugin } from "@toolhost/core";
import type { Tool } from "@modelcontextprotocol/client";
import { McpConnection, ServerStartError } from "./_connection.js";
import { NameRegistry, toolFilter, toolhostName } from "./_names.js";
import { McpPluginOptions, resolveSpec } from "./options.js";
import { type ArgumentCheck, compileInputSchema } from "./_schema.js";
import { createMcpTool } from "./_tool.js";

const NAME = "@toolhost/tool-mcp";
const VERSION = (JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string }).version;

/** How each server's start went: its tools, or why it failed. */
export interface ServerStatus {
  server: string;
  ok: boolean;
  ms: number;
  /** The toolhost names of its tools, when it started. */
  tools: string[];
  /** Which, why, how long, and its stderr, when it did not. */
  error?: string;
}

/**
 * MCP servers as tool sources. The servers start in parallel when the plugin is applied; one that
 * fails or is slow is reported on stderr (which, why, how long, what it printed) and the others'
 * tools are registered all the same.
 */
export const mcpPlugin = definePlugin({
  name: NAME,
  version: VERSION,
  options: McpPluginOptions,
  async apply(harness, options) {
    const checks = new WeakMap<AnyAgentTool, ArgumentCheck>();
    harness.hooks.validateArguments.tap(NAME, (args, { tool }) => checks.get(tool)?.(args));
    const connections: McpConnection[] = [];
    harness.hooks.dispose.tapPromise(NAME, async () => {
      await Promise.all(connections.map((connection) => connection.close()));
    });

    const started = await Promise.all(
      Object.entries(options.servers).map(async ([server, spec]) => {
        const begin = performance.now();
        try {
          const limits = { startupTimeoutMs: options.startupTimeout * 1000, maxMessageBytes: options.maxMessageBytes };
          const connection = new McpConnection(server, resolveSpec(server, spec, harness.workspace), harness.cwd, limits, VERSION);
          connections.push(connection);
          return { server, connection, tools: await connection.start(), ms: performance.now() - begin };
        } catch (error) {
          const message = error instanceof ServerStartError ? error.message : `MCP server "${server}" did not start: ${(error as Error).message}`;
          return { server, error: message, ms: performance.now() - begin };
        }
      }),
    );

    const statuses: ServerStatus[] = [];
    const names = new NameRegistry();
    try {
      for (const entry of started) {
        if (!("connection" in entry) || entry.connection === undefined) {
          process.stderr.write(`toolhost: ${entry.error}\n  The other servers' tools are available; fix this one's config or remove it.\n`);
          statuses.push({ server: entry.server, ok: false, ms: entry.ms, tools: [], error: entry.error });
          continue;
        }
        const shown = toolFilter(options.include[entry.server], options.exclude[entry.server]);
        const registered: string[] = [];
        for (const tool of entry.tools.filter((each: Tool) => shown(each.name))) {
          const name = toolhostName(entry.server, tool.name);
          names.take(name, `tool "${tool.name}" of MCP server "${entry.server}"`, (taken) => harness.toolOwner(taken));
          const made = createMcpTool({
            name,
            connection: entry.connection,
            tool,
            toolTimeoutMs: options.toolTimeout > 0 ? options.toolTimeout * 1000 : undefined,
            maxResultChars: options.maxResultChars,
          });
          const compiled = compileInputSchema(made.schema);
          if (compiled.error) process.stderr.write(`toolhost: MCP tool ${name}: its input schema cannot be compiled (${compiled.error}); every call of it will be refused.\n`);
          checks.set(made.tool as AnyAgentTool, compiled.check);
          harness.registerTool(made.tool as AnyAgentTool);
          registered.push(name);
        }
        statuses.push({ server: entry.server, ok: true, ms: entry.ms, tools: registered });
      }
    } catch (error) {
      await Promise.all(connections.map((connection) => connection.close()));
      throw error;
    }
    serverStatuses.set(harness, statuses);
  },
});

const serverStatuses = new WeakMap<AgentHarness, ServerStatus[]>();

/** How each server of tool-mcp started in this harness (for hosts that show it). */
export function mcpServerStatus(harness: AgentHarness): ServerStatus[] | undefined {
  return serverStatuses.get(harness);
}
