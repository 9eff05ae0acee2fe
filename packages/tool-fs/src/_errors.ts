import { type AgentToolResult, ToolhostError } from "@toolhost/core";

/** Stable codes of the errors the file tools report, in `details.code` of an error result. */
export const FsErrorCode = Object.freeze({
  /** The path resolves (after symlinks) outside every root. */
  OUTSIDE_ROOTS: "TOOLHOST_FS_OUTSIDE_ROOTS",
  /** The path is empty or has a NUL byte. */
  INVALID_PATH: "TOOLHOST_FS_INVALID_PATH",
  NOT_FOUND: "TOOLHOST_FS_NOT_FOUND",
  IS_DIRECTORY: "TOOLHOST_FS_IS_DIRECTORY",
  NOT_DIRECTORY: "TOOLHOST_FS_NOT_DIRECTORY",
  /** A binary file that is not a supported image. */
  BINARY_FILE: "TOOLHOST_FS_BINARY_FILE",
  /** An image larger than `maxSize`. */
  TOO_LARGE: "TOOLHOST_FS_TOO_LARGE",
  /** A line range that is reversed or past the end of the file. */
  BAD_RANGE: "TOOLHOST_FS_BAD_RANGE",
  /** `edit` was given both forms, neither, or half of one. */
  BAD_EDIT: "TOOLHOST_FS_BAD_EDIT",
  /** `oldText` was not found. */
  NO_MATCH: "TOOLHOST_FS_NO_MATCH",
  /** `oldText` was found more than once and `replaceAll` was not set. */
  MULTIPLE_MATCHES: "TOOLHOST_FS_MULTIPLE_MATCHES",
  /** A regular expression or glob that does not parse. */
  BAD_PATTERN: "TOOLHOST_FS_BAD_PATTERN",
  /** A root folder that does not exist. */
  ROOT_MISSING: "TOOLHOST_FS_ROOT_MISSING",
  /** The file system said no (permission, disk full, …). */
  IO_ERROR: "TOOLHOST_FS_IO_ERROR",
} as const);

export type FsErrorCode = (typeof FsErrorCode)[keyof typeof FsErrorCode];

/** Thrown inside the tools; `execute` turns it into an error result carrying `code` and `details`. */
export class FsError extends ToolhostError {
  override name = "FsError";
  constructor(
    code: FsErrorCode,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(code, message);
  }
}

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
    if (error instanceof FsError) {
      return errorResult(error.message, { code: error.code, ...(path === undefined ? {} : { path }), ...error.details });
    }
    const errno = error as NodeJS.ErrnoException;
    if (typeof errno?.code === "string") {
      return errorResult(`${describeErrno(errno, path)}`, {
        code: FsErrorCode.IO_ERROR,
        errno: errno.code,
        ...(path === undefined ? {} : { path }),
      });
    }
    throw error;
  }
}

export function errorResult(text: string, details: Record<string, unknown>): AgentToolResult<Record<string, unknown>> {
  return { content: [{ type: "text", text }], details, isError: true };
}

function describeErrno(error: NodeJS.ErrnoException, path: string | undefined): string {
  const where = path === undefined ? "" : ` on "${path}"`;
  const hint =
    error.code === "EACCES" || error.code === "EPERM"
      ? "Check the file's permissions, or use a file you may access."
      : error.code === "ENOSPC"
        ? "Free some disk space and try again."
        : error.code === "EROFS"
          ? "The file system is read-only; write somewhere else."
          : "Check the path and try again.";
  return `File system error ${error.code}${where}: ${error.message}. ${hint}`;
}
