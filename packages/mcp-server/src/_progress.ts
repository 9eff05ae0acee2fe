import type { AgentHarness } from "@toolhost/core";
import type { ServerContext } from "@modelcontextprotocol/server";

const MAX_MESSAGE = 500;

/**
 * Sends the call's streamed updates as MCP progress notifications, when the client gave a progress
 * token. The text is the tail of the update (updates are already redacted by the kernel).
 * Returns the function that stops it.
 */
export function progressReporter(harness: AgentHarness, toolCallId: string, ctx: ServerContext): () => void {
  const token = ctx.mcpReq._meta?.progressToken;
  if (token === undefined) return () => {};
  let progress = 0;
  return harness.subscribe((event) => {
    if (event.type !== "tool_execution_update" || event.toolCallId !== toolCallId) return;
    progress += 1;
    const text = event.partialResult.content
      .map((part) => (part.type === "text" ? part.text : `[image ${part.mimeType}]`))
      .join("\n");
    const message = text.length > MAX_MESSAGE ? `…${text.slice(-MAX_MESSAGE)}` : text;
    ctx.mcpReq
      .notify({ method: "notifications/progress", params: { progressToken: token, progress, message } })
      .catch(() => {
        // A client that went away gets no progress; the call itself ends through its signal.
      });
  });
}
