/** Exit codes of every command. */
export const ExitCode = Object.freeze({
  /** Done. */
  OK: 0,
  /** The tool reported an error (the result says so). */
  TOOL_ERROR: 1,
  /** Refused before anything ran: config, usage, invalid arguments, blocked, not approved. */
  REFUSED: 2,
  /** Interrupted with Ctrl-C. */
  INTERRUPTED: 130,
});
