import { type AgentContext, type AnyAgentTool, type AssistantMessage, type ImageContent, type Message, type TextContent, type ToolResultMessage, textOf as textOfResult } from "@toolhost/core";
import type {
  ChatCompletionContentPart,
  ChatCompletionFunctionTool,
  ChatCompletionMessageFunctionToolCall,
  ChatCompletionMessageParam,
} from "openai/resources/chat/completions";

/**
 * The context as Chat Completions messages.
 *
 * - The system prompt comes first, as a `system` message.
 * - Thinking blocks of assistant messages are not sent back: Chat Completions has no field for them.
 * - A tool call that has no tool result in the context (the model was cut off or aborted while
 *   writing it) is left out, with its arguments: endpoints refuse a `tool_calls` entry that no
 *   `tool` message answers. An assistant message left with nothing to say is left out too.
 * - A `tool` message carries text only, so the images of tool results are sent in one `user`
 *   message right after the run of `tool` messages they belong to, each introduced by a line that
 *   names its tool call; the `tool` message says that they follow.
 */
export function toChatMessages(context: Pick<AgentContext, "systemPrompt" | "messages">): ChatCompletionMessageParam[] {
  const out: ChatCompletionMessageParam[] = [];
  if (context.systemPrompt) out.push({ role: "system", content: context.systemPrompt });

  const answered = new Set<string>();
  for (const message of context.messages) {
    if (message.role === "toolResult") answered.add(message.toolCallId);
  }

  let pendingImages: ChatCompletionContentPart[] = [];
  const flushImages = () => {
    if (pendingImages.length > 0) out.push({ role: "user", content: pendingImages });
    pendingImages = [];
  };

  for (const message of context.messages) {
    if (message.role !== "toolResult") flushImages();
    switch (message.role) {
      case "user":
        out.push({ role: "user", content: userContent(message.content) });
        break;
      case "assistant": {
        const converted = assistantMessage(message, answered);
        if (converted) out.push(converted);
        break;
      }
      case "toolResult":
        out.push(toolMessage(message, pendingImages));
        break;
      default:
        assertNever(message);
    }
  }
  flushImages();
  return out;
}

/** An assistant message with the tool calls that are answered; undefined when nothing is left to say. */
function assistantMessage(message: AssistantMessage, answered: ReadonlySet<string>): ChatCompletionMessageParam | undefined {
  const text = message.content
    .filter((block): block is TextContent => block.type === "text")
    .map((block) => block.text)
    .join("");
  const toolCalls: ChatCompletionMessageFunctionToolCall[] = [];
  for (const block of message.content) {
    if (block.type === "text" || block.type === "thinking") continue;
    if (!answered.has(block.id)) continue;
    toolCalls.push({ id: block.id, type: "function", function: { name: block.name, arguments: argumentsText(block.arguments) } });
  }
  if (text.length === 0 && toolCalls.length === 0) return undefined;
  return { role: "assistant", content: text.length > 0 ? text : null, ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}) };
}

/** A tool result as a `tool` message; its images go to `pendingImages`, for the user message after the run of tool messages. */
function toolMessage(message: ToolResultMessage, pendingImages: ChatCompletionContentPart[]): ChatCompletionMessageParam {
  const text = textOf(message.content);
  const images = message.content.filter((block): block is ImageContent => block.type === "image");
  let content = text;
  if (images.length > 0) {
    const note = `(${images.length === 1 ? "1 image follows" : `${images.length} images follow`} in the next user message)`;
    content = text.length > 0 ? `${text}\n${note}` : note;
    pendingImages.push({ type: "text", text: `Image${images.length > 1 ? "s" : ""} of tool call ${message.toolCallId} (${message.toolName}):` });
    for (const image of images) pendingImages.push(imagePart(image));
  }
  return { role: "tool", tool_call_id: message.toolCallId, content: content.length > 0 ? content : "(no output)" };
}

/**
 * The tools as Chat Completions function tools. `parameters` is the TypeBox schema as plain JSON
 * Schema: the JSON round trip drops TypeBox's symbol keys (`[Kind]`, `[Hint]`).
 */
export function toChatTools(tools: readonly AnyAgentTool[]): ChatCompletionFunctionTool[] {
  return tools.map((tool) => ({
    type: "function",
    function: { name: tool.name, description: tool.description, parameters: plainSchema(tool.parameters) },
  }));
}

// A tool's schema never changes once it is registered, so each is converted once.
const schemas = new WeakMap<object, Record<string, unknown>>();

function plainSchema(schema: object): Record<string, unknown> {
  let plain = schemas.get(schema);
  if (!plain) {
    plain = JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;
    schemas.set(schema, plain);
  }
  return plain;
}

function userContent(content: string | (TextContent | ImageContent)[]): string | ChatCompletionContentPart[] {
  if (typeof content === "string") return content;
  // Plain text goes as a string: some local servers accept only that for text-only models.
  if (content.every((block) => block.type === "text")) return textOf(content);
  return content.map((block) => (block.type === "text" ? { type: "text", text: block.text } : imagePart(block)));
}

function imagePart(image: ImageContent): ChatCompletionContentPart {
  return { type: "image_url", image_url: { url: `data:${image.mimeType};base64,${image.data}` } };
}

/** The text blocks of a content, joined (its images are sent on their own). */
function textOf(content: (TextContent | ImageContent)[]): string {
  return textOfResult({ content: content.filter((block): block is TextContent => block.type === "text") });
}

/** Arguments kept as the raw string (they were not valid JSON) go back as they came. */
function argumentsText(args: unknown): string {
  if (typeof args === "string") return args;
  return JSON.stringify(args ?? {});
}

function assertNever(message: never): never {
  throw new Error(`Unknown message role ${JSON.stringify((message as Message | undefined)?.role)}.`);
}
