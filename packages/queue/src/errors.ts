/** Stable codes of the results and errors `@toolhost/queue` makes (in `details.code`, or `ToolhostError.code`). */
export const QueueErrorCode = Object.freeze({
  /** Redis could not be reached when the plugin loaded. */
  UNREACHABLE: "TOOLHOST_QUEUE_UNREACHABLE",
  /** Redis is not connected now, so the call was not queued (it did not run). */
  UNAVAILABLE: "TOOLHOST_QUEUE_UNAVAILABLE",
  /** The connection to Redis was lost while the call was queued or running: it may or may not have run. */
  CONNECTION_LOST: "TOOLHOST_QUEUE_CONNECTION_LOST",
  /** The worker running the call stopped (crashed, was killed): the call may or may not have run. */
  WORKER_LOST: "TOOLHOST_QUEUE_WORKER_LOST",
  /** The call id was already used for a different call on this queue (within the retention time). */
  CALL_ID_REUSED: "TOOLHOST_QUEUE_CALL_ID_REUSED",
  /** A job in Redis was not a call this plugin wrote (another program's job, or a corrupted one). */
  BAD_JOB: "TOOLHOST_QUEUE_BAD_JOB",
  /** A worker failed the job outside the tool (a bug, or Redis trouble on the worker). */
  WORKER_FAILED: "TOOLHOST_QUEUE_WORKER_FAILED",
  /** The worker shut down while the call ran, and the call could not be handed to another worker. */
  WORKER_SHUT_DOWN: "TOOLHOST_QUEUE_WORKER_SHUT_DOWN",
  /** A tool known only from the workers' list was called where no worker runs it. */
  REMOTE_ONLY: "TOOLHOST_QUEUE_REMOTE_ONLY",
} as const);

export type QueueErrorCode = (typeof QueueErrorCode)[keyof typeof QueueErrorCode];
