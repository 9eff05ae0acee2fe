import { isAbsolute, resolve } from "node:path";
import type { Tool } from "@modelcontextprotocol/client";
import { type AgentTool, type AccessEnvironment, type TSchema, type ToolAccess, type ToolAnnotations, Type } from "@toolhost/core";
import type { McpConnection } from "./_connection.js";
import { failedCall } from "./_failure.js";
import { type McpResultDetails, toolhostResult } from "./results.js";
import { latestOnly } from "./_updates.js";
import type { ArgumentCheck } from "./_schema.js";

/** Argument fields that name files, judged by path rules of a policy. */
const PATH_FIELDS = ["path", "paths", "source", "destination"];

export interface McpToolOptions {
  name: string;
  connection: McpConnection;
  tool: Tool;
  toolTimeoutMs: number | undefined;
  maxResultChars: number;
}

/**
 * Core's annotations from the server's hints, only in the strict direction: `destructive` and
 * `openWorld` take MCP's defaults (true) unless the server says false; `readOnly` is kept (it is
 * what schedules a call in parallel); `idempotent` is dropped, since it would allow retries.
 */
export function coreAnnotations(hints: Tool["annotations"]): ToolAnnotations {
  const readOnly = hints?.readOnlyHint === true;
  return {
    ...(readOnly ? { readOnly: true } : { destructive: hints?.destructiveHint !== false }),
    openWorld: hints?.openWorldHint !== false,
  };
}

/** The paths a call names in its top-level path fields, absolute: reads for read-only tools, writes otherwise. */
export function accessOf(args: unknown, env: AccessEnvironment, readOnly: boolean): ToolAccess | undefined {
  if (typeof args !== "object" || args === null) return undefined;
  const paths: string[] = [];
  for (const field of PATH_FIELDS) {
    const value = (args as Record<string, unknown>)[field];
    const values = Array.isArray(value) ? value : [value];
    for (const each of values) {
      if (typeof each === "string" && each !== "") paths.push(isAbsolute(each) ? each : resolve(env.cwd, each));
    }
  }
  if (paths.length === 0) return undefined;
  return readOnly ? { reads: paths } : { writes: paths };
}

/** An MCP server's tool as a toolhost tool. Its full input schema is checked by `check` (tool-mcp's validate tap). */
export function createMcpTool(options: McpToolOptions): { tool: AgentTool<TSchema, McpResultDetails>; schema: Record<string, unknown> } {
  const { connection, tool, name } = options;
  const schema = { type: "object", ...(tool.inputSchema as Record<string, unknown>) };
  const readOnly = tool.annotations?.readOnlyHint === true;
  const agentTool: AgentTool<TSchema, McpResultDetails> = {
    name,
    label: tool.title ?? tool.annotations?.title ?? `${tool.name} (${connection.name})`,
    description: tool.description ?? `${tool.name}, a tool of the MCP server "${connection.name}".`,
    // Type.Unsafe carries the server's JSON Schema to models and MCP clients as it is; the kernel's
    // own check only sees it is an object, the full check is tool-mcp's validate tap (Ajv).
    parameters: Type.Unsafe<Record<string, unknown>>(schema),
    annotations: coreAnnotations(tool.annotations),
    executionMode: readOnly ? "parallel" : "sequential",
    access: (args, env) => accessOf(args, env, readOnly),
    async execute(_id, params, signal, onUpdate, _context, execution) {
      const updates = latestOnly((text: string) => onUpdate({ content: [{ type: "text", text }], details: { server: connection.name, tool: tool.name } }));
      try {
        const result = await connection.call(tool.name, params as Record<string, unknown>, {
          signal,
          // The call's trace context (traceparent, tracestate) at the root of _meta, so a trace crosses into the server.
          meta: execution?.carrier(),
          timeoutMs: options.toolTimeoutMs,
          onProgress: (message, progress, total) => updates.push(message ?? `${progress}${total !== undefined ? ` of ${total}` : ""}`),
        });
        return toolhostResult(result, connection.name, tool.name, options.maxResultChars);
      } catch (error) {
        return failedCall(error, { server: connection.name, tool: tool.name, toolTimeoutMs: options.toolTimeoutMs }, signal);
      } finally {
        updates.stop();
      }
    },
  };
  return { tool: agentTool, schema };
}
