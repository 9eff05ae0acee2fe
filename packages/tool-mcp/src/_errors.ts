/** Stable codes of tool-mcp's errors, in `details.code` of results and `code` of thrown errors. */
export const McpErrorCode = Object.freeze({
  /** A server did not start: it could not be spawned, exited, or did not answer `initialize` in time. */
  SERVER_FAILED: "TOOLHOST_MCP_SERVER_FAILED",
  /** A server stopped during a call (it crashed or closed the connection). */
  SERVER_EXITED: "TOOLHOST_MCP_SERVER_EXITED",
  /** The server answered the call with `isError`. */
  TOOL_ERROR: "TOOLHOST_MCP_TOOL_ERROR",
  /** The server did not answer within `toolTimeout`. */
  TIMED_OUT: "TOOLHOST_MCP_TIMED_OUT",
  /** Two tools reduce to one toolhost name. */
  NAME_COLLISION: "TOOLHOST_MCP_NAME_COLLISION",
  /** The call failed on the protocol level (a JSON-RPC error). */
  CALL_FAILED: "TOOLHOST_MCP_CALL_FAILED",
} as const);
