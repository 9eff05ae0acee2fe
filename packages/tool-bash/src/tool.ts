import { resolve } from "node:path";
import { type AgentTool, type Static, Type } from "@toolhost/core";
import { type BashToolOptions, resolveBashOptions, type BashToolConfig } from "./_options.js";
import { type BashToolDetails, RunningCommands, runCommand } from "./_run.js";

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
  /** Ends every command still running (their calls throw as aborted) and waits until they have settled. */
  dispose(): Promise<void>;
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
  return createBashToolHandle(resolveBashOptions(options), process.cwd(), false).tool;
}

/**
 * Options already validated; `cwd` resolved against `baseCwd`, and without it `baseCwd` itself
 * when `fixed` (the plugin: the harness's folder), else the process's folder at each call.
 */
export function createBashToolHandle(config: BashToolConfig, baseCwd: string, fixed: boolean): BashToolHandle {
  const running = new RunningCommands();
  const fixedCwd = config.cwd !== undefined ? resolve(baseCwd, config.cwd) : fixed ? baseCwd : undefined;
  const limit = config.timeout > 0 ? config.timeout : undefined;
  const perStream = `${Math.round(config.maxOutputBytes / 1024)} KiB`;
  const tool: AgentTool<typeof BashParameters, BashToolDetails> = {
    name: "bash",
    label: "Bash",
    description: [
      `Runs a shell command (${config.shell ?? "bash"} -c) in ${fixedCwd ?? "the working directory"}, with stdin closed.`,
      "Returns stdout, then stderr marked [stderr], then the exit code when it is not 0.",
      `Of each stream you see at most ${perStream}${config.maxStdoutLines ? ` and ${config.maxStdoutLines} stdout lines` : ""}: its head and its tail; when anything is left out, the whole output is saved to a file whose path is given.`,
      limit !== undefined ? `A command is ended after ${limit} s (less with "timeout").` : `Give "timeout" (seconds) for commands that may not end.`,
      "Processes it leaves in the background (cmd &, nohup, setsid) are ended when the call returns.",
    ].join(" "),
    parameters: BashParameters,
    executionMode: config.executionMode,
    execute(_toolCallId, params, signal, onUpdate) {
      const asked = params.timeout;
      const timeoutSeconds = limit === undefined ? asked : asked === undefined ? limit : Math.min(asked, limit);
      return runCommand(
        {
          command: params.command,
          cwd: fixedCwd ?? process.cwd(),
          timeoutSeconds,
          maxStdoutLines: config.maxStdoutLines,
          maxStderrLines: config.maxStderrLines,
          maxOutputBytes: config.maxOutputBytes,
          shell: config.shell,
          env: config.env ?? {},
          killGraceMs: config.killGraceMs,
        },
        signal,
        onUpdate,
        running,
      );
    },
  };
  return {
    tool,
    dispose: () => running.dispose(),
  };
}
