import { type AgentToolResult, ToolhostError } from "@toolhost/core";
import { capped, echo } from "./_echo.js";
import { FsErrorCode } from "./errors.js";

/** Thrown inside the tools; the tool helper turns it into an error result carrying `code` and `details`. */
export class FsError extends ToolhostError {
  override name = "FsError";
  declare readonly details: Record<string, unknown>;
  constructor(code: FsErrorCode, message: string, details: Record<string, unknown> = {}) {
    super(code, message, { details });
  }
}

/**
 * Codes of refusals: the tool's own rules said no (the roots, a policy that could not answer, a
 * read-only file) and nothing was changed or shown. Their results carry `refused: true`, the mark a
 * host reads to count a call as refused rather than failed (the CLI's exit 2). A refusal found
 * before the call runs is thrown from `access` instead, and the kernel ends the call there.
 */
const REFUSALS: ReadonlySet<string> = new Set([
  FsErrorCode.OUTSIDE_ROOTS,
  FsErrorCode.POLICY_FAILED,
  FsErrorCode.READ_ONLY,
  FsErrorCode.CHANGED,
  FsErrorCode.HARD_LINK,
]);

function isAbort(error: unknown, signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true || (error instanceof Error && error.name === "AbortError");
}

/**
 * Runs a tool body: an `FsError` or a Node file-system error becomes an error result with a code,
 * an abort is thrown on (the kernel reports it).
 */
export async function asResult<T>(
  signal: AbortSignal | undefined,
  path: string | undefined,
  body: () => Promise<AgentToolResult<T>>,
): Promise<AgentToolResult<T | Record<string, unknown>>> {
  try {
    signal?.throwIfAborted();
    return await body();
  } catch (error) {
    if (isAbort(error, signal)) throw error;
    return errorFrom(error, path);
  }
}

/** The error result for something a tool body threw; rethrows what is neither ours nor the file system's. */
export function errorFrom(error: unknown, path: string | undefined): AgentToolResult<Record<string, unknown>> {
  const where = path === undefined ? {} : { path: capped(path) };
  if (error instanceof FsError) {
    return errorResult(error.message, { code: error.code, ...where, ...error.details, ...(REFUSALS.has(error.code) && { refused: true }) });
  }
  const errno = error as NodeJS.ErrnoException;
  if (typeof errno?.code === "string") {
    if (errno.code === "ELOOP") {
      return errorResult(
        `${path === undefined ? "The path" : echo(path)} loops through symbolic links (or has too many of them). Fix the links, or use the path of the real file.`,
        { code: FsErrorCode.INVALID_PATH, errno: errno.code, ...where },
      );
    }
    if (errno.code === "ENAMETOOLONG") {
      return errorResult(`${path === undefined ? "The path" : echo(path)} is too long for the file system. Use a shorter name.`, {
        code: FsErrorCode.INVALID_PATH,
        errno: errno.code,
        ...where,
      });
    }
    return errorResult(describeErrno(errno, path), { code: FsErrorCode.IO_ERROR, errno: errno.code, ...where });
  }
  throw error;
}

export function errorResult(text: string, details: Record<string, unknown>): AgentToolResult<Record<string, unknown>> {
  return { content: [{ type: "text", text }], details, isError: true };
}

function describeErrno(error: NodeJS.ErrnoException, path: string | undefined): string {
  const where = path === undefined ? "" : ` on ${echo(path)}`;
  const hint =
    error.code === "EACCES" || error.code === "EPERM"
      ? "Check the file's permissions, or use a file you may access."
      : error.code === "ENOSPC"
        ? "Free some disk space and try again."
        : error.code === "EROFS"
          ? "The file system is read-only; write somewhere else."
          : "Check the path and try again.";
  // Node's message repeats the path: cut it like every other echo of an input.
  return `File system error ${error.code}${where}: ${capped(error.message)}. ${hint}`;
}
