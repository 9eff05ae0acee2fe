import { ErrorCode, ToolhostError } from "@toolhost/core";

/**
 * What one MCP client may hold of the server at a time. Every bound has a default; a client that
 * goes past one is slowed down (its input is not read) or answered with an error, never buffered.
 */
export interface ServeLimits {
  /**
   * Requests of one session (a stdio connection, an HTTP connection) being served at once, results
   * not yet written out included. When they are all taken, the client's input is not read until one
   * is done (backpressure). Default 32.
   */
  maxInFlight?: number;
  /**
   * The largest message a client may send, in bytes (default 4 MiB). A longer one is answered with
   * an error (for its id when it can be found) and skipped.
   */
  maxMessageBytes?: number;
  /**
   * Bytes written to a stdio client that it has not read yet (results and notifications). Past it
   * no new request is read and progress notifications are dropped until it reads. Default 16 MiB.
   */
  maxOutputBytes?: number;
  /** Requests being served at once over HTTP, all connections together. Default 64. */
  maxInFlightTotal?: number;
}

export type ResolvedLimits = Required<ServeLimits>;

export const DEFAULT_LIMITS: ResolvedLimits = Object.freeze({
  maxInFlight: 32,
  maxMessageBytes: 4 * 1024 * 1024,
  maxOutputBytes: 16 * 1024 * 1024,
  maxInFlightTotal: 64,
});

/** A line that runs on this far past `maxMessageBytes` without an end ends the connection. */
export const DISCARD_BYTES = 64 * 1024 * 1024;

/** The limits with defaults filled in; a value that is not a positive integer is an error naming it. */
export function resolveLimits(limits: ServeLimits = {}): ResolvedLimits {
  const resolved = { ...DEFAULT_LIMITS };
  for (const key of Object.keys(DEFAULT_LIMITS) as Array<keyof ResolvedLimits>) {
    const value = limits[key];
    if (value === undefined) continue;
    // Infinity is allowed for maxInFlight: the benchmark serves with no bound to measure it.
    if (!(Number.isInteger(value) || value === Infinity) || value < 1) {
      throw new ToolhostError(ErrorCode.INVALID_PLUGIN_OPTIONS, `@toolhost/mcp-server: ${key} must be a positive whole number, not ${String(value)}.`);
    }
    resolved[key] = value;
  }
  return resolved;
}

/** A size for messages: `4 MiB`, `512 KiB`, `100 bytes`. */
export function sizeText(bytes: number): string {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}
