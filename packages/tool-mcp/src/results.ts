import type { CallToolResult } from "@modelcontextprotocol/client";
import type { AgentToolResult, ImageContent, TextContent } from "@toolhost/core";
import { McpErrorCode } from "./errors.js";

/** What an MCP tool's result carries besides its content. */
export interface McpResultDetails {
  server: string;
  tool: string;
  /** The server's `structuredContent`, when it sent one. */
  structuredContent?: unknown;
  /** How many characters were cut, when the result was over `maxResultChars`. */
  cutChars?: number;
  code?: string;
}

type Part = TextContent | ImageContent;

/** One MCP content block as toolhost content: text and images as they are, the rest described in text. */
function partOf(block: CallToolResult["content"][number]): Part {
  switch (block.type) {
    case "text":
      return { type: "text", text: block.text };
    case "image":
      return { type: "image", data: block.data, mimeType: block.mimeType };
    case "audio":
      return { type: "text", text: `[audio ${block.mimeType}, ${Math.round((block.data.length * 3) / 4)} bytes, not shown]` };
    case "resource": {
      const resource = block.resource as { uri: string; text?: string; mimeType?: string };
      return { type: "text", text: resource.text ?? `[resource ${resource.uri}${resource.mimeType ? ` (${resource.mimeType})` : ""}, binary, not shown]` };
    }
    case "resource_link":
      return { type: "text", text: `[resource ${block.uri}${block.description ? `: ${block.description}` : ""}]` };
    default:
      return { type: "text", text: `[${(block as { type: string }).type} content, not shown]` };
  }
}

/**
 * An MCP `tools/call` result as a toolhost result, cut to `maxChars` characters (images count
 * their base64 size) with a note saying so.
 */
export function toolhostResult(result: CallToolResult, server: string, tool: string, maxChars: number): AgentToolResult<McpResultDetails> {
  let parts: Part[] = (result.content ?? []).map(partOf);
  if (parts.length === 0 && result.structuredContent !== undefined) {
    parts = [{ type: "text", text: JSON.stringify(result.structuredContent) }];
  }
  const { kept, cut } = cutTo(parts, maxChars);
  if (cut > 0) {
    kept.push({
      type: "text",
      text: `[toolhost: ${cut} characters of this result were cut (tool-mcp's maxResultChars is ${maxChars}). Ask for less: a smaller range, a narrower query.]`,
    });
  }
  const details: McpResultDetails = {
    server,
    tool,
    ...(result.structuredContent !== undefined ? { structuredContent: result.structuredContent } : {}),
    ...(cut > 0 ? { cutChars: cut } : {}),
    ...(result.isError ? { code: McpErrorCode.TOOL_ERROR } : {}),
  };
  return { content: kept, details, ...(result.isError ? { isError: true } : {}) };
}

function cutTo(parts: Part[], maxChars: number): { kept: Part[]; cut: number } {
  let left = maxChars;
  let cut = 0;
  const kept: Part[] = [];
  for (const part of parts) {
    const size = part.type === "text" ? part.text.length : part.data.length;
    if (size <= left) {
      kept.push(part);
      left -= size;
    } else if (part.type === "text" && left > 0) {
      kept.push({ type: "text", text: part.text.slice(0, left) });
      cut += size - left;
      left = 0;
    } else {
      cut += size;
    }
  }
  return { kept, cut };
}

/** An error result of tool-mcp's own, with its stable code. */
export function errorResult(code: string, text: string, server: string, tool: string): AgentToolResult<McpResultDetails> {
  return { content: [{ type: "text", text }], details: { server, tool, code }, isError: true };
}
