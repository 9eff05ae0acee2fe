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
  /**
   * The server sent a message longer than `maxMessageBytes`: the call it answered ended (or, when
   * the message could not be told apart or had no end, every call of the server, which was stopped).
   */
  MESSAGE_TOO_LARGE: "TOOLHOST_MCP_MESSAGE_TOO_LARGE",
  /** The server answered the call with something that is not a JSON-RPC answer. */
  BAD_ANSWER: "TOOLHOST_MCP_BAD_ANSWER",
} as const);
