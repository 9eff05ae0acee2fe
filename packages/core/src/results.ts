import type { AgentToolResult, ImageContent, TextContent } from "./types/index.js";

/**
 * An error result: `text` for the model, `details.code` the stable code, then `details`. The one
 * builder of error results in the kernel, the agent and the tools.
 *
 * ```ts
 * return toolError("TOOLHOST_FS_NOT_FOUND", `No file ${path}. Check the path.`, { path });
 * ```
 */
export function toolError<TDetails extends object = Record<string, unknown>>(
  code: string,
  text: string,
  details?: TDetails,
): AgentToolResult<{ code: string } & TDetails> {
  return { content: [{ type: "text", text }], details: { code, ...details } as { code: string } & TDetails, isError: true };
}

/** The stable code of a result (`details.code`), or undefined. */
export function resultCode(result: Pick<AgentToolResult, "details">): string | undefined {
  const details = result.details as { code?: unknown } | null | undefined;
  return typeof details?.code === "string" ? details.code : undefined;
}

/** The text of a result's content, blocks joined by newlines, an image as `[image]`: for messages and logs. */
export function textOf(result: Pick<AgentToolResult, "content">): string {
  return result.content.map((block) => (block.type === "text" ? block.text : `[${block.type}]`)).join("\n");
}

/** Whether a block of content is a text or image block the way the types say. */
export function isContentBlock(block: unknown): block is TextContent | ImageContent {
  if (block === null || typeof block !== "object") return false;
  const { type } = block as { type?: unknown };
  if (type === "text") return typeof (block as TextContent).text === "string";
  return type === "image" && typeof (block as ImageContent).data === "string" && typeof (block as ImageContent).mimeType === "string";
}

/**
 * A tool's (or a tap's) answer as a result of its own, with the fields a result has; undefined when
 * it is not one (no content array, a block that is neither text nor image, a getter that throws).
 */
export function checkedResult(value: unknown): AgentToolResult | undefined {
  try {
    if (value === null || typeof value !== "object") return undefined;
    const { content, details, isError, terminate, usage, addedToolNames } = value as AgentToolResult;
    if (!Array.isArray(content) || !content.every(isContentBlock)) return undefined;
    const result: AgentToolResult = { content, details };
    if (isError === true) result.isError = true;
    if (terminate === true) result.terminate = true;
    if (usage !== undefined) result.usage = usage;
    if (Array.isArray(addedToolNames)) result.addedToolNames = addedToolNames;
    return result;
  } catch {
    return undefined;
  }
}
