/**
 * Stable codes of the errors `@toolhost/mcp-server` answers a client's message with, in the
 * JSON-RPC error's `data.code` (tool results carry the kernel's and the tools' own codes instead).
 */
export const McpServeErrorCode = Object.freeze({
  /** The message was longer than `maxMessageBytes`; it was skipped. */
  MESSAGE_TOO_LARGE: "TOOLHOST_MCP_MESSAGE_TOO_LARGE",
  /** The line was not JSON. */
  PARSE_ERROR: "TOOLHOST_MCP_PARSE_ERROR",
  /** The JSON was not a JSON-RPC message MCP knows. */
  INVALID_MESSAGE: "TOOLHOST_MCP_INVALID_MESSAGE",
  /** A JSON-RPC batch, in a protocol version without batches (all but 2025-03-26). */
  BATCH_UNSUPPORTED: "TOOLHOST_MCP_BATCH_UNSUPPORTED",
  /** A batch with more requests than `maxInFlight`, which could never be held whole. */
  BATCH_TOO_LARGE: "TOOLHOST_MCP_BATCH_TOO_LARGE",
  /** A request with the id of one still being served. */
  DUPLICATE_ID: "TOOLHOST_MCP_DUPLICATE_ID",
} as const);
