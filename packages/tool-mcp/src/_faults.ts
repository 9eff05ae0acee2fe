import { randomUUID } from "node:crypto";
import type { JSONRPCErrorResponse } from "@modelcontextprotocol/client";
import { McpErrorCode } from "./errors.js";

/**
 * Marks the error answers tool-mcp writes in a server's stead, so that a server cannot pass its own
 * errors off as toolhost's (it cannot know this value).
 */
const MARK = randomUUID();

/** Something tool-mcp found wrong with what a server sent, told to the call it concerns. */
export interface Fault {
  /** A stable code of `McpErrorCode`. */
  code: string;
  /** What the server did, starting with a verb: `sent a message longer than 10 MiB …`. */
  text: string;
}

/**
 * The answer a call gets for a fault: a JSON-RPC error with the fault in `data`, delivered to the
 * SDK as if the server had sent it, so the call that waits for it ends at once.
 */
export function faultAnswer(id: string | number, fault: Fault): JSONRPCErrorResponse {
  return { jsonrpc: "2.0", id, error: { code: -32603, message: fault.text, data: { toolhostFault: MARK, code: fault.code } } };
}

/** The fault an error of a call carries, when it is one of tool-mcp's own. */
export function faultOf(error: unknown): Fault | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  const data = (error as { data?: { toolhostFault?: unknown; code?: unknown } }).data;
  if (data?.toolhostFault !== MARK || typeof data.code !== "string") return undefined;
  return { code: data.code, text: String((error as { message?: unknown }).message ?? "") };
}

/** A size for messages: `10 MiB`, `64 KiB`, `100 bytes`. */
export function sizeText(bytes: number): string {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}

/** The fault of a message over the limit. */
export function tooLarge(limit: number, what: string): Fault {
  return {
    code: McpErrorCode.MESSAGE_TOO_LARGE,
    text: `sent ${what} longer than ${sizeText(limit)}, tool-mcp's limit for one message (maxMessageBytes); it was skipped. If the server's answers are meant to be this large, raise maxMessageBytes in tool-mcp's options; else ask for less (a smaller range, a narrower query)`,
  };
}
