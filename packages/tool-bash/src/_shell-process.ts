import { randomUUID } from "node:crypto";
import { setTimeout as delay } from "node:timers/promises";
import { messageOf } from "@toolhost/core";
import { type ChildProcess, type StdioOptions, spawn as spawnChild } from "node:child_process";
import { type CommandOutputs, type OutputPipe, commandOutputs } from "./_pipes.js";
import { ProcessTree, killTreeOnExit } from "./_tree.js";

/** How the shell ended: its code or signal; `seen` false when it was not seen to exit (bounded wait). */
export interface ExitStatus {
  code: number | null;
  signal: NodeJS.Signals | null;
  seen: boolean;
}

/** The environment variable every command of a call inherits, to find its processes after they leave the tree. */
export const CALL_MARKER = "TOOLHOST_BASH_CALL";

const TRACK_INTERVAL_MS = 200;

/** What to start: a program and its arguments (the shell, or the sandbox that runs it), where, with what added to the environment. */
export interface Launch {
  file: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  /** What the program reads from descriptors 3, 4, … (bwrap's arguments and seccomp filter): each a pipe, written and closed at the start. */
  inputs?: readonly Buffer[];
}

/**
 * The command's process: started in its own process group and session with stdin closed and its
 * output on our pipes, its tree tracked (every `TRACK_INTERVAL_MS`, so that orphans are still
 * known) and killed if this Node process exits first.
 */
export class ShellProcess {
  readonly pid: number;
  readonly pipes: readonly [OutputPipe, OutputPipe];
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  readonly #tree: ProcessTree;
  readonly #unmarkExit: () => void;
  readonly #tracker: NodeJS.Timeout;

  /** Starts it; a failure to start is a message for the result, never a throw. */
  static async start(launch: Launch): Promise<ShellProcess | { failure: string; refused: boolean }> {
    const marker = `${CALL_MARKER}=${randomUUID()}`;
    const outputs = await commandOutputs();
    let child: ChildProcess;
    try {
      child = spawn(launch, marker, outputs.stdio);
    } catch (error) {
      outputs.abandon();
      return { failure: messageOf(error), refused: true };
    }
    if (child.pid === undefined) {
      outputs.abandon();
      const failure = await new Promise<string>((resolve) => child.once("error", (error) => resolve(messageOf(error))));
      return { failure, refused: false };
    }
    child.on("error", () => {});
    giveInputs(child, 3, launch.inputs ?? []);
    return new ShellProcess(child, child.pid, marker, outputs);
  }

  /** A process started earlier (a launcher waiting in the call's cgroups) that now runs the call; `marker` is `NAME=value`. */
  static adopt(child: ChildProcess, marker: string, outputs: CommandOutputs): ShellProcess {
    return new ShellProcess(child, child.pid as number, marker, outputs);
  }

  private constructor(child: ChildProcess, pid: number, marker: string, outputs: CommandOutputs) {
    this.pid = pid;
    const pipes = outputs.spawned(child);
    this.pipes = pipes;
    this.#tree = new ProcessTree(pid, marker, () => pipes[0].isClosed && pipes[1].isClosed, outputs.files);
    this.#unmarkExit = killTreeOnExit(this.#tree);
    this.#tracker = setInterval(() => this.#tree.track(), TRACK_INTERVAL_MS);
    this.#tracker.unref();
    this.exited = new Promise((resolve) => {
      child.once("exit", (code, signal) => resolve({ code, signal }));
    });
  }

  /**
   * Waits until the shell exits or the call is stopped, then ends whatever is left of its tree
   * (SIGTERM, SIGKILL after `graceMs`), and says how the shell ended. `namespaced`: the process is
   * bwrap, whose exit means every process of its PID namespace is gone (the kernel killed them),
   * so nothing is left to look for when it exits on its own.
   */
  async end(stopped: Promise<void>, graceMs: number, namespaced: boolean): Promise<ExitStatus> {
    const first = await Promise.race([this.exited.then(() => "exited" as const), stopped.then(() => "stopped" as const)]);
    if (first === "exited" && !namespaced) {
      // The pipes' end, read in the same turn of the event loop, spares the look for their holders.
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    if (first === "stopped" || !namespaced) await this.#tree.end(graceMs);
    clearInterval(this.#tracker);
    // The shell is gone by now (SIGKILL at worst); the wait is bounded all the same.
    const gone = new AbortController();
    const unseen = { code: null, signal: null, seen: false };
    const exit = await Promise.race([
      this.exited.then((status) => ({ ...status, seen: true })),
      delay(1000, undefined, { signal: gone.signal }).then(
        () => unseen,
        () => unseen,
      ),
    ]);
    gone.abort();
    return exit;
  }

  /** The call has settled: no more tracking, nothing to kill on exit. */
  release(): void {
    clearInterval(this.#tracker);
    this.#unmarkExit();
  }
}

function spawn(launch: Launch, marker: string, [out, err]: CommandOutputs["stdio"]): ChildProcess {
  const separator = marker.indexOf("=");
  const stdio: StdioOptions = ["ignore", out, err, ...(launch.inputs ?? []).map(() => "pipe" as const)];
  return spawnChild(launch.file, launch.args, {
    cwd: launch.cwd,
    env: { ...process.env, ...launch.env, [marker.slice(0, separator)]: marker.slice(separator + 1) },
    // Its own process group and session, so that the whole tree can be signalled at once.
    detached: true,
    stdio,
  });
}

/** Writes each input to the child's descriptor `first + index` and closes it (a child that is gone reads nothing: no error). */
export function giveInputs(child: ChildProcess, first: number, inputs: readonly Buffer[]): void {
  for (const [index, data] of inputs.entries()) {
    const stream = child.stdio[first + index] as NodeJS.WritableStream & { on(event: "error", listener: () => void): unknown } | null | undefined;
    stream?.on("error", () => {});
    stream?.end(data);
  }
}
