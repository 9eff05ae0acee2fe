import { type ToolExecution, messageOf } from "@toolhost/core";
import type { BashSandboxDetails } from "../details.js";
import { CallCgroup } from "../limits/_cgroup.js";
import { ConnectionJudge } from "../proxy/_judge.js";
import { type ProxyEntry, proxyNetwork } from "../proxy/_network.js";
import { limitEnding } from "../limits/_exceeded.js";
import type { Launch } from "../run/_process.js";
import type { ExitStatus, LimitEnding } from "../run/_result.js";
import { sandboxNotes } from "./_notes.js";
import { type CallPlace, type SandboxPlan, SandboxSetupError, planSandbox } from "./_plan.js";
import type { SandboxUse } from "./_use.js";

type BwrapUse = Extract<SandboxUse, { kind: "bwrap" }>;

/** A call behind the proxy: its place in the proxy network, and the judge of its connections. */
interface ProxyPlace {
  entry: ProxyEntry;
  judge: ConnectionJudge;
}

/** Network "proxy" cannot be had for this call: the message says why and what to do. */
export class ProxyUnavailableError extends Error {}

/**
 * One call's sandbox: its mounts (the plan), its cgroups (the limits), its place behind the proxy
 * (network "proxy"): made before the call starts, asked how it went, released when it has ended.
 */
export class SandboxedCall {
  readonly plan: SandboxPlan;
  readonly #use: BwrapUse;
  readonly #cgroup: CallCgroup | undefined;
  readonly #proxy: { entry: ProxyEntry; judge: ConnectionJudge } | undefined;

  private constructor(use: BwrapUse, plan: SandboxPlan, cgroup: CallCgroup | undefined, proxy: ProxyPlace | undefined) {
    this.#use = use;
    this.plan = plan;
    this.#cgroup = cgroup;
    this.#proxy = proxy;
  }

  /** Plans the mounts, makes the cgroups, enters the proxy; throws `SandboxSetupError` or `ProxyUnavailableError` to refuse the call. */
  static async make(use: BwrapUse, place: CallPlace, execution: ToolExecution | undefined, signal: AbortSignal | undefined): Promise<SandboxedCall> {
    const { settings } = use;
    if (settings.network === "proxy") checkProxy(settings.nsenter, execution);
    const plan = await planSandbox(use, place);
    let cgroup: CallCgroup | undefined;
    const bounds = settings.limits?.cgroup;
    if (bounds) {
      try {
        cgroup = new CallCgroup(bounds);
      } catch (error) {
        throw new SandboxSetupError(`its cgroup (for the limits) could not be made: ${messageOf(error)}`);
      }
    }
    let proxy: ProxyPlace | undefined;
    if (settings.network === "proxy" && execution) {
      try {
        const judge = new ConnectionJudge(execution, signal ?? new AbortController().signal, settings.destinations);
        proxy = { entry: (await proxyNetwork(settings.bwrap)).enter(judge), judge };
      } catch (error) {
        await cgroup?.remove();
        throw new ProxyUnavailableError(`Refused: the proxy's network (network "proxy") could not be made: ${messageOf(error)}. Ask the user to set the bash tool's "network" to "off" or "host".`);
      }
    }
    return new SandboxedCall(use, plan, cgroup, proxy);
  }

  /** bwrap (after entering its cgroups, under nsenter for the proxy's network) running `shellArgs` (under prlimit, for the limits). */
  launch(shellArgs: readonly string[], cwd: string, env: Record<string, string>): Launch {
    const { bwrap, limits } = this.#use.settings;
    const limited = limits?.prlimit ? [limits.prlimit.path, ...limits.prlimit.args, "--", ...shellArgs] : [...shellArgs];
    const sandboxed = [...this.plan.args, "--", ...limited];
    const proxy = this.#proxy?.entry;
    const nsenter = this.#use.settings.nsenter;
    const program = proxy && nsenter ? [nsenter, ...proxy.nsenterArgs, "--", bwrap, ...sandboxed] : [bwrap, ...sandboxed];
    // The cgroups are entered first, by the call's own first process, before anything forks.
    const [file, ...args] = [...(this.#cgroup?.launcher() ?? []), ...program] as [string, ...string[]];
    return { file, args, cwd, env: proxy ? { ...env, ...proxy.env } : env, ...(proxy && { fds: proxy.fds }) };
  }

  /** The limit a cgroup counted as reached (a fork refused, a process killed for memory), if any. */
  exceeded(): "processes" | "memoryBytes" | undefined {
    return this.#cgroup?.exceeded();
  }

  /** Tells `onExceeded` as soon as a cgroup counts a limit reached (checked every `intervalMs`); returns the function that stops watching. */
  watch(onExceeded: () => void, intervalMs = 200): () => void {
    const cgroup = this.#cgroup;
    if (!cgroup) return () => {};
    const timer = setInterval(() => {
      if (cgroup.exceeded()) onExceeded();
    }, intervalMs);
    timer.unref();
    return () => clearInterval(timer);
  }

  /** Which limit ended the call, if one did: counted by a cgroup, or seen in how the command failed. */
  limitEnding(exit: ExitStatus, shown: string): LimitEnding | undefined {
    const limits = this.#use.settings.limits;
    return limits ? limitEnding(limits, this.exceeded(), exit, shown) : undefined;
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
      ...(plan.hardLinks && { hardLinks: { files: plan.hardLinks.files, examples: plan.hardLinks.examples, complete: plan.hardLinks.complete, reach: plan.hardLinks.reach } }),
      ...(judge && { connections: [...judge.records] }),
    };
  }

  /** What the sandbox stopped, in words a model can act on. */
  notes(command: string, output: string, failed: boolean): string {
    return sandboxNotes(this.plan, command, output, failed, this.#proxy?.judge.records ?? []);
  }

  /** Ends the call's connections and removes its cgroups (once its processes are gone). */
  async release(): Promise<void> {
    this.#proxy?.entry.release();
    await this.#cgroup?.remove();
  }
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
