import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** How often the commands holding a lease are looked at. */
const POLL_MS = 500;
/** A command the host has not started by then never will be (the host refused it after all). */
const START_MS = 120_000;

interface Lease {
  release: () => void;
  file: string;
  notes: string;
  since: number;
  /** The command's first process (the host's `/bin/sh`), once it wrote its id: its pid and start time. */
  process?: { pid: number; start: string };
}

/**
 * What a long-lived process keeps for commands another host runs (their place behind the proxy):
 * each command's first process writes its pid to its lease file as it starts, and what was kept
 * for it is let go once that process has ended, however it ended (exit, a signal, SIGKILL), or when
 * no process has started within two minutes. The files live in a folder of this process's own,
 * under the system's temporary folder, which the sandbox does not show.
 */
export class Leases {
  readonly #pollMs: number;
  readonly #startMs: number;
  #folder: string | undefined;
  readonly #leases = new Map<string, Lease>();
  #timer: NodeJS.Timeout | undefined;

  constructor(timing: { pollMs?: number; startMs?: number } = {}) {
    this.#pollMs = timing.pollMs ?? POLL_MS;
    this.#startMs = timing.startMs ?? START_MS;
  }

  /** A lease for one command: its files, for the command line; `release` is called once it has ended. */
  take(name: string, release: () => void): { file: string; notes: string } {
    this.#folder ??= mkdtempSync(join(tmpdir(), "toolhost-host-shell-"));
    const lease: Lease = { release, file: join(this.#folder, `${name}.pid`), notes: join(this.#folder, `${name}.notes`), since: Date.now() };
    this.#leases.set(name, lease);
    this.#timer ??= setInterval(() => this.#look(), this.#pollMs).unref();
    return { file: lease.file, notes: lease.notes };
  }

  /** Lets go of one command's lease now (the host will not run it). */
  end(name: string): void {
    const lease = this.#leases.get(name);
    if (!lease) return;
    this.#leases.delete(name);
    lease.release();
    rmSync(lease.file, { force: true });
    rmSync(lease.notes, { force: true });
    if (this.#leases.size === 0 && this.#timer) {
      clearInterval(this.#timer);
      this.#timer = undefined;
    }
  }

  #look(): void {
    for (const [name, lease] of this.#leases) {
      if (!lease.process) {
        const pid = Number(readQuietly(lease.file).trim());
        const start = pid > 0 ? startOf(pid) : undefined;
        if (start !== undefined) lease.process = { pid, start };
        else if (Date.now() - lease.since > this.#startMs) this.end(name);
        continue;
      }
      // Gone, or its pid taken by another process since.
      if (startOf(lease.process.pid) !== lease.process.start) this.end(name);
    }
  }

  /** Lets go of every lease and removes the folder. */
  dispose(): void {
    for (const name of [...this.#leases.keys()]) this.end(name);
    if (this.#folder) rmSync(this.#folder, { recursive: true, force: true });
    this.#folder = undefined;
  }
}

function readQuietly(file: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return "";
  }
}

/** A process's start time (field 22 of /proc/<pid>/stat), which tells it from a later process given the same pid. */
function startOf(pid: number): string | undefined {
  const stat = readQuietly(`/proc/${pid}/stat`);
  // The command name (field 2) may hold spaces and parentheses: count from its closing parenthesis.
  return stat === "" ? undefined : stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
}
