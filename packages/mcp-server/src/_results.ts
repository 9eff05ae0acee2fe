import type { ToolResultMessage } from "@toolhost/core";
import type { CallToolResult } from "@modelcontextprotocol/server";

/**
 * A toolhost result as an MCP `tools/call` result: text and image content as they are; `details`
 * stay out (no toolhost tool declares an output schema, which `structuredContent` needs); an error
 * result is `isError` with its stable code in the text, so a client that shows only the text sees it.
 */
export function mcpResult(message: ToolResultMessage): CallToolResult {
  const content: CallToolResult["content"] = message.content.map((part) =>
    part.type === "image" ? { type: "image", data: part.data, mimeType: part.mimeType } : { type: "text", text: part.text },
  );
  if (!message.isError) return { content };
  const code = codeOf(message.details);
  if (code !== undefined && !content.some((part) => part.type === "text" && part.text.includes(code))) {
    content.push({ type: "text", text: `(${code})` });
  }
  if (content.length === 0) content.push({ type: "text", text: code ?? "The tool failed." });
  return { content, isError: true };
}

/** The stable code of an error result, where the kernel or the tool put one. */
export function codeOf(details: unknown): string | undefined {
  if (typeof details !== "object" || details === null) return undefined;
  const code = (details as { code?: unknown }).code;
  return typeof code === "string" ? code : undefined;
}
