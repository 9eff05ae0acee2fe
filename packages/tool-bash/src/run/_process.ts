import { randomUUID } from "node:crypto";
import { setTimeout as delay } from "node:timers/promises";
import { messageOf } from "@toolhost/core";
import { type Options, type ResultPromise, execa } from "execa";
import { type CommandOutputs, type OutputPipe, commandOutputs } from "../_pipes.js";
import { ProcessTree, killTreeOnExit } from "../_tree.js";
import type { ExitStatus } from "./_result.js";

/** The environment variable every command of a call inherits, to find its processes after they leave the tree. */
export const CALL_MARKER = "TOOLHOST_BASH_CALL";

const TRACK_INTERVAL_MS = 200;

/** What to start: a program and its arguments (the shell, or the sandbox that runs it), where, with what added to the environment. */
export interface Launch {
  file: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
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
    let child: ResultPromise;
    try {
      child = spawn(launch, marker, outputs.stdio);
    } catch (error) {
      outputs.abandon();
      return { failure: messageOf(error), refused: true };
    }
    if (child.pid === undefined) {
      outputs.abandon();
      const failure = await child.then(
        (result) => result.originalMessage ?? result.shortMessage ?? "it did not start",
        (error: unknown) => messageOf(error),
      );
      return { failure, refused: false };
    }
    // The result promise waits on the pipes, which an escaped process may hold: it is not awaited.
    child.then(
      () => {},
      () => {},
    );
    return new ShellProcess(child, child.pid, marker, outputs);
  }

  private constructor(child: ResultPromise, pid: number, marker: string, outputs: CommandOutputs) {
    this.pid = pid;
    this.#tree = new ProcessTree(pid, marker);
    this.#unmarkExit = killTreeOnExit(this.#tree);
    this.#tracker = setInterval(() => this.#tree.track(), TRACK_INTERVAL_MS);
    this.#tracker.unref();
    this.pipes = outputs.spawned(child);
    this.exited = new Promise((resolve) => {
      child.once("exit", (code, signal) => resolve({ code, signal }));
    });
  }

  /**
   * Waits until the shell exits or the call is stopped, then ends whatever is left of its tree
   * (SIGTERM, SIGKILL after `graceMs`), and says how the shell ended.
   */
  async end(stopped: Promise<void>, graceMs: number): Promise<ExitStatus> {
    await Promise.race([this.exited, stopped]);
    await this.#tree.end(graceMs);
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

function spawn(launch: Launch, marker: string, [out, err]: CommandOutputs["stdio"]): ResultPromise {
  const separator = marker.indexOf("=");
  const options: Options = {
    cwd: launch.cwd,
    env: { ...launch.env, [marker.slice(0, separator)]: marker.slice(separator + 1) },
    extendEnv: true,
    // Its own process group and session, so that the whole tree can be signalled at once.
    detached: true,
    stdin: "ignore",
    // A file descriptor of our FIFO; execa's types list only 3 to 9, its runtime takes any.
    stdout: out as Options["stdout"],
    stderr: err as Options["stderr"],
    // Read here, chunk by chunk, in bounded memory; execa keeps nothing.
    buffer: false,
    encoding: "buffer",
    stripFinalNewline: false,
    reject: false,
    cleanup: false,
    forceKillAfterDelay: false,
  };
  return execa(launch.file, launch.args, options);
}
