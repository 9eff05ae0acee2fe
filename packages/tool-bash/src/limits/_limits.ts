import { totalmem } from "node:os";
import type { ToolLimits } from "@toolhost/core";
import type { CgroupBounds } from "./_cgroup.js";
import type { LimitMechanisms, RlimitName } from "./_mechanisms.js";
import { bytesText, withCommas } from "../_numbers.js";

export { bytesText } from "../_numbers.js";

export type LimitName = keyof ToolLimits;
export const LIMIT_NAMES: readonly LimitName[] = ["processes", "memoryBytes", "fileSizeBytes", "cpuSeconds", "openFiles"];

const GiB = 1024 ** 3;

/**
 * The limits of a call under the minimal root when the config names none: high enough for any
 * ordinary build (a parallel compile, a test run with workers), low enough that a fork bomb, a
 * memory hog or a runaway write meets them long before the machine does.
 */
export function defaultLimits(): Required<ToolLimits> {
  const halfTheMemory = Math.floor(totalmem() / 2 / 1024 ** 2) * 1024 ** 2;
  return { processes: 4096, memoryBytes: Math.min(8 * GiB, halfTheMemory), fileSizeBytes: 8 * GiB, cpuSeconds: 3600, openFiles: 16384 };
}

/** The limits a call runs with, and what enforces each. */
export interface EffectiveLimits {
  /** What is enforced, by name: what the call's confinement declares. */
  values: ToolLimits;
  /** What enforces each enforced limit (`cgroup v1 pids.max`). */
  by: Partial<Record<LimitName, string>>;
  /** Limits asked for that nothing here can enforce, and why. */
  unenforced: Partial<Record<LimitName, string>>;
  /** The call's cgroups, when a controller enforces a limit. */
  cgroup: CgroupBounds | undefined;
  /** `prlimit`'s path and arguments (before `--`) for the sandbox's shell, when rlimits are set. */
  prlimit: { path: string; args: string[] } | undefined;
}

const RLIMIT: Record<Exclude<LimitName, "processes">, RlimitName> = { memoryBytes: "data", fileSizeBytes: "fsize", cpuSeconds: "cpu", openFiles: "nofile" };

/**
 * The strongest mechanism present for each limit: a cgroup (processes, memory: all the call's
 * processes together) where this process may make one, else setrlimit through prlimit, per
 * process (processes: only in a user namespace and not as root, since RLIMIT_NPROC binds no root
 * process and counts every process of the user outside one). A value above this process's own
 * hard limit is lowered to it.
 */
export function effectiveLimits(asked: ToolLimits, mechanisms: LimitMechanisms): EffectiveLimits {
  const limits: EffectiveLimits = { values: {}, by: {}, unenforced: {}, cgroup: undefined, prlimit: undefined };
  const rlimits: string[] = [];
  const rlimit = (name: LimitName, resource: RlimitName, value: number, words: string): void => {
    if (!mechanisms.prlimit) {
      limits.unenforced[name] = "prlimit (util-linux) was not found";
      return;
    }
    const hard = mechanisms.hard[resource];
    const set = hard !== undefined && hard < value ? hard : value;
    // CPU: SIGXCPU at the soft limit (the shell says "CPU time limit exceeded"), SIGKILL a second later
    // for a process that ignores it; with both equal the kernel sends SIGKILL at once, and nobody says why.
    rlimits.push(`--${resource}=${set}:${resource === "cpu" && (hard === undefined || set < hard) ? set + 1 : set}`);
    limits.values[name] = set;
    limits.by[name] = `setrlimit RLIMIT_${resource.toUpperCase()}${words}${set < value ? ` (lowered to this process's own hard limit)` : ""}`;
  };
  const processes = asked.processes;
  if (processes !== undefined) {
    if (mechanisms.pids) {
      limits.cgroup = { ...limits.cgroup, pids: { controller: mechanisms.pids, max: processes } };
      limits.values.processes = processes;
      limits.by.processes = `cgroup v${mechanisms.pids.version} pids.max (all the call's processes and threads)`;
    } else if (mechanisms.root) {
      limits.unenforced.processes = "toolhost runs as root, which RLIMIT_NPROC does not bind, and no cgroup can be made here";
    } else rlimit("processes", "nproc", processes, ", counted in the sandbox's user namespace");
  }
  const memory = asked.memoryBytes;
  if (memory !== undefined && mechanisms.memory) {
    limits.cgroup = { ...limits.cgroup, memory: { controller: mechanisms.memory, max: memory } };
    limits.values.memoryBytes = memory;
    limits.by.memoryBytes = `cgroup v${mechanisms.memory.version} memory limit (all the call's processes together)`;
  } else if (memory !== undefined) rlimit("memoryBytes", "data", memory, " (each process's data)");
  for (const name of ["fileSizeBytes", "cpuSeconds", "openFiles"] as const) {
    const value = asked[name];
    if (value !== undefined) rlimit(name, RLIMIT[name], value, " (each process)");
  }
  if (rlimits.length > 0 && mechanisms.prlimit) limits.prlimit = { path: mechanisms.prlimit, args: rlimits };
  return limits;
}

/** A limit, in the units a person reads (`8 GiB`, `4,096 processes`). */
export function limitText(name: LimitName, value: number): string {
  if (name === "memoryBytes" || name === "fileSizeBytes") return bytesText(value);
  if (name === "cpuSeconds") return `${withCommas(value)} s of CPU time`;
  return `${withCommas(value)} ${name === "processes" ? "processes" : "open files"}`;
}

/** One line for `toolhost config` and the details: each limit and what enforces it. */
export function limitsSummary(limits: EffectiveLimits): string {
  const parts = LIMIT_NAMES.map((name) => {
    const value = limits.values[name];
    if (value !== undefined) return `${name} ${limitText(name, value)} (${limits.by[name]})`;
    const why = limits.unenforced[name];
    return why ? `${name} not enforced: ${why}` : undefined;
  }).filter((part): part is string => part !== undefined);
  return parts.length > 0 ? parts.join("; ") : "none";
}
