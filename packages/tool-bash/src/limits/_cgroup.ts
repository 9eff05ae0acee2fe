import { mkdirSync, readFileSync, rmdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import type { CgroupController } from "./_mechanisms.js";

let made = 0;
/** Call cgroups that could not be removed yet (a process was still being reaped): tried again later and at exit. */
const leftover = new Set<string>();
let cleanupOnExit = false;

/** What a call's cgroups are to bound; a controller without a value is not used. */
export interface CgroupBounds {
  pids?: { controller: CgroupController; max: number };
  memory?: { controller: CgroupController; max: number };
}

/**
 * The cgroups of one sandboxed call, one per controller: made before the call starts, the call's
 * first process started inside them (`spawnInside`), read for the limits it reached, removed
 * once it has ended.
 */
export class CallCgroup {
  readonly #pids: { folder: string; controller: CgroupController; max: number } | undefined;
  readonly #memory: { folder: string; controller: CgroupController; max: number } | undefined;

  /** Makes the folders; throws (the call is then refused) when the system says no. */
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
      if (this.#memory) {
        const file = this.#memory.controller.version === 1 ? "memory.limit_in_bytes" : "memory.max";
        writeFileSync(join(this.#memory.folder, file), String(this.#memory.max));
        // Swap counts too, where the kernel accounts it.
        if (this.#memory.controller.version === 2) writeQuietly(join(this.#memory.folder, "memory.swap.max"), "0");
        else writeQuietly(join(this.#memory.folder, "memory.memsw.limit_in_bytes"), String(this.#memory.max));
      }
    } catch (error) {
      if (this.#pids) rmdirSync(this.#pids.folder);
      throw error;
    }
  }

  /**
   * Runs `spawn` (synchronous: Node forks on this thread) with this thread inside the call's
   * cgroups, so that the child starts there, then moves it back. The process limit is set once
   * this thread is out (v2 moves the whole process, whose threads would count against it).
   */
  spawnInside<T>(spawn: () => T): T {
    const moved: Array<{ from: string; controller: CgroupController }> = [];
    try {
      for (const group of [this.#pids, this.#memory]) {
        if (!group) continue;
        const from = join(group.controller.folder, group.controller.join);
        writeFileSync(join(group.folder, group.controller.join), String(process.pid));
        moved.push({ from, controller: group.controller });
      }
      return spawn();
    } finally {
      for (const { from } of moved) writeFileSync(from, String(process.pid));
      if (this.#pids) writeFileSync(join(this.#pids.folder, "pids.max"), String(this.#pids.max));
    }
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
      if (!(await removeWhenEmpty(group.folder))) remember(group.folder);
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
