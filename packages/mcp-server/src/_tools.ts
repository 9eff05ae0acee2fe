import type { AnyAgentTool, ToolAnnotations } from "@toolhost/core";
import type { Tool } from "@modelcontextprotocol/server";

/** MCP's tool annotations from core's: a hint only where the tool says it (absent → no hint). */
export function mcpAnnotations(annotations: ToolAnnotations | undefined): Tool["annotations"] | undefined {
  if (!annotations) return undefined;
  const hints: NonNullable<Tool["annotations"]> = {};
  if (annotations.readOnly !== undefined) hints.readOnlyHint = annotations.readOnly;
  if (annotations.destructive !== undefined) hints.destructiveHint = annotations.destructive;
  if (annotations.idempotent !== undefined) hints.idempotentHint = annotations.idempotent;
  if (annotations.openWorld !== undefined) hints.openWorldHint = annotations.openWorld;
  return Object.keys(hints).length > 0 ? hints : undefined;
}

/**
 * A tool as `tools/list` shows it. TypeBox schemas are JSON Schema; the JSON round trip drops
 * TypeBox's symbol keys so only JSON Schema goes on the wire.
 */
export function mcpTool(tool: AnyAgentTool): Tool {
  const inputSchema = JSON.parse(JSON.stringify(tool.parameters)) as Tool["inputSchema"];
  const annotations = mcpAnnotations(tool.annotations);
  return {
    name: tool.name,
    ...(tool.label && tool.label !== tool.name ? { title: tool.label } : {}),
    description: tool.description,
    inputSchema: { ...inputSchema, type: "object" },
    ...(annotations ? { annotations } : {}),
  };
}
