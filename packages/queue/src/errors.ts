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
  /**
   * A call sent to the queue of a tool this host does not have, on a host whose policy judges
   * declared access: refused (at load for a tool named in `tools`), since the policy cannot judge it.
   */
  UNDECLARED: "TOOLHOST_QUEUE_UNDECLARED",
  /** A tool known only from the workers' list was called where no worker runs it. */
  REMOTE_ONLY: "TOOLHOST_QUEUE_REMOTE_ONLY",
  /** The queue's key (signing.keyFile or the key variable) is unusable: too short, unreadable, readable by others. */
  BAD_KEY: "TOOLHOST_QUEUE_BAD_KEY",
  /** `toolhost worker` has no key to check jobs with, and was not told to run without the check. */
  NO_KEY: "TOOLHOST_QUEUE_NO_KEY",
  /** A worker with the key refused a job that carries no signature: it did not run. */
  JOB_UNSIGNED: "TOOLHOST_QUEUE_JOB_UNSIGNED",
  /** A worker refused a job whose signature is wrong, or made with a key it does not hold: it did not run. */
  JOB_SIGNATURE_INVALID: "TOOLHOST_QUEUE_JOB_SIGNATURE_INVALID",
  /** A worker refused a job signed longer ago than `signing.maxAgeSeconds` (or in the future): it did not run. */
  JOB_EXPIRED: "TOOLHOST_QUEUE_JOB_EXPIRED",
  /** A worker refused a job whose signed call id, queue or content does not match the job it came in: it did not run. */
  JOB_REPLAYED: "TOOLHOST_QUEUE_JOB_REPLAYED",
  /**
   * A worker did not run a call that may not run twice, because its start could not be confirmed on
   * a replica of the queue's Redis master (a failover could then hand it to a second worker).
   */
  START_UNCONFIRMED: "TOOLHOST_QUEUE_START_UNCONFIRMED",
  /** The host refused a worker's answer that is unsigned or wrongly signed: the call may or may not have run. */
  REPLY_REFUSED: "TOOLHOST_QUEUE_REPLY_REFUSED",
  /**
   * A warning: the host refused a signed answer for a call id that answers another job than the one
   * it sent (a copy of an old answer put back into Redis). The call goes on and gets its own answer.
   */
  REPLY_REPLAYED: "TOOLHOST_QUEUE_REPLY_REPLAYED",
  /**
   * No worker took the call within the host's bound (`toolhost call --wait`, `waitForWorkerSeconds`,
   * at most `signing.maxAgeSeconds`): withdrawn from the queue, not run. Also the code of the
   * warning that calls are waiting for a worker.
   */
  NOT_TAKEN: "TOOLHOST_QUEUE_NOT_TAKEN",
  /** A warning at load: the host holds no key, so its jobs are unsigned and only a worker started with --no-auth runs them. */
  UNSIGNED_HOST: "TOOLHOST_QUEUE_UNSIGNED_HOST",
} as const);

export type QueueErrorCode = (typeof QueueErrorCode)[keyof typeof QueueErrorCode];
