/** A mistake in how the command was called (bad JSON, unknown file, a value that cannot be right): exit 2. */
export class UsageError extends Error {
  override name = "UsageError";
  readonly code: string = "TOOLHOST_USAGE";
}
