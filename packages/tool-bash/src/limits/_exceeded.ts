import type { BashToolDetails } from "../details.js";
import type { ExitStatus } from "../_shell-process.js";
import { type EffectiveLimits, type LimitName, limitText } from "./_limits.js";

/** A limit the call reached: the status line that says so, and the record of it for the details. */
export interface LimitEnding {
  status: string;
  exceeded: NonNullable<BashToolDetails["limitExceeded"]>;
}

/**
 * What a process meets at each setrlimit limit: the error it gets (`text`, taken when the command
 * failed), or the shell's words for the signal that killed it (`killed`, taken whatever the exit).
 */
const SIGNS: Record<LimitName, { code?: number; text: RegExp; killed?: RegExp }> = {
  // SIGXFSZ (25): the shell says "File size limit exceeded"; a program that ignores it gets EFBIG.
  fileSizeBytes: { code: 128 + 25, text: /File too large|EFBIG/, killed: /File size limit exceeded/ },
  // SIGXCPU (24), then SIGKILL at the hard limit.
  cpuSeconds: { code: 128 + 24, text: /CPU time limit exceeded/, killed: /CPU time limit exceeded/ },
  openFiles: { text: /Too many open files|EMFILE/ },
  memoryBytes: { text: /Cannot allocate memory|MemoryError|[Oo]ut of memory|std::bad_alloc|ENOMEM|could not allocate memory/ },
  // bash's own words when a fork fails at the limit (it retries, then gives up).
  processes: { text: /Cannot fork|EAGAIN/, killed: /fork: (retry: )?Resource temporarily unavailable/ },
};

/** The words for a limit the call reached; `stopped` when the tool ended the call for it (a cgroup said so). */
function statusOf(name: LimitName, value: number, stopped: boolean): string {
  const limit = limitText(name, value);
  const raise = `the sandbox's "${name}" limit; if the command needs more, ask the user to raise it in the bash tool's "limits" option`;
  switch (name) {
    case "processes":
      return `[stopped: it tried to run more than ${limit} at once (${raise}); every process was ended]`;
    case "memoryBytes":
      return stopped
        ? `[stopped: its processes used more than ${limit} of memory together (${raise}); the kernel ended the one that went over, and every process was ended]`
        : `[limit: a process could not get more memory at ${limit} (${raise})]`;
    case "fileSizeBytes":
      return `[limit: a write was stopped at ${limit}, the largest file a command may write (${raise})]`;
    case "cpuSeconds":
      return `[limit: a process was ended after ${limit} (${raise})]`;
    case "openFiles":
      return `[limit: a process reached ${limit} (${raise})]`;
  }
}

/**
 * Which limit ended the call, if any: one a cgroup counted (exact), else one whose sign the shell
 * gave (its words for a process killed by the limit's signal), or, when the command failed, a
 * signal's exit code or the error a program met.
 */
export function limitEnding(limits: EffectiveLimits, counted: LimitName | undefined, exit: ExitStatus, output: string): LimitEnding | undefined {
  const ending = (name: LimitName, stopped: boolean): LimitEnding | undefined => {
    const value = limits.values[name];
    const by = limits.by[name];
    if (value === undefined || by === undefined) return undefined;
    return { status: statusOf(name, value, stopped), exceeded: { limit: name, value, by } };
  };
  if (counted) return ending(counted, true);
  const failed = exit.code !== 0 || exit.signal !== null;
  for (const name of ["fileSizeBytes", "cpuSeconds", "openFiles", "memoryBytes", "processes"] as const) {
    // A cgroup's count is exact: its words alone are not taken for its limit.
    if (limits.cgroup?.[name === "processes" ? "pids" : "memory"] && (name === "processes" || name === "memoryBytes")) continue;
    const sign = SIGNS[name];
    const seen = sign.killed?.test(output) || (failed && ((sign.code !== undefined && exit.code === sign.code) || sign.text.test(output)));
    if (seen) {
      const found = ending(name, false);
      if (found) return found;
    }
  }
  return undefined;
}
