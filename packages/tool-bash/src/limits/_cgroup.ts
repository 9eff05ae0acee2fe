import { mkdirSync, readFileSync, rmdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import type { CgroupController } from "./_mechanisms.js";

let made = 0;
/**
 * Call cgroups not removed yet: being removed (the call's processes leave them a moment after it
 * ends), or that could not be (one was still being reaped): tried again at the next call and when
 * this process exits, so that a short-lived host (one `toolhost call`) leaves none behind.
 */
const leftover = new Set<string>();
let cleanupOnExit = false;

/** What a call's cgroups are to bound; a controller without a value is not used. */
export interface CgroupBounds {
  pids?: { controller: CgroupController; max: number };
  memory?: { controller: CgroupController; max: number };
}

/**
 * The cgroups of one sandboxed call, one per controller: made (and bounded) before the call
 * starts, entered by the call's first process itself before it starts anything (`launcher`),
 * read for the limits it reached, removed once it has ended.
 *
 * The call's process moves itself in, rather than this process moving in around the spawn: a
 * move into a cgroup waits for an RCU grace period when none happened lately (about 10 ms on a
 * loaded 2-core machine, measured), which would block this process's event loop, and anything
 * this process started meanwhile would land in the call's cgroup.
 */
export class CallCgroup {
  readonly #pids: { folder: string; controller: CgroupController; max: number } | undefined;
  readonly #memory: { folder: string; controller: CgroupController; max: number } | undefined;

  /** Makes the folders and sets the bounds; throws (the call is then refused) when the system says no. */
  constructor(bounds: CgroupBounds) {
    retryLeftovers();
    const name = `toolhost-${process.pid}-${++made}`;
    const make = (bound: CgroupBounds["pids"]) => {
      if (!bound) return undefined;
      const folder = join(bound.controller.folder, name);
      mkdirSync(folder);
      return { folder, ...bound };
    };
    this.#pids = make(bounds.pids);
    try {
      this.#memory = make(bounds.memory);
      this.#bound();
    } catch (error) {
      for (const group of [this.#pids, this.#memory]) if (group) rmdirSync(group.folder);
      throw error;
    }
  }

  /** The call's cgroup folders, one per controller. */
  folders(): string[] {
    return [this.#pids, this.#memory].filter((group) => group !== undefined).map((group) => group.folder);
  }

  /**
   * The program and arguments that move themselves into the call's cgroups and then exec the
   * rest (`/bin/sh`, one process start); if a move fails the call fails, saying why.
   */
  launcher(): string[] {
    const files = [this.#pids, this.#memory].filter((group) => group !== undefined).map((group) => join(group.folder, "cgroup.procs"));
    const script = 'for f do [ "$f" = -- ] && break; echo $$ > "$f" || { echo "toolhost: the command could not enter its cgroup ($f), so it did not run" >&2; exit 125; }; shift; done; shift; exec "$@"';
    return ["/bin/sh", "-c", script, "toolhost-cgroup", ...files, "--"];
  }

  #bound(): void {
    if (this.#pids) writeFileSync(join(this.#pids.folder, "pids.max"), String(this.#pids.max));
    const memory = this.#memory;
    if (!memory) return;
    const v1 = memory.controller.version === 1;
    writeFileSync(join(memory.folder, v1 ? "memory.limit_in_bytes" : "memory.max"), String(memory.max));
    // Swap counts too, where the kernel accounts it.
    if (v1) writeQuietly(join(memory.folder, "memory.memsw.limit_in_bytes"), String(memory.max));
    else writeQuietly(join(memory.folder, "memory.swap.max"), "0");
  }

  /** The limit the call's processes reached, if any: the process count (a fork refused), or memory (the kernel killed a process). */
  exceeded(): "processes" | "memoryBytes" | undefined {
    if (this.#pids && counter(join(this.#pids.folder, "pids.events"), "max") > 0) return "processes";
    if (this.#memory) {
      const file = this.#memory.controller.version === 1 ? "memory.oom_control" : "memory.events";
      if (counter(join(this.#memory.folder, file), "oom_kill") > 0) return "memoryBytes";
    }
    return undefined;
  }

  /** Removes the folders once the processes have left them (they are dead: the sandbox's PID namespace is gone). */
  async remove(): Promise<void> {
    for (const group of [this.#pids, this.#memory]) {
      if (!group) continue;
      remember(group.folder);
      if (await removeWhenEmpty(group.folder)) leftover.delete(group.folder);
    }
  }
}

function counter(file: string, name: string): number {
  try {
    const match = new RegExp(`^${name} (\\d+)$`, "m").exec(readFileSync(file, "utf8"));
    return match ? Number(match[1]) : 0;
  } catch {
    return 0;
  }
}

async function removeWhenEmpty(folder: string): Promise<boolean> {
  for (let attempt = 0; attempt < 20; attempt++) {
    try {
      rmdirSync(folder);
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return true;
      await delay(attempt < 5 ? 2 : 20);
    }
  }
  return false;
}

function remember(folder: string): void {
  leftover.add(folder);
  if (cleanupOnExit) return;
  cleanupOnExit = true;
  process.once("exit", retryLeftovers);
}


function retryLeftovers(): void {
  for (const folder of leftover) {
    try {
      rmdirSync(folder);
      leftover.delete(folder);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") leftover.delete(folder);
    }
  }
}

function writeQuietly(file: string, value: string): void {
  try {
    writeFileSync(file, value);
  } catch {
    // No swap accounting here: nothing to bound.
  }
}
