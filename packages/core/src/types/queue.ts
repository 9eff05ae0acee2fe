/** What `toolhost worker` asks of the queue service: run the calls of one queue on this harness. */
export interface QueueWorkOptions {
  /** The queue to take calls from. */
  queue: string;
  /** How many calls run at once. */
  concurrency: number;
  /** How long a worker's claim on a call lasts without renewal; a crashed worker's calls are found after it. */
  lockDurationMs?: number;
  /** How often a health line is reported. */
  healthIntervalMs?: number;
  /** After `signal` aborts, how long running calls may finish before they are ended. */
  shutdownGraceMs?: number;
  /** Aborting it shuts the worker down gracefully: no new calls, running ones finish (see `shutdownGraceMs`). */
  signal: AbortSignal;
  /**
   * A file holding the key jobs are signed with, instead of the one the queue plugin's options name
   * (for a worker whose key is not where its config says).
   */
  keyFile?: string;
  /**
   * Runs every job without checking who signed it. A worker refuses to start without a key unless
   * this is set, and then says so in every health report: anyone who can write to its Redis can
   * then run any call on it.
   */
  noAuthorityCheck?: boolean;
  /** Each health report (ready, periodic, stopping, stopped), for the worker's output. */
  onHealth(report: Record<string, unknown>): void;
}

/**
 * What a queue plugin offers as the service `"queue"`: the worker side, used by `toolhost worker`,
 * and on a host, the bound `toolhost call --wait` puts on waiting for a worker.
 */
export interface QueueService {
  /** Takes calls from the queue and runs them through this harness until `signal` aborts and they finish. */
  work(options: QueueWorkOptions): Promise<void>;
  /**
   * Bounds how long each call this host sends from now on waits for a worker to take it: a call
   * no worker has taken within `ms` is withdrawn from the queue and answered as not run (a
   * refusal). `by` names who set the bound, for that answer (`"toolhost call --wait 30"`).
   * Optional: a queue plugin without it cannot bound the wait.
   */
  waitAtMost?(ms: number, by: string): void;
}

