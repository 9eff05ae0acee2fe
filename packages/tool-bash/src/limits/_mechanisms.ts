import { mkdirSync, readFileSync, readdirSync, rmdirSync } from "node:fs";
import { join } from "node:path";
import { systemProgram } from "../_programs.js";

/** A cgroup controller this process may make child cgroups under: the folder, and how to move a thread there. */
export interface CgroupController {
  version: 1 | 2;
  /** This process's own cgroup folder for the controller: calls get child folders under it. */
  folder: string;
}

/** What this machine offers to bound a sandboxed call, found once per process. */
export interface LimitMechanisms {
  pids: CgroupController | undefined;
  memory: CgroupController | undefined;
  /** `prlimit` (util-linux), which sets the other limits on the sandbox's shell. */
  prlimit: string | undefined;
  /** Whether this process runs as root: RLIMIT_NPROC binds no root process. */
  root: boolean;
  /** This process's hard limits (`/proc/self/limits`): a limit above one of them cannot be set. */
  hard: Partial<Record<RlimitName, number>>;
}

export type RlimitName = "nproc" | "data" | "fsize" | "cpu" | "nofile";

let found: LimitMechanisms | undefined;

/** The mechanisms, looked for at the first call (cgroup folders are tried with a probe child). */
export function limitMechanisms(): LimitMechanisms {
  found ??= {
    pids: controller("pids"),
    memory: controller("memory"),
    prlimit: systemProgram("prlimit"),
    root: process.getuid?.() === 0,
    hard: hardLimits(),
  };
  return found;
}

/** This process's cgroup folder for `name` where a child cgroup can be made there (v1 hierarchy, or v2 with it delegated). */
function controller(name: "pids" | "memory"): CgroupController | undefined {
  let own: string;
  let mounts: string;
  try {
    own = readFileSync("/proc/self/cgroup", "utf8");
    mounts = readFileSync("/proc/self/mountinfo", "utf8");
  } catch {
    return undefined;
  }
  const candidates: CgroupController[] = [];
  for (const line of mounts.split("\n")) {
    const [left, right] = line.split(" - ");
    const fields = left?.split(" ") ?? [];
    const [type, , options] = right?.split(" ") ?? [];
    const root = fields[3];
    const point = fields[4];
    if (root === undefined || point === undefined) continue;
    if (type === "cgroup" && options?.split(",").includes(name)) {
      const path = new RegExp(`^\\d+:([^:]*,)?${name}(,[^:]*)?:(.*)$`, "m").exec(own)?.[3];
      if (path !== undefined) candidates.push({ version: 1, folder: join(point, relativeTo(path, root)) });
    } else if (type === "cgroup2") {
      const path = /^0::(.*)$/m.exec(own)?.[1];
      if (path === undefined) continue;
      const folder = join(point, relativeTo(path, root));
      if (delegated(folder, name)) candidates.push({ version: 2, folder });
    }
  }
  const found = candidates.find(usable);
  if (found) sweepStale(found.folder);
  return found;
}

function relativeTo(path: string, root: string): string {
  return root !== "/" && path.startsWith(root) ? path.slice(root.length) : path;
}

/** Whether a v2 cgroup hands `name` to its children. */
function delegated(folder: string, name: string): boolean {
  try {
    return readFileSync(join(folder, "cgroup.subtree_control"), "utf8").split(/\s+/).includes(name);
  } catch {
    return false;
  }
}

/** Whether a child cgroup can be made (and removed) here. */
function usable(candidate: CgroupController): boolean {
  const probe = join(candidate.folder, `toolhost-probe-${process.pid}`);
  try {
    mkdirSync(probe);
    rmdirSync(probe);
    return true;
  } catch {
    return false;
  }
}

const LIMIT_LINES: Record<string, RlimitName> = {
  "Max processes": "nproc",
  "Max data size": "data",
  "Max file size": "fsize",
  "Max cpu time": "cpu",
  "Max open files": "nofile",
};

function hardLimits(): Partial<Record<RlimitName, number>> {
  const hard: Partial<Record<RlimitName, number>> = {};
  let text: string;
  try {
    text = readFileSync("/proc/self/limits", "utf8");
  } catch {
    return hard;
  }
  for (const line of text.split("\n")) {
    const name = Object.keys(LIMIT_LINES).find((key) => line.startsWith(key));
    if (!name) continue;
    const value = line.slice(26).trim().split(/\s+/)[1];
    if (value !== undefined && value !== "unlimited") hard[LIMIT_LINES[name] as RlimitName] = Number(value);
  }
  return hard;
}

/**
 * Removes the empty call cgroups under `folder` that a process no longer running made (it was
 * killed, or exited before removing them): they hold nothing, and would pile up.
 */
function sweepStale(folder: string): void {
  let names: string[];
  try {
    names = readdirSync(folder);
  } catch {
    return;
  }
  for (const name of names) {
    const owner = /^toolhost-(\d+)-\d+$/.exec(name)?.[1];
    if (owner === undefined || Number(owner) === process.pid || running(Number(owner))) continue;
    try {
      rmdirSync(join(folder, name));
    } catch {
      // Not empty (its processes are still there), or not ours to remove.
    }
  }
}

function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
