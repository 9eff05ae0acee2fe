import type { JSONRPCErrorResponse } from "@modelcontextprotocol/server";
import { McpServeErrorCode } from "./errors.js";
import type { MessageId } from "@toolhost/mcp-wire";
import { sizeText } from "./limits.js";

const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;

/** The MCP revision that had JSON-RPC batches: added in 2025-03-26, removed in 2025-06-18. */
export const BATCH_REVISION = "2025-03-26";

/** Whether the negotiated protocol version lets a client send batches. */
export function batchesAllowed(version: string | undefined): boolean {
  return version === BATCH_REVISION;
}

type ErrorCodeName = (typeof McpServeErrorCode)[keyof typeof McpServeErrorCode];

/**
 * A JSON-RPC error answer with toolhost's stable code in `data.code`. `null` is for a message whose
 * id could not be read (JSON-RPC's rule for parse errors).
 */
export function errorAnswer(id: MessageId | null, code: ErrorCodeName, message: string, extra: Record<string, unknown> = {}): JSONRPCErrorResponse {
  const rpcCode = code === McpServeErrorCode.PARSE_ERROR ? PARSE_ERROR : INVALID_REQUEST;
  return { jsonrpc: "2.0", id: id as MessageId, error: { code: rpcCode, message, data: { code, ...extra } } };
}

export function tooLargeAnswer(id: MessageId | null, limit: number): JSONRPCErrorResponse {
  return errorAnswer(
    id,
    McpServeErrorCode.MESSAGE_TOO_LARGE,
    `The message is longer than ${sizeText(limit)}, toolhost's limit for one message (maxMessageBytes); it was skipped. Send less in one message, or serve with a larger maxMessageBytes.`,
    { limit },
  );
}

export function batchUnsupportedAnswer(id: MessageId | null, version: string | undefined): JSONRPCErrorResponse {
  const which = version === undefined ? "before initialize" : `in protocol version ${version}`;
  return errorAnswer(
    id,
    McpServeErrorCode.BATCH_UNSUPPORTED,
    `JSON-RPC batches are not part of MCP ${which} (only ${BATCH_REVISION} had them); nothing in the batch was run. Send each message on its own.`,
    version === undefined ? {} : { protocolVersion: version },
  );
}

export function batchTooLargeAnswer(id: MessageId, requests: number, maxInFlight: number): JSONRPCErrorResponse {
  return errorAnswer(
    id,
    McpServeErrorCode.BATCH_TOO_LARGE,
    `The batch holds ${requests} requests, more than the ${maxInFlight} a session may have in flight (maxInFlight); nothing in it was run. Send at most ${maxInFlight} requests in one batch.`,
    { limit: maxInFlight },
  );
}

export function duplicateIdAnswer(id: MessageId): JSONRPCErrorResponse {
  return errorAnswer(id, McpServeErrorCode.DUPLICATE_ID, `A request with id ${JSON.stringify(id)} is still being served; this one was not run. Give each request an id of its own.`);
}

export function invalidAnswer(id: MessageId | null, reason: string): JSONRPCErrorResponse {
  return id === null && reason === "not JSON"
    ? errorAnswer(null, McpServeErrorCode.PARSE_ERROR, "The line is not JSON; it was skipped. Send one JSON-RPC message per line.")
    : errorAnswer(id, McpServeErrorCode.INVALID_MESSAGE, `The message is not a JSON-RPC 2.0 request, notification or response (${reason}); it was skipped.`);
}

/** The id of a JSON value that claims to be a request (has a method and a usable id). */
export function claimedId(value: unknown): MessageId | null {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return null;
  const { id } = value as { id?: unknown };
  return typeof id === "string" || (typeof id === "number" && Number.isFinite(id)) ? id : null;
}
