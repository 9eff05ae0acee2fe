import { mkdtempSync, rmSync } from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

const MAX_TIMER_MS = 2 ** 31 - 1;
/** The bound of a full-output file when neither `fullOutputBytes` nor a `fileSizeBytes` limit says one: the minimal root's default `fileSizeBytes`. */
const DEFAULT_BOUND = 8 * 1024 ** 3;

/**
 * The most bytes one call's full-output file holds: `fullOutputBytes`, else the call's
 * `fileSizeBytes` (what the call may write to a file itself, so the host keeps no more for it).
 */
export function fullOutputBound(fullOutputBytes: number | undefined, fileSizeBytes: number | undefined): number {
  return fullOutputBytes ?? fileSizeBytes ?? DEFAULT_BOUND;
}

/** Every store still holding files, so that they go when this process exits. */
const live = new Set<FullOutputFiles>();
const removeAllOnExit = (): void => {
  for (const store of live) store.removeNow();
};

/** Where one call's full output goes, and until when it is kept. */
export interface FullOutputFile {
  path: string;
  /** When it will be deleted (ISO 8601, seconds), or undefined: when the harness is disposed. */
  expiresAt: string | undefined;
}

/**
 * The full-output files of one tool: a private folder (0700) under the system's temp folder,
 * made at first use; each file is deleted after `lifetimeSeconds` (0: never on its own), and
 * the whole folder when the tool is disposed or the process exits.
 */
export class FullOutputFiles {
  readonly #lifetimeMs: number;
  readonly #timers = new Set<NodeJS.Timeout>();
  #folder: string | undefined;
  #count = 0;
  #disposed = false;

  constructor(lifetimeSeconds: number) {
    this.#lifetimeMs = lifetimeSeconds * 1000;
  }

  /** The folder, made now if need be (the sandbox keeps it visible). */
  folder(): string {
    if (this.#disposed) throw new Error("the bash tool was disposed: no more full-output files");
    if (this.#folder === undefined) {
      this.#folder = mkdtempSync(join(tmpdir(), "toolhost-bash-"));
      if (live.size === 0) process.on("exit", removeAllOnExit);
      live.add(this);
    }
    return this.#folder;
  }

  /** The folder, or undefined when it cannot be made (the call says so if it needs a file). */
  tryFolder(): string | undefined {
    try {
      return this.folder();
    } catch {
      return undefined;
    }
  }

  /** A new file's path and when it goes; the file itself is made by whoever writes it. */
  next(): FullOutputFile {
    this.#count += 1;
    const path = join(this.folder(), `output-${this.#count}.log`);
    const ms = this.#lifetimeMs;
    if (ms <= 0 || ms > MAX_TIMER_MS) return { path, expiresAt: undefined };
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      void rm(path, { force: true }).catch(() => {});
    }, ms);
    timer.unref();
    this.#timers.add(timer);
    return { path, expiresAt: new Date(Date.now() + ms).toISOString().replace(/\.\d+Z$/, "Z") };
  }

  /** Deletes every file and the folder; later calls write none. */
  async dispose(): Promise<void> {
    this.#disposed = true;
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
    const folder = this.#forget();
    if (folder) await rm(folder, { recursive: true, force: true }).catch(() => {});
  }

  /** Synchronously, for when the process exits. */
  removeNow(): void {
    const folder = this.#forget();
    if (folder) rmSync(folder, { recursive: true, force: true });
  }

  #forget(): string | undefined {
    const folder = this.#folder;
    this.#folder = undefined;
    live.delete(this);
    if (live.size === 0) process.off("exit", removeAllOnExit);
    return folder;
  }
}
