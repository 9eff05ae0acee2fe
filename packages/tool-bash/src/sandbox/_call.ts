import { type ToolExecution, messageOf } from "@toolhost/core";
import type { BashSandboxDetails } from "../details.js";
import { CallCgroup } from "../limits/_cgroup.js";
import { limitEnding } from "../limits/_exceeded.js";
import { ConnectionJudge } from "../proxy/_judge.js";
import { type ProxyEntry, type ProxyNetwork, proxyNetwork } from "../proxy/_network.js";
import type { LimitEnding } from "../limits/_exceeded.js";
import { type ExitStatus, type Launch, ShellProcess } from "../_shell-process.js";
import type { HardLinks } from "./_hard-links.js";
import { LAUNCHER_INPUTS, type LauncherRecipe, type ReadyLauncher } from "./_launcher.js";
import { type QuarantinedFile, quarantineCreated } from "./_control-files.js";
import { quarantineNotes, sandboxNotes } from "./_notes.js";
import { type CallPlace, type SandboxPlan, SandboxSetupError, planSandbox } from "./_plan.js";
import type { SandboxUse } from "./_use.js";

type BwrapUse = Extract<SandboxUse, { kind: "bwrap" }>;

/** A call behind the proxy: the network, its place there, and the judge of its connections. */
interface ProxyPlace {
  network: ProxyNetwork;
  entry: ProxyEntry;
  judge: ConnectionJudge;
}

/** Network "proxy" cannot be had for this call: the message says why and what to do. */
export class ProxyUnavailableError extends Error {}

/**
 * One call's sandbox: its mounts (the plan), its cgroups (the limits), its place behind the proxy
 * (network "proxy"): made before the call starts, it starts the call's process, is asked how it
 * went, and is released when the call has ended.
 */
export class SandboxedCall {
  readonly plan: SandboxPlan;
  readonly #use: BwrapUse;
  #cgroup: CallCgroup | undefined;
  #launcher: ReadyLauncher | undefined;
  readonly #proxy: ProxyPlace | undefined;
  #quarantined: QuarantinedFile[] = [];

  private constructor(use: BwrapUse, plan: SandboxPlan, cgroup: { cgroup?: CallCgroup; launcher?: ReadyLauncher }, proxy: ProxyPlace | undefined) {
    this.#use = use;
    this.plan = plan;
    this.#cgroup = cgroup.cgroup ?? cgroup.launcher?.cgroup;
    this.#launcher = cgroup.launcher;
    this.#proxy = proxy;
  }

  /** Plans the mounts, takes the cgroups, enters the proxy; throws `SandboxSetupError` or `ProxyUnavailableError` to refuse the call. */
  static async make(use: BwrapUse, place: CallPlace & { env: Record<string, string> }, execution: ToolExecution | undefined, signal: AbortSignal | undefined): Promise<SandboxedCall> {
    const { settings } = use;
    if (settings.network === "proxy") checkProxy(settings.nsenter, execution);
    const plan = await planSandbox(use, place);
    const cgroup = await cgroupsFor(use, place);
    let proxy: ProxyPlace | undefined;
    if (settings.network === "proxy" && execution) {
      try {
        const judge = new ConnectionJudge(execution, signal ?? new AbortController().signal, settings.destinations);
        const network = await proxyNetwork(settings.bwrap);
        proxy = { network, entry: network.enter(judge), judge };
      } catch (error) {
        cgroup.launcher?.discard();
        await cgroup.cgroup?.remove();
        throw new ProxyUnavailableError(`Refused: the proxy's network (network "proxy") could not be made: ${messageOf(error)}. Ask the user to set the bash tool's "network" to "off" or "host".`);
      }
    }
    return new SandboxedCall(use, plan, cgroup, proxy);
  }

  /**
   * Starts the call's process: bwrap (under nsenter for the proxy's network) running `shellArgs`
   * (under prlimit, for the limits), in the call's cgroups: through the spare launcher already
   * inside them, or entering them itself (`/bin/sh` first) when there is none.
   */
  async start(shellArgs: readonly string[], cwd: string, env: Record<string, string>): Promise<ShellProcess | { failure: string; refused: boolean }> {
    const launcher = this.#launcher;
    this.#launcher = undefined;
    if (launcher) {
      const program = this.#program(shellArgs, LAUNCHER_INPUTS);
      const started = await launcher.start(program.argv, program.inputs);
      if (started) return started;
      // It went away before the call: a fresh cgroup, entered by the call's own first process.
      try {
        this.#cgroup = (await cgroupsFor(this.#use, { env }, false)).cgroup;
      } catch (error) {
        this.#cgroup = undefined;
        return { failure: `the sandbox's cgroup could not be made: ${messageOf(error)}`, refused: true };
      }
    }
    const program = this.#program(shellArgs, 3);
    const [file, ...args] = [...(this.#cgroup?.launcher() ?? []), ...program.argv] as [string, ...string[]];
    const launch: Launch = { file, args, cwd, env, inputs: program.inputs };
    return ShellProcess.start(launch);
  }

  /**
   * The program and its arguments, and what it reads from descriptors `firstFd` and the next:
   * bwrap's arguments (NUL-separated, `--args`) and its seccomp filter, so that the sandbox's
   * `/proc/1/cmdline` (bwrap's) shows no host path, only `bwrap --args N -- <the shell>`.
   */
  #program(shellArgs: readonly string[], firstFd: number): { argv: string[]; inputs: Buffer[] } {
    const { bwrap, limits, nsenter, seccomp } = this.#use.settings;
    const limited = limits?.prlimit ? [limits.prlimit.path, ...limits.prlimit.args, "--", ...shellArgs] : [...shellArgs];
    const proxy = this.#proxy;
    const variables = proxy ? Object.entries(proxy.entry.env).flatMap(([name, value]) => ["--setenv", name, value]) : [];
    const words = [...this.plan.args, ...variables, "--seccomp", String(firstFd + 1)];
    const sandboxed = [bwrap, "--args", String(firstFd), "--", ...limited];
    const argv = proxy && nsenter ? [nsenter, ...proxy.network.nsenterArgs(), "--", ...sandboxed] : sandboxed;
    return { argv, inputs: [Buffer.from(`${words.join("\0")}\0`), seccomp] };
  }

  /** The limit a cgroup counted as reached (a fork refused, a process killed for memory), if any. */
  exceeded(): "processes" | "memoryBytes" | undefined {
    return this.#cgroup?.exceeded();
  }

  /** Tells `onExceeded` as soon as a cgroup counts a limit reached (checked every `intervalMs`); returns the function that stops watching. */
  watch(onExceeded: () => void, intervalMs = 200): () => void {
    const timer = setInterval(() => {
      if (this.#cgroup?.exceeded()) onExceeded();
    }, intervalMs);
    timer.unref();
    return () => clearInterval(timer);
  }

  /** Which limit ended the call, if one did: counted by a cgroup, or seen in how the command failed. */
  limitEnding(exit: ExitStatus, shown: string): LimitEnding | undefined {
    const limits = this.#use.settings.limits;
    return limits ? limitEnding(limits, this.exceeded(), exit, shown) : undefined;
  }

  /**
   * Once the call's processes are gone: moves aside each control file the call created where
   * none was (those that existed were read-only), so that no program outside reads it.
   */
  settleControlFiles(): void {
    this.#quarantined = quarantineCreated(this.plan.controlFiles);
  }

  /** What the call's details say of its sandbox. */
  details(base: BashSandboxDetails): BashSandboxDetails {
    const { plan } = this;
    const judge = this.#proxy?.judge;
    return {
      ...base,
      writable: plan.writable,
      ...(plan.root === "minimal" && { readable: plan.readable }),
      readOnly: plan.readOnly,
      hidden: plan.hidden,
      ...(plan.unbounded.length > 0 && { unbounded: plan.unbounded }),
      ...(plan.hardLinks && { hardLinks: hardLinksDetails(plan.hardLinks) }),
      ...(judge && { connections: [...judge.records] }),
      ...(this.#quarantined.length > 0 && { quarantined: this.#quarantined.map((file) => ({ ...file })) }),
    };
  }

  /** What the sandbox stopped, in words a model can act on. */
  notes(command: string, output: string, failed: boolean): string {
    return sandboxNotes(this.plan, command, output, failed, this.#proxy?.judge.records ?? []) + quarantineNotes(this.#quarantined);
  }

  /** Ends the call's connections and removes its cgroups (once its processes are gone); a spare launcher is made for the next call. */
  async release(env: Record<string, string>): Promise<void> {
    this.#proxy?.entry.release();
    this.#launcher?.discard();
    const recipe = recipeOf(this.#use);
    if (recipe) this.#use.launchers.refillLater(recipe, env);
    await this.#cgroup?.remove();
  }
}

function hardLinksDetails(found: HardLinks): NonNullable<BashSandboxDetails["hardLinks"]> {
  const { files, examples, complete, reach, hidden, storeCopies, declaredOnly } = found;
  return { files, examples, complete, reach, hidden, storeCopies, ...(declaredOnly !== undefined && { declaredOnly }) };
}

/** The call's cgroups, when a cgroup enforces a limit: the spare launcher's (already inside them), else fresh ones. */
async function cgroupsFor(use: BwrapUse, place: { env: Record<string, string> }, spare = true): Promise<{ cgroup?: CallCgroup; launcher?: ReadyLauncher }> {
  const { limits, bash } = use.settings;
  const bounds = limits?.cgroup;
  if (!bounds) return {};
  if (spare && bash) {
    const launcher = await use.launchers.take(place.env);
    if (launcher) return { launcher };
  }
  try {
    return { cgroup: new CallCgroup(bounds) };
  } catch (error) {
    throw new SandboxSetupError(`its cgroup (for the limits) could not be made: ${messageOf(error)}`);
  }
}

/** What the tool's spare launchers are made with, when a cgroup enforces a limit and bash is here. */
function recipeOf(use: BwrapUse): LauncherRecipe | undefined {
  const { limits, bash, workspace } = use.settings;
  const bounds = limits?.cgroup;
  if (!bounds || !bash) return undefined;
  return { bash, bounds, cwd: workspace };
}

function checkProxy(nsenter: string | undefined, execution: ToolExecution | undefined): void {
  if (!execution) {
    throw new ProxyUnavailableError(
      'Refused: the bash tool\'s network is "proxy", which asks the harness\'s policy about each destination, and this call came without a harness (the tool was called directly, so it has no way to ask). Run it through an AgentHarness, or set "network" to "off" or "host".',
    );
  }
  if (!nsenter) {
    throw new ProxyUnavailableError('Refused: network "proxy" needs nsenter (util-linux) on PATH to run the sandbox in the proxy\'s network, and it was not found. Install util-linux, or set the bash tool\'s "network" to "off" or "host".');
  }
}
