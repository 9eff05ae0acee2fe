import { closeSync, openSync, readdirSync, readFileSync, readSync, statSync } from "node:fs";
import { setTimeout as delay } from "node:timers/promises";

/** One line of /proc/<pid>/stat, the fields that tell who belongs to a command's tree. */
interface ProcessEntry {
  pid: number;
  ppid: number;
  pgid: number;
  sid: number;
  /** Clock ticks after boot: with the pid, names one process even when pids are reused. */
  startTime: number;
  state: string;
}

let procAvailable: boolean | undefined;

function hasProc(): boolean {
  if (procAvailable === undefined) {
    try {
      readFileSync("/proc/self/stat");
      procAvailable = true;
    } catch {
      procAvailable = false;
    }
  }
  return procAvailable;
}

const scratch = Buffer.allocUnsafe(4096);

/** A small /proc file as text (stat, children: well under 4 KiB), or undefined when it cannot be read. */
function readSmall(path: string): string | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(path, "r");
    const length = readSync(fd, scratch, 0, scratch.length, 0);
    return scratch.toString("latin1", 0, length);
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

function readEntry(pid: number): ProcessEntry | undefined {
  const text = readSmall(`/proc/${pid}/stat`);
  if (text === undefined) return undefined;
  // The command name is in parentheses and may itself hold spaces and parentheses.
  const close = text.lastIndexOf(")");
  if (close < 0) return undefined;
  const fields = text.slice(close + 2).split(" ");
  return {
    pid,
    state: fields[0] ?? "?",
    ppid: Number(fields[1]),
    pgid: Number(fields[2]),
    sid: Number(fields[3]),
    startTime: Number(fields[19]),
  };
}

/**
 * The processes with a pid of at least `from` (every process when `from` is 0). Pids are handed
 * out in increasing order until they wrap: a process started after the shell has a higher pid,
 * so the rest of the machine's processes need not be read.
 */
function readFrom(from: number): ProcessEntry[] {
  const entries: ProcessEntry[] = [];
  let names: string[];
  try {
    names = readdirSync("/proc");
  } catch {
    return entries;
  }
  for (const name of names) {
    const code = name.charCodeAt(0);
    if (code < 48 || code > 57) continue;
    const pid = Number(name);
    if (pid < from) continue;
    const entry = readEntry(pid);
    if (entry) entries.push(entry);
  }
  return entries;
}

/** The pid the kernel handed out last (`/proc/loadavg`'s last field), or undefined. */
function lastPid(): number | undefined {
  const last = Number(readSmall("/proc/loadavg")?.trim().split(" ").pop());
  return Number.isInteger(last) && last > 0 ? last : undefined;
}

/** What a process's file descriptor is open on, as `device:inode` (a FIFO, a pipe or a socket alike). */
function openFileOf(pid: number, fd: number): string | undefined {
  try {
    const stat = statSync(`/proc/${pid}/fd/${fd}`);
    return `${stat.dev}:${stat.ino}`;
  } catch {
    return undefined; // Closed meanwhile, or not ours to see.
  }
}

let childrenFiles: boolean | undefined;

/** Whether the kernel lists each thread's children (CONFIG_PROC_CHILDREN): the tree can be walked without a full scan. */
function hasChildrenFiles(): boolean {
  childrenFiles ??= readSmall(`/proc/self/task/${process.pid}/children`) !== undefined;
  return childrenFiles;
}

const isDead = (entry: ProcessEntry): boolean => entry.state === "Z" || entry.state === "X";

function send(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // Already gone (ESRCH), or not ours to signal (EPERM): nothing more can be done from here.
  }
}

/**
 * The processes of one command: its shell (a process group and session leader), everything in
 * that group or session, every descendant, everything carrying the call's environment marker, and
 * everything holding the command's output pipes, so that a child that left the group (`setsid`),
 * emptied its environment, or was orphaned to init is still found.
 */
export class ProcessTree {
  readonly #root: number;
  readonly #marker: Buffer;
  readonly #known = new Map<number, number>();
  readonly #protected = new Set<number>();
  /** The output pipes (`device:inode`): whoever holds one inherited the command's stdout or stderr. */
  readonly #pipes = new Set<string>();
  #rootStart = 0;
  /** The last pid handed out when last looked: once it is lower than before, pids wrapped and every process is read. */
  #lastPid: number | undefined;
  #wrapped = false;

  readonly #pipesClosed: () => boolean;

  /**
   * `markerEntry` is `NAME=value`, set in the command's environment; `pipesClosed` says whether the
   * command's output pipes are closed (then no process holds them, and none is looked for by them);
   * `pipeFiles` are those pipes as `device:inode`, when the caller knows them: else they are read
   * from the shell's stdout and stderr, which finds nothing once it has exited (a loaded machine
   * may run a short command to its end before this constructor runs).
   */
  constructor(rootPid: number, markerEntry: string, pipesClosed: () => boolean = () => false, pipeFiles?: readonly string[]) {
    this.#root = rootPid;
    this.#pipesClosed = pipesClosed;
    this.#marker = Buffer.from(`${markerEntry}\0`);
    if (!hasProc()) return;
    const root = readEntry(rootPid);
    this.#rootStart = root?.startTime ?? 0;
    if (root) this.#known.set(rootPid, root.startTime);
    this.#lastPid = lastPid();
    for (const file of pipeFiles ?? [1, 2].map((fd) => openFileOf(rootPid, fd))) {
      // Unknown if the shell is already gone: its group, session and marker still find what it left.
      if (file !== undefined) this.#pipes.add(file);
    }
    // Never signal this process or its ancestors, whatever a scan says.
    let pid = process.pid;
    while (pid > 1 && !this.#protected.has(pid)) {
      this.#protected.add(pid);
      pid = readEntry(pid)?.ppid ?? 0;
    }
  }

  /**
   * Remembers the tree as it is now, so that children orphaned later are still found. Walks
   * /proc/<pid>/task/<tid>/children from the processes already known, which touches only the tree;
   * where the kernel has no such files, scans every process.
   */
  track(): void {
    if (!hasProc()) return;
    this.#noteWrap();
    if (hasChildrenFiles()) this.#walk();
    else for (const entry of this.#scan(false)) this.#known.set(entry.pid, entry.startTime);
  }

  #walk(): void {
    const queue = [...this.#known.keys()];
    const seen = new Set(queue);
    for (let i = 0; i < queue.length; i++) {
      const pid = queue[i] as number;
      let threads: string[];
      try {
        threads = readdirSync(`/proc/${pid}/task`);
      } catch {
        continue;
      }
      for (const thread of threads) {
        for (const word of (readSmall(`/proc/${pid}/task/${thread}/children`) ?? "").split(" ")) {
          const child = Number(word);
          if (!(child > 1) || seen.has(child)) continue;
          seen.add(child);
          const entry = readEntry(child);
          if (!entry || entry.startTime < this.#rootStart || this.#protected.has(child)) continue;
          this.#known.set(child, entry.startTime);
          queue.push(child);
        }
      }
    }
  }

  /** Whether the pids wrapped since the shell started (then a lower pid may be a later process). */
  #noteWrap(): void {
    const last = lastPid();
    if (last === undefined || this.#lastPid === undefined || last < this.#lastPid || last < this.#root) this.#wrapped = true;
    this.#lastPid = last;
  }

  /** Every live process of the tree now. */
  #scan(withEnvironment: boolean): ProcessEntry[] {
    this.#noteWrap();
    const all = readFrom(this.#wrapped ? 0 : this.#root);
    // The kernel reuses a pid only once no process has it as group or session id: a new process
    // under the shell's pid means its group and session are gone, and those now named so are another's.
    const reused = all.some((entry) => entry.pid === this.#root && entry.startTime !== this.#rootStart);
    const byParent = new Map<number, ProcessEntry[]>();
    const members = new Map<number, ProcessEntry>();
    const candidates: ProcessEntry[] = [];
    for (const entry of all) {
      // A process that started before the shell cannot be part of its tree (and may hold a reused pid).
      if (entry.startTime < this.#rootStart || this.#protected.has(entry.pid) || entry.pid <= 1) continue;
      candidates.push(entry);
      const siblings = byParent.get(entry.ppid);
      if (siblings) siblings.push(entry);
      else byParent.set(entry.ppid, [entry]);
      if (
        (!reused && (entry.pgid === this.#root || entry.sid === this.#root)) ||
        this.#known.get(entry.pid) === entry.startTime
      ) {
        members.set(entry.pid, entry);
      }
    }
    if (withEnvironment) {
      const pipesOpen = !this.#pipesClosed();
      for (const entry of candidates) {
        if (members.has(entry.pid) || isDead(entry)) continue;
        if (this.#carriesMarker(entry.pid) || (pipesOpen && this.#holdsPipe(entry.pid))) members.set(entry.pid, entry);
      }
    }
    const queue = [...members.values()];
    for (let i = 0; i < queue.length; i++) {
      for (const child of byParent.get((queue[i] as ProcessEntry).pid) ?? []) {
        if (!members.has(child.pid)) {
          members.set(child.pid, child);
          queue.push(child);
        }
      }
    }
    return [...members.values()].filter((entry) => !isDead(entry));
  }

  #carriesMarker(pid: number): boolean {
    try {
      return readFileSync(`/proc/${pid}/environ`).includes(this.#marker);
    } catch {
      return false; // Another user's process, or gone: not ours.
    }
  }

  #holdsPipe(pid: number): boolean {
    if (this.#pipes.size === 0) return false;
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      return false;
    }
    for (const fd of fds) {
      const file = openFileOf(pid, Number(fd));
      if (file !== undefined && this.#pipes.has(file)) return true;
    }
    return false;
  }

  /** Signals each entry once: through the process group where `toGroup` and it is a member, else by pid. */
  #signal(entries: readonly ProcessEntry[], signal: NodeJS.Signals, toGroup: boolean): void {
    const leader = readEntry(this.#root);
    const viaGroup =
      toGroup && (!leader || leader.startTime === this.#rootStart) && entries.some((entry) => entry.pgid === this.#root);
    if (viaGroup) send(-this.#root, signal);
    for (const entry of entries) {
      if (viaGroup && entry.pgid === this.#root) continue;
      // Check the pid still names the same process right before signalling it.
      const now = readEntry(entry.pid);
      if (now && now.startTime === entry.startTime && !isDead(now)) send(entry.pid, signal);
    }
  }

  /**
   * Ends every process of the tree: SIGTERM (and SIGCONT, so a stopped process can act on it),
   * then SIGKILL after `graceMs`, and waits until none is left. Returns quickly when none is.
   */
  async end(graceMs: number): Promise<void> {
    if (!hasProc()) return this.#endGroupOnly(graceMs);
    let alive = this.#scan(true);
    if (alive.length === 0) return;
    // Each process gets one SIGTERM: a second one asks many programs to skip their clean-up.
    const told = new Set<string>();
    const tell = (entries: readonly ProcessEntry[], toGroup: boolean): void => {
      const fresh = entries.filter((entry) => !told.has(`${entry.pid}:${entry.startTime}`));
      if (fresh.length === 0) return;
      for (const entry of fresh) told.add(`${entry.pid}:${entry.startTime}`);
      this.#signal(fresh, "SIGTERM", toGroup);
      this.#signal(fresh, "SIGCONT", toGroup);
    };
    tell(alive, true);
    const deadline = performance.now() + graceMs;
    let pause = 5;
    while (performance.now() < deadline) {
      await delay(Math.min(pause, Math.max(1, deadline - performance.now())));
      pause = Math.min(pause * 2, 100);
      alive = this.#scan(true);
      if (alive.length === 0) return;
      // Processes born during the grace (a trap that forks) get their SIGTERM too.
      tell(alive, false);
    }
    for (let attempt = 0; attempt < 100; attempt++) {
      this.#signal(alive, "SIGKILL", true);
      await delay(attempt < 10 ? 5 : 20);
      alive = this.#scan(true);
      if (alive.length === 0) return;
    }
  }

  /** SIGKILL to the whole tree at once, synchronously: for when this process is exiting. */
  killNow(): void {
    if (!hasProc()) {
      send(-this.#root, "SIGKILL");
      return;
    }
    const alive = this.#scan(true);
    this.#signal(alive, "SIGKILL", true);
    this.#signal(alive, "SIGKILL", false);
  }

  async #endGroupOnly(graceMs: number): Promise<void> {
    const group = -this.#root;
    const alive = (): boolean => {
      try {
        process.kill(group, 0);
        return true;
      } catch {
        return false;
      }
    };
    if (!alive()) return;
    send(group, "SIGTERM");
    send(group, "SIGCONT");
    const deadline = performance.now() + graceMs;
    while (performance.now() < deadline) {
      await delay(20);
      if (!alive()) return;
    }
    send(group, "SIGKILL");
  }
}

const running = new Set<ProcessTree>();
const killAllOnExit = (): void => {
  for (const tree of running) tree.killNow();
};

/**
 * Marks a tree as running, so that it is killed if this Node process exits before the call ends
 * (the shell is detached, so nothing else would end it). Returns the unmark function.
 */
export function killTreeOnExit(tree: ProcessTree): () => void {
  if (running.size === 0) process.on("exit", killAllOnExit);
  running.add(tree);
  return () => {
    running.delete(tree);
    if (running.size === 0) process.off("exit", killAllOnExit);
  };
}
