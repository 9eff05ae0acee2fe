/** Stable codes of the errors the file tools report, in `details.code` of an error result. */
export const FsErrorCode = Object.freeze({
  /** The path resolves (after symlinks) outside every root. */
  OUTSIDE_ROOTS: "TOOLHOST_FS_OUTSIDE_ROOTS",
  /** The path is empty, too long, has a NUL byte, loops through symbolic links, or is not a regular file. */
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
  /** A regular expression or glob that does not parse, or is too long. */
  BAD_PATTERN: "TOOLHOST_FS_BAD_PATTERN",
  /** `write` or `edit` of a read-only file (no write permission bit), unless `overwriteReadOnly` is set. */
  READ_ONLY: "TOOLHOST_FS_READ_ONLY",
  /** A `ls`, `find` or `grep` could not ask the policy which paths to leave out, so it refused. */
  POLICY_FAILED: "TOOLHOST_FS_POLICY_FAILED",
  /** A root folder that does not exist. */
  ROOT_MISSING: "TOOLHOST_FS_ROOT_MISSING",
  /** A root that is a file, not a folder. */
  ROOT_NOT_FOLDER: "TOOLHOST_FS_ROOT_NOT_FOLDER",
  /**
   * The path is not what the policy judged: a link or a file was swapped in between the call's
   * check (its `access`) and its run. Nothing was read or written (a refusal).
   */
  CHANGED: "TOOLHOST_FS_CHANGED",
  /**
   * A regular file with more names (hard links) than the tool can find inside its roots: another
   * name lies where the tools may not go, so its content is not the roots' to show or change (a refusal).
   */
  HARD_LINK: "TOOLHOST_FS_HARD_LINK",
  /** The file system said no (permission, disk full, …). */
  IO_ERROR: "TOOLHOST_FS_IO_ERROR",
} as const);

export type FsErrorCode = (typeof FsErrorCode)[keyof typeof FsErrorCode];
