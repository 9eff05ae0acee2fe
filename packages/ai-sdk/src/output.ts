import type { Tool } from "ai";
import type { AgentToolResult, ImageContent, TextContent } from "@toolhost/core";

/** What a tool's `toModelOutput` returns: what the model reads of a result (`ai` does not export the type by name). */
export type ToolResultOutput = Awaited<ReturnType<NonNullable<Tool["toModelOutput"]>>>;

/**
 * The output of a toolhost tool in the AI SDK (`tool-result` parts, UI message parts): the result's
 * content (text and images, redacted) and its `details`. While the call runs, each streamed update
 * comes as a preliminary result of the same shape.
 */
export interface ToolhostToolOutput {
  content: (TextContent | ImageContent)[];
  details?: unknown;
}

/**
 * What the model reads of an output (`toModelOutput`): one text block as text; text and images as
 * the SDK's content parts (`image-data`), so a screenshot reaches a model that reads images.
 */
export function modelOutputOf(output: unknown): ToolResultOutput {
  const content = contentOf(output);
  if (content === undefined) return { type: "json", value: (output ?? null) as never };
  if (content.length === 1 && content[0]?.type === "text") return { type: "text", value: content[0].text };
  return {
    type: "content",
    value: content.map((block) => (block.type === "text" ? { type: "text" as const, text: block.text } : { type: "image-data" as const, data: block.data, mediaType: block.mimeType })),
  };
}

/** The content blocks of an output, or undefined when it is not one (a UI may hand back what it stored). */
function contentOf(output: unknown): (TextContent | ImageContent)[] | undefined {
  if (output === null || typeof output !== "object") return undefined;
  const { content } = output as { content?: unknown };
  if (!Array.isArray(content)) return undefined;
  const blocks = content.filter(
    (block): block is TextContent | ImageContent =>
      block !== null &&
      typeof block === "object" &&
      ((block.type === "text" && typeof block.text === "string") || (block.type === "image" && typeof block.data === "string" && typeof block.mimeType === "string")),
  );
  return blocks.length === content.length ? blocks : undefined;
}

/**
 * An AI SDK tool's answer as a toolhost result: what the model would read of it (its own
 * `toModelOutput`, else text or JSON) as content; an error output (`error-text`, `error-json`,
 * `execution-denied`) as an error result. The raw output stays in `details.output` for hooks and logs.
 */
export function resultOf(modelOutput: ToolResultOutput, output: unknown): AgentToolResult {
  const details = { output };
  switch (modelOutput.type) {
    case "text":
      return { content: [{ type: "text", text: modelOutput.value }], details };
    case "json":
      return { content: [{ type: "text", text: jsonText(modelOutput.value) }], details };
    case "error-text":
      return { content: [{ type: "text", text: modelOutput.value }], details: { ...details, code: "TOOLHOST_AI_SDK_TOOL_ERROR" }, isError: true };
    case "error-json":
      return { content: [{ type: "text", text: jsonText(modelOutput.value) }], details: { ...details, code: "TOOLHOST_AI_SDK_TOOL_ERROR" }, isError: true };
    case "execution-denied":
      return { content: [{ type: "text", text: `Not run: ${modelOutput.reason ?? "the tool denied its execution"}.` }], details: { ...details, code: "TOOLHOST_AI_SDK_TOOL_ERROR" }, isError: true };
    case "content":
      return { content: modelOutput.value.map(blockOf), details };
    default:
      return { content: [{ type: "text", text: jsonText(modelOutput) }], details };
  }
}

type ContentPart = Extract<ToolResultOutput, { type: "content" }>["value"][number];

function blockOf(part: ContentPart): TextContent | ImageContent {
  switch (part.type) {
    case "text":
      return { type: "text", text: part.text };
    case "image-data":
    case "media":
    case "file-data":
      if (part.mediaType.startsWith("image/")) return { type: "image", data: part.data, mimeType: part.mediaType };
      return { type: "text", text: `[a ${part.mediaType} file of ${part.data.length} base64 characters, not shown]` };
    case "image-url":
    case "file-url":
      return { type: "text", text: `[${part.type === "image-url" ? "image" : "file"}: ${part.url}]` };
    default:
      return { type: "text", text: `[${part.type} content, not shown]` };
  }
}

function jsonText(value: unknown): string {
  try {
    return JSON.stringify(value) ?? "null";
  } catch {
    return String(value);
  }
}
