import { resolve } from "node:path";
import { type AgentTool, type PolicyService, type SandboxService, type Static, type ToolAccess, Type } from "@toolhost/core";
import { FullOutputFiles, fullOutputBound } from "./_full-output.js";
import { type BashToolOptions, resolveBashOptions, type BashToolConfig } from "./options.js";
import { findShell } from "./run/_preflight.js";
import { type RunSettings, runCommand } from "./run/_run.js";
import { RunningCommands } from "./run/_running.js";
import type { BashToolDetails } from "./details.js";
import { type SandboxUse, describeSandbox, resolveSandbox } from "./sandbox/_use.js";
import { confinementOf } from "./sandbox/_settings.js";
import { hostShellService } from "./host-shell/_service.js";

/** The arguments of a `bash` call. */
export const BashParameters = Type.Object({
  command: Type.String({ description: "The command line to run, as with bash -c." }),
  timeout: Type.Optional(
    Type.Number({
      exclusiveMinimum: 0,
      description: "Seconds before the command and everything it started are ended; capped by the tool's own limit.",
    }),
  ),
});

export type BashParameters = Static<typeof BashParameters>;

/** The bash tool with the means to end what it still runs. */
export interface BashToolHandle {
  tool: AgentTool<typeof BashParameters, BashToolDetails>;
  /** Decides (once) whether calls run sandboxed: probes bubblewrap unless the option is "off". */
  sandbox(): Promise<SandboxUse>;
  /** The folder commands run in when fixed (a `cwd` option, or the harness's), else undefined. */
  readonly cwd: string | undefined;
  /** The same sandbox for another host's shell commands (the `"sandbox"` service). */
  readonly hostShell: SandboxService;
  /**
   * Ends every command still running (their calls throw as aborted), waits until they have
   * settled, and deletes every full-output file.
   */
  dispose(): Promise<void>;
}

/** Where the tool stands: its folders, and the harness's policy when there is one. */
export interface BashToolPlace {
  /** What a relative `cwd` option is resolved against. */
  baseCwd: string;
  /** Without a `cwd` option: true runs in `baseCwd`, false in the process's folder at each call. */
  fixed: boolean;
  /** The project folder (`${workspace}` in `writable`); default the tool's folder. */
  workspace?: string;
  policy?: () => PolicyService | undefined;
  /** The redactor for full-output files, asked at each call (the harness's `redact` hook when tapped). */
  redact?: () => ((text: string) => string) | undefined;
}

/**
 * Makes the `bash` tool: each call runs `<shell> -c <command>` in its own process group, with
 * stdin closed, output kept to its head and tail in bounded memory, and its whole process tree
 * ended on abort, on timeout, and when the shell exits.
 *
 * ```ts
 * const bash = createBashTool({ cwd: "/home/user/project", timeout: 30, maxStdoutLines: 1000 });
 * ```
 */
export function createBashTool(options?: BashToolOptions): AgentTool<typeof BashParameters, BashToolDetails> {
  return createBashToolHandle(resolveBashOptions(options), { baseCwd: process.cwd(), fixed: false }).tool;
}

/** What the model reads about the tool, before the sentence on how commands run (added once the sandbox is decided). */
function describeTool(config: BashToolConfig, fixedCwd: string | undefined, limit: number | undefined): string {
  const perStream = `${Math.round(config.maxOutputBytes / 1024)} KiB`;
  return [
    `Runs a shell command (${config.shell ?? "bash"} -c) in ${fixedCwd ?? "the working directory"}, with stdin closed.`,
    "Returns stdout, then stderr marked [stderr], then the exit code when it is not 0.",
    `Of each stream you see at most ${perStream}${config.maxStdoutLines ? ` and ${config.maxStdoutLines} stdout lines` : ""}: its head and its tail${config.keepFullOutput ? "; when anything is left out, the whole output is saved to a file whose path is given" : ""}.`,
    limit !== undefined ? `A command is ended after ${limit} s (less with "timeout").` : `Give "timeout" (seconds) for commands that may not end.`,
    "Processes it leaves in the background (cmd &, nohup, setsid) are ended when the call returns.",
  ].join(" ");
}

/** Options already validated; `cwd` resolved against the place's `baseCwd`. */
export function createBashToolHandle(config: BashToolConfig, place: BashToolPlace): BashToolHandle {
  const running = new RunningCommands();
  const { baseCwd, fixed } = place;
  const fixedCwd = config.cwd !== undefined ? resolve(baseCwd, config.cwd) : fixed ? baseCwd : undefined;
  const workspace = place.workspace ?? fixedCwd ?? baseCwd;
  const limit = config.timeout > 0 ? config.timeout : undefined;
  const fullOutput = config.keepFullOutput ? new FullOutputFiles(config.fullOutputLifetime) : undefined;
  const pathVariable = config.env?.PATH ?? process.env.PATH;
  let decided: Promise<SandboxUse> | undefined;
  const sandbox = (): Promise<SandboxUse> => {
    decided ??= resolveSandbox(config, workspace, place.policy ?? (() => undefined)).then((use) => {
      tool.description = `${tool.description} ${describeSandbox(use)}`;
      return use;
    });
    return decided;
  };
  const cwdOf = (): string => fixedCwd ?? process.cwd();
  const tool: AgentTool<typeof BashParameters, BashToolDetails> = {
    name: "bash",
    label: "Bash",
    description: describeTool(config, fixedCwd, limit),
    parameters: BashParameters,
    executionMode: config.executionMode,
    annotations: { readOnly: false, destructive: true, openWorld: true },
    // Sandboxed, the call also declares what the sandbox lets it reach: a policy may trust it more.
    access: async (params) => accessOf(params.command, cwdOf(), await sandbox(), { config, pathVariable, fullOutput }),
    async execute(toolCallId, params, signal, onUpdate, _context, execution) {
      const asked = params.timeout;
      const timeoutSeconds = limit === undefined ? asked : asked === undefined ? limit : Math.min(asked, limit);
      const use = await sandbox();
      const settings: RunSettings = {
        ...callOptions(config),
        callId: toolCallId,
        command: params.command,
        cwd: cwdOf(),
        timeoutSeconds,
        sandbox: use,
        fullOutput,
        fullOutputBytes: fullOutputBound(config.fullOutputBytes, fileSizeOf(config, use)),
        visible: () => fullOutput?.tryFolder(),
        redact: place.redact?.(),
      };
      return runCommand(settings, signal, onUpdate, running, execution);
    },
  };
  const hostShell = hostShellService({ on: config.hostShells !== "off", sandbox, shell: (cwd) => findShell(config.shell, pathVariable, cwd) });
  const dispose = async (): Promise<void> => {
    hostShell.dispose();
    await running.dispose();
    await fullOutput?.dispose();
    const use = decided ? await decided : undefined;
    if (use?.kind === "bwrap") await use.launchers.dispose();
  };
  return { tool, sandbox, cwd: fixedCwd, hostShell, dispose };
}

/**
 * What a call declares: its command and folder, and, sandboxed, its confinement (what it can
 * reach at most: its folders, the programs run by path, the tool's full-output folder).
 */
function accessOf(command: string, cwd: string, use: SandboxUse, tool: { config: BashToolConfig; pathVariable: string | undefined; fullOutput: FullOutputFiles | undefined }): ToolAccess {
  const shell = findShell(tool.config.shell, tool.pathVariable, cwd);
  const prlimit = use.kind === "bwrap" ? use.settings.limits?.prlimit?.path : undefined;
  const folder = use.kind === "bwrap" ? tool.fullOutput?.tryFolder() : undefined;
  const programs = [shell, prlimit].filter((path): path is string => path !== undefined);
  const confinement = confinementOf(use, { cwd, programs, visible: folder !== undefined ? [folder] : [] });
  return { commands: [{ command, cwd }], ...(confinement ? { confinement } : {}) };
}

/** The options every call of the tool runs with. */
/** The call's `fileSizeBytes`: as the sandbox enforces it, else as configured. */
function fileSizeOf(config: BashToolConfig, use: SandboxUse): number | undefined {
  return (use.kind === "bwrap" ? use.settings.limits?.values.fileSizeBytes : undefined) ?? config.limits?.fileSizeBytes;
}

function callOptions(config: BashToolConfig): Pick<RunSettings, "maxStdoutLines" | "maxStderrLines" | "maxOutputBytes" | "shell" | "env" | "killGraceMs" | "commandPrefix"> {
  return {
    maxStdoutLines: config.maxStdoutLines,
    maxStderrLines: config.maxStderrLines,
    maxOutputBytes: config.maxOutputBytes,
    shell: config.shell,
    env: config.env ?? {},
    killGraceMs: config.killGraceMs,
    commandPrefix: config.commandPrefix,
  };
}
