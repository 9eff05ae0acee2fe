import { randomBytes } from "node:crypto";
import { appendFileSync } from "node:fs";
import {
  type AuthorizeOutcome,
  type SandboxOffer,
  type SandboxPlace,
  type SandboxService,
  type ToolAccess,
  type ToolExecution,
  ToolhostError,
  type WrappedCommand,
  isInside,
  messageOf,
} from "@toolhost/core";
import { ConnectionJudge } from "../proxy/_judge.js";
import { proxyNetwork } from "../proxy/_network.js";
import { emptyPlaceholders, existingReal } from "../sandbox/_hide.js";
import { type SandboxPlan, SandboxSetupError, planSandbox } from "../sandbox/_plan.js";
import { confinementOf } from "../sandbox/_settings.js";
import type { SandboxUse } from "../sandbox/_use.js";
import { FIRST_INPUT, commandLine } from "./_command-line.js";
import { Leases } from "./_leases.js";
import { failureNotes } from "./_notes.js";
import { lastingFile } from "./_runtime.js";

type BwrapUse = Extract<SandboxUse, { kind: "bwrap" }>;

/**
 * The most of a command another host's command line can carry: the host hands its shell one
 * argument of at most 128 KiB (Linux's MAX_ARG_STRLEN), which holds the sandbox's own words and,
 * in Claude Code's case, the command quoted once more.
 */
const MAX_COMMAND_BYTES = 48 * 1024;

/** What the service needs of the tool: its sandbox as decided at load, and the shell it runs. */
export interface HostShellTool {
  /** The `hostShells` option: false when it is "off". */
  on: boolean;
  sandbox(): Promise<SandboxUse>;
  /** The shell the sandbox runs the command with, found as the tool finds it, at `cwd`. */
  shell(cwd: string): string | undefined;
}

/**
 * The `"sandbox"` service: the bash tool's sandbox for another host's shell commands
 * (`toolhost hook`), with the tool's options. The command line it makes runs bwrap itself (no
 * process of this host stays in between); under network "proxy" this process holds the proxy's
 * network and the judge of the command's destinations until the command has ended (`Leases`).
 */
export function hostShellService(tool: HostShellTool): SandboxService & { dispose(): void } {
  const leases = new Leases();
  return {
    async offer(command, place) {
      return offerFor(await tool.sandbox(), tool, command, place);
    },
    async wrap(command, place, execution) {
      const use = await tool.sandbox();
      const offered = offerFor(use, tool, command, place);
      if (!("confinement" in offered) || use.kind !== "bwrap") {
        throw new ToolhostError("TOOLHOST_BASH_SANDBOX_UNAVAILABLE", "unconfined" in offered ? offered.unconfined : "refused" in offered ? offered.refused : "the sandbox is not in use");
      }
      return wrapped(use, tool.shell(place.cwd) as string, command, place, execution, leases, offered.summary);
    },
    dispose: () => leases.dispose(),
  };
}

function offerFor(use: SandboxUse, tool: HostShellTool, command: string, place: SandboxPlace): SandboxOffer {
  if (!tool.on) return { unconfined: 'the bash tool\'s "hostShells" option is "off"' };
  if (use.kind === "refuse") return { refused: `the bash tool's sandbox is required ("sandbox": "required") and cannot be made here: ${use.reason}` };
  if (use.kind === "off") return { unconfined: use.details.mode === "off" ? 'the bash tool\'s "sandbox" option is "off"' : `no sandbox here: ${use.details.reason ?? "bubblewrap is not usable"}` };
  if (Buffer.byteLength(command) > MAX_COMMAND_BYTES) {
    return { unconfined: `the command is over ${MAX_COMMAND_BYTES / 1024} KiB, more than a command line can carry into the sandbox beside its own words` };
  }
  if (use.settings.network === "proxy" && !place.holds) {
    return {
      unconfined:
        'the bash tool\'s network is "proxy", which needs a toolhost process that lives while the command runs (it holds the proxy); a hook started per call exits first. Run `toolhost hook serve` and install the hook with --server, or set "network" to "off" or "host"',
    };
  }
  // The folder a call runs in is shown to it; one the model chose outside what the sandbox shows
  // (Gemini CLI's dir_path: the home folder) would bring that folder in, so it is not offered.
  const { workspace, writable, readable } = use.settings;
  const cwd = existingReal(place.cwd) ?? place.cwd;
  if (![workspace, ...writable, ...readable].some((folder) => isInside(cwd, existingReal(folder) ?? folder))) {
    return { unconfined: `its folder ${place.cwd} is outside what the sandbox shows (the workspace, the bash tool's "writable" and "readable" folders)` };
  }
  const shell = tool.shell(place.cwd);
  if (shell === undefined) return { unconfined: "no shell (bash or sh) was found to run the command in the sandbox" };
  const confinement = confinementOf(use, { cwd: place.cwd, programs: programsOf(use, shell), visible: [] });
  if (!confinement) return { unconfined: "the sandbox is not in use" };
  return { confinement, summary: summaryOf(use) };
}

function programsOf(use: BwrapUse, shell: string): string[] {
  const prlimit = use.settings.limits?.prlimit?.path;
  return prlimit ? [shell, prlimit] : [shell];
}

async function wrapped(use: BwrapUse, shell: string, command: string, place: SandboxPlace, execution: ToolExecution, leases: Leases, summary: string): Promise<WrappedCommand> {
  if (command.includes("\0")) throw new ToolhostError("TOOLHOST_BASH_NUL_IN_COMMAND", "the command holds a NUL byte, which no shell can be given: refused");
  let plan: SandboxPlan;
  try {
    plan = await planSandbox(use, { cwd: place.cwd, programs: programsOf(use, shell), visible: [] });
  } catch (error) {
    const why = error instanceof SandboxSetupError ? error.message : messageOf(error);
    throw new ToolhostError("TOOLHOST_BASH_SANDBOX_FAILED", `the command's sandbox could not be made: ${why}`);
  }
  const { bwrap, limits, nsenter, seccomp } = use.settings;
  const lasting = (content: Buffer, kind: string): string => {
    try {
      return lastingFile(content, kind, plan.writable);
    } catch (error) {
      throw new ToolhostError("TOOLHOST_BASH_SANDBOX_FAILED", `the command's sandbox could not be made: ${messageOf(error)}`);
    }
  };
  const args = lastingCovers(plan.args, lasting(Buffer.alloc(0), "empty"));
  const limited = limits?.prlimit ? [limits.prlimit.path, ...limits.prlimit.args, "--"] : [];
  const inside = [...limited, shell, "-c", command];
  const notes = failureNotes(plan, command, use.settings.home);
  // bwrap's arguments from a file (`--args`): the sandbox's /proc/1/cmdline shows only `bwrap --args 3 -- <shell>`.
  const sandboxed = (words: readonly string[]): { program: string[]; inputs: string[] } => ({
    program: [bwrap, "--args", String(FIRST_INPUT), "--", ...inside],
    inputs: [lasting(Buffer.from(`${[...words, "--seccomp", String(FIRST_INPUT + 1)].join("\0")}\0`), "args"), lasting(seccomp, "seccomp")],
  });
  if (use.settings.network !== "proxy") {
    const line = commandLine({ ...sandboxed(args), cgroup: limits?.cgroup, lease: undefined, notesFile: undefined, failureNotes: notes });
    return { commandLine: line, summary, release: () => undefined };
  }
  if (!nsenter) throw new ToolhostError("TOOLHOST_BASH_PROXY_UNAVAILABLE", 'network "proxy" needs nsenter (util-linux), which was not found');
  const network = await proxyNetwork(bwrap).catch((error: unknown) => {
    throw new ToolhostError("TOOLHOST_BASH_PROXY_UNAVAILABLE", `the proxy's network could not be made: ${messageOf(error)}`);
  });
  const name = randomBytes(12).toString("hex");
  let notesFile = "";
  const judge = new ConnectionJudge(noting(execution, () => notesFile), new AbortController().signal, use.settings.destinations);
  const entry = network.enter(judge);
  const lease = leases.take(name, () => entry.release());
  notesFile = lease.notes;
  const variables = Object.entries(entry.env).flatMap(([variable, value]) => ["--setenv", variable, value]);
  const { program, inputs } = sandboxed([...args, ...variables]);
  const line = commandLine({ program: [nsenter, ...network.nsenterArgs(), "--", ...program], inputs, cgroup: limits?.cgroup, lease: lease.file, notesFile: lease.notes, failureNotes: notes });
  return { commandLine: line, summary, release: () => leases.end(name) };
}

/**
 * The plan's covers, made of nothing this process removes when it exits (the command runs after
 * it may have): the empty placeholder file becomes the runtime folder's empty file (reads as
 * empty, takes no write), the empty placeholder folder a read-only tmpfs of the sandbox's own.
 */
function lastingCovers(args: readonly string[], emptyFile: string): string[] {
  const empty = emptyPlaceholders();
  const lasting: string[] = [];
  for (let at = 0; at < args.length; at++) {
    const [flag, source, target] = [args[at], args[at + 1], args[at + 2]];
    if (flag === "--ro-bind" && target !== undefined && (source === empty.file || source === empty.dir)) {
      lasting.push(...(source === empty.file ? ["--ro-bind", emptyFile, target] : ["--tmpfs", target, "--remount-ro", target]));
      at += 2;
    } else lasting.push(args[at] as string);
  }
  return lasting;
}

/**
 * The call's execution, with each destination the policy refuses written to the notes file as it
 * is refused: the command line adds them to stderr when the command fails, so that a refusal of
 * the proxy reads as such in the host's transcript.
 */
function noting(execution: ToolExecution, notesFile: () => string): ToolExecution {
  return {
    toolCallId: execution.toolCallId,
    onUpdate: execution.onUpdate,
    carrier: () => execution.carrier(),
    async authorize(access: ToolAccess, signal?: AbortSignal): Promise<AuthorizeOutcome> {
      const outcome = await execution.authorize(access, signal);
      const url = access.network?.[0]?.url ?? "a destination";
      if (!outcome.allowed) {
        try {
          appendFileSync(notesFile(), `[sandbox: toolhost's proxy refused ${url}: ${outcome.reason.split("\n")[0]}]\n`);
        } catch {
          // The command has ended and its lease with it.
        }
      }
      return outcome;
    },
  };
}

/** One short line: that the command runs in the sandbox, and what it reaches there. */
export function summaryOf(use: BwrapUse): string {
  const { writable, readable, network, root } = use.settings;
  const sees = root === "minimal" ? `sees only the system folders${readable.length > 0 ? `, ${readable.join(", ")}` : ""} and those (an empty home folder)` : "the rest of the system read-only";
  const net = network === "off" ? "no network" : network === "proxy" ? "network only through toolhost's proxy, each destination judged by the policy" : "the network open";
  return `runs in toolhost's sandbox: writes only in ${writable.join(", ") || "no folder"} and a private /tmp, ${sees}, ${net}`;
}
