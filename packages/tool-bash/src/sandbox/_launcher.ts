import { type ChildProcess, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import type { Readable, Writable } from "node:stream";
import { type CommandOutputs, commandOutputs } from "../_pipes.js";
import { CallCgroup, type CgroupBounds } from "../limits/_cgroup.js";
import { CALL_MARKER, ShellProcess, giveInputs } from "../_shell-process.js";

/**
 * Enters the cgroups named before `--`, says so on fd 3, then reads from stdin (NUL-separated
 * words, until its end) the call's changes to its environment (`NAME=value` exported, `-NAME`
 * unset), `--`, and the program to run, and becomes it, stdin from /dev/null. Stdin ends without a
 * word when this process is gone: it leaves its cgroup (to the parent) and removes it.
 */
const SCRIPT = `
files=(); for f do shift; [ "$f" = -- ] && break; files+=("$f"); done
for f in "\${files[@]}"; do echo $$ > "$f/cgroup.procs" || exit 125; done
printf r >&3; exec 3>&-
mapfile -d '' -t argv
if [ \${#argv[@]} -eq 0 ]; then for f in "\${files[@]}"; do echo $$ > "\${f%/*}/cgroup.procs"; rmdir "$f"; done; exit 0; fi
while [ \${#argv[@]} -gt 0 ] && [ "\${argv[0]}" != -- ]; do
  w=\${argv[0]}; argv=("\${argv[@]:1}")
  if [ "\${w:0:1}" = - ]; then unset "\${w:1}" || exit 125; else export "$w" || exit 125; fi
done
argv=("\${argv[@]:1}")
exec "\${argv[@]}" </dev/null
`;

/** How long a call waits for a launcher still entering its cgroups before it starts its own. */
const READY_WAIT_MS = 2000;

/** The descriptors from which the program run reads its inputs (bwrap's arguments, its seccomp filter): 4 and 5, after the ready signal's 3. */
export const LAUNCHER_INPUTS = 4;
const INPUT_COUNT = 2;

/**
 * A process already inside the next call's cgroups, waiting to be told what to run: moving into a
 * cgroup waits for an RCU grace period when none happened lately (8–10 ms measured on a loaded
 * machine), so the tool keeps one spare launcher that paid it before the call came. Made with the
 * call's output pipes, environment marker and the pipes its program's inputs come through.
 */
export class ReadyLauncher {
  readonly cgroup: CallCgroup;
  readonly ready: Promise<boolean>;
  readonly #child: ChildProcess;
  readonly #marker: string;
  readonly #outputs: CommandOutputs;
  /** The environment it was made with (the marker aside): a call's own differences are sent with its program. */
  readonly #environment: Readonly<Record<string, string | undefined>>;
  /** The words that turn its environment into the claiming call's (see `claim`). */
  #changes: string[] | undefined;
  #used = false;

  private constructor(child: ChildProcess, cgroup: CallCgroup, marker: string, outputs: CommandOutputs, environment: Record<string, string | undefined>) {
    this.#child = child;
    this.cgroup = cgroup;
    this.#marker = marker;
    this.#outputs = outputs;
    this.#environment = environment;
    this.ready = new Promise<boolean>((resolve) => {
      const signal = child.stdio[3] as Readable | null;
      signal?.on("error", () => {});
      signal?.once("data", () => {
        signal.destroy();
        resolve(true);
      });
      child.once("exit", () => resolve(false));
      child.once("error", () => resolve(false));
    });
    child.on("error", () => {});
    // A spare keeps no one waiting: this process may exit with it idle (its stdin then ends, and it leaves).
    child.unref();
    for (const stream of child.stdio.slice(0, 1).concat(child.stdio.slice(3)) as Array<{ unref?: () => void } | null>) stream?.unref?.();
  }

  /** Starts one; undefined when it cannot be (its cgroups, its pipes, bash). */
  static async prepare(bash: string, bounds: CgroupBounds, env: Record<string, string>, cwd: string): Promise<ReadyLauncher | undefined> {
    let cgroup: CallCgroup;
    try {
      cgroup = new CallCgroup(bounds);
    } catch {
      return undefined;
    }
    const outputs = await commandOutputs();
    const marker = randomUUID();
    const environment = launcherEnvironment({ ...process.env, ...env });
    const stdio: Array<"pipe" | number> = ["pipe", ...numbers(outputs.stdio), "pipe", ...Array.from({ length: INPUT_COUNT }, () => "pipe" as const)];
    let child: ChildProcess;
    try {
      // --norc: its stdin is a socket (Node's pipes are), and bash then reads /etc/bash.bashrc and
      // ~/.bashrc as if sshd had started it, outside the sandbox, changing what the call inherits.
      child = spawn(bash, ["--norc", "-c", SCRIPT, "toolhost-launcher", ...cgroup.folders(), "--"], {
        cwd,
        env: { ...environment, [CALL_MARKER]: marker },
        detached: true,
        stdio,
      });
    } catch {
      outputs.abandon();
      void cgroup.remove();
      return undefined;
    }
    // A spawn that fails (its folder removed meanwhile: ENOENT) says so in an `error` event, after
    // this returns: handled here, never an unhandled error of the process.
    child.on("error", () => undefined);
    if (child.pid === undefined) {
      outputs.abandon();
      void cgroup.remove();
      return undefined;
    }
    return new ReadyLauncher(child, cgroup, marker, outputs, environment);
  }

  /**
   * Claims it for a call with this environment, when it can run one now (or soon: it is still
   * entering its cgroups): alive, and the call's differences from its environment sendable.
   */
  claim(env: Record<string, string>): boolean {
    if (this.#used || this.#child.exitCode !== null || this.#child.signalCode !== null) return false;
    this.#changes = changes(this.#environment, env);
    return this.#changes !== undefined;
  }

  /** Runs `argv` (the call's program, reading `inputs` from descriptors 4 and 5) in it, in the environment it was claimed for; undefined when it is gone. */
  async start(argv: readonly string[], inputs: readonly Buffer[]): Promise<ShellProcess | undefined> {
    const words = this.#changes ?? [];
    this.#used = true;
    // From now on it runs a call: what it does is waited for (this process must not exit meanwhile).
    this.#child.ref();
    (this.#child.stdio[3] as { ref?: () => void } | null)?.ref?.();
    let timer: NodeJS.Timeout | undefined;
    const ready = await Promise.race([this.ready, new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), READY_WAIT_MS)))]);
    clearTimeout(timer);
    const stdin = this.#child.stdin as Writable | null;
    if (!ready || !stdin || this.#child.exitCode !== null) {
      this.discard();
      return undefined;
    }
    stdin.on("error", () => {});
    giveInputs(this.#child, LAUNCHER_INPUTS, inputs);
    stdin.end(`${[...words, "--", ...argv].join("\0")}\0`);
    return ShellProcess.adopt(this.#child, `${CALL_MARKER}=${this.#marker}`, this.#outputs);
  }

  /** Not used: it ends (its stdin closes), leaving and removing its cgroups itself. */
  discard(): void {
    if (!this.#used) this.#outputs.abandon();
    this.#used = true;
    this.#child.stdin?.end();
    for (const stream of this.#child.stdio.slice(3) as Array<Readable | null>) stream?.destroy();
  }
}

/**
 * The environment a launcher starts with: the call's, without what bash would act on at its own
 * start (`BASH_ENV`, a file it runs; `SHELLOPTS`, `BASHOPTS`, options it takes on). A call with
 * `BASH_ENV` gets it back with its program (it is for the call's shell); one with the others runs
 * without the spare (bash cannot export them).
 */
function launcherEnvironment(environment: Record<string, string | undefined>): Record<string, string | undefined> {
  const { BASH_ENV, SHELLOPTS, BASHOPTS, ...rest } = environment;
  return rest;
}

/**
 * Bash's own variables, which `export` or `unset` in the launcher cannot set as a call's
 * environment would (read-only, or dynamic, or read by bash itself): a call that changes one runs
 * without the spare.
 */
const BASH_OWN = /^(BASH.*|SHELLOPTS|EUID|UID|PPID|GROUPS|RANDOM|SRANDOM|SECONDS|LINENO|HISTCMD|FUNCNAME|DIRSTACK|EPOCHSECONDS|EPOCHREALTIME|OPTIND|OPTARG|OPTERR|IFS|PS4|SHLVL|PWD|OLDPWD|ENV|POSIXLY_CORRECT|_)$/;
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * The words that turn the launcher's environment into a call's (this process's with the call's
 * `env`): `NAME=value` for each added or changed, `-NAME` for each gone (a trace context differs
 * call by call); undefined when one cannot be sent so (not a name, or one of bash's own).
 */
function changes(made: Readonly<Record<string, string | undefined>>, env: Record<string, string>): string[] | undefined {
  const wanted: Record<string, string | undefined> = { ...process.env, ...env };
  const words: string[] = [];
  for (const [name, value] of Object.entries(wanted)) {
    // The launcher's own marker stands, as a fresh start's does over the configured environment.
    if (value === undefined || made[name] === value || name === CALL_MARKER) continue;
    if (!NAME.test(name) || (BASH_OWN.test(name) && name !== "BASH_ENV") || value.includes("\0")) return undefined;
    words.push(`${name}=${value}`);
  }
  for (const [name, value] of Object.entries(made)) {
    if (value === undefined || wanted[name] !== undefined || name === CALL_MARKER) continue;
    if (!NAME.test(name) || BASH_OWN.test(name)) return undefined;
    words.push(`-${name}`);
  }
  return words;
}

function numbers(stdio: CommandOutputs["stdio"]): Array<"pipe" | number> {
  return [stdio[0], stdio[1]];
}

/** What a tool's launchers are made with. */
export interface LauncherRecipe {
  bash: string;
  bounds: CgroupBounds;
  cwd: string;
}

/**
 * A spare is made this soon after a call ends: at once (the next turn), so that the next call,
 * even one that follows within milliseconds, finds one that has paid (or is paying) the cgroup
 * move's wait. Making it forks this process, as a call without a spare would: the fork moves, it
 * is not added.
 */
const REFILL_MS = 0;

/** A tool's one spare launcher: made as a call ends, taken by the next call. */
export class LauncherPool {
  #spare: Promise<ReadyLauncher | undefined> | undefined;
  #timer: NodeJS.Timeout | undefined;
  #disposed = false;

  /** The spare, when there is one that can run a call with this environment. */
  async take(env: Record<string, string>): Promise<ReadyLauncher | undefined> {
    clearTimeout(this.#timer);
    // Claimed before anything is awaited: calls side by side never share one.
    const pending = this.#spare;
    this.#spare = undefined;
    const spare = pending ? await pending : undefined;
    if (spare?.claim(env)) return spare;
    spare?.discard();
    return undefined;
  }

  /** A call ended: a spare is made for the next one (after `REFILL_MS`, unless one is made already). */
  refillLater(recipe: LauncherRecipe, env: Record<string, string>): void {
    if (this.#disposed) return;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      if (this.#disposed || this.#spare) return;
      this.#spare = ReadyLauncher.prepare(recipe.bash, recipe.bounds, env, recipe.cwd).catch(() => undefined);
    }, REFILL_MS);
    this.#timer.unref();
  }

  async dispose(): Promise<void> {
    this.#disposed = true;
    clearTimeout(this.#timer);
    const spare = this.#spare ? await this.#spare : undefined;
    this.#spare = undefined;
    spare?.discard();
  }
}
