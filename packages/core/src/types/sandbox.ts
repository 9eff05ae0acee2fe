import type { ToolConfinement, ToolExecution } from "./tool.js";

/**
 * Where a shell command of another agent host would run: its working folder (absolute) as the
 * host gives it.
 */
export interface SandboxPlace {
  cwd: string;
  /**
   * Whether the caller lives on while the command runs (`toolhost hook serve`), so it can hold
   * what the sandbox keeps for a command (the proxy's network and its judge of destinations).
   * False for a process that exits once it has answered (a hook started per call): a sandbox that
   * needs a live holder then answers `unconfined`, saying so.
   */
  holds: boolean;
}

/**
 * How a shell command would be confined, asked before the call is judged: the confinement its
 * access declares (so the policy judges it as confined), or why it cannot be (the sandbox is
 * unavailable here or turned off, or needs what the caller cannot give): the call is then judged
 * unconfined, and the reason said to the user. `refused`: the sandbox is required and cannot be had,
 * so the call is refused with the reason, as the shell tool refuses its own.
 */
export type SandboxOffer = { confinement: ToolConfinement; summary: string } | { unconfined: string } | { refused: string };

/**
 * A command line that runs a command confined, for another host's shell to run as it would have
 * run the command: absolute paths only, the command carried byte for byte, its exit status, output
 * and working folder as without the sandbox.
 */
export interface WrappedCommand {
  /** The shell command line to hand the host in the command's place. */
  commandLine: string;
  /** One short line for the host's transcript: that it runs confined, and in what. */
  summary: string;
  /**
   * Lets go of what was kept for the command (its place behind the proxy) when the host will not
   * run it after all. What the command itself holds ends with it without this.
   */
  release(): void;
}

/**
 * The sandbox of the shell tool, for a host that does not run the command itself but hands the
 * command line back to another agent host (`toolhost hook claude-code|gemini`). Provided as the
 * `"sandbox"` service by the plugin that confines its own shell tool (tool-bash), with that
 * tool's options (root, writable and readable folders, network, limits).
 */
export interface SandboxService {
  /**
   * Called before the call is judged: what `command` run at `place` would be confined to, or why
   * it cannot be (say, a command too long to carry in a command line besides the sandbox's).
   */
  offer(command: string, place: SandboxPlace): Promise<SandboxOffer>;
  /**
   * Called once the call is allowed, from its execute stage: the command line that runs `command`
   * confined as `offer` said. What the sandbox asks while the command runs (a destination through
   * the proxy) goes to `execution.authorize`, so its decisions and audit lines are the call's.
   * Rejects with a `ToolhostError` when the command cannot be carried (a NUL byte) or the sandbox
   * cannot be set up for it; the host then refuses the call, saying why.
   */
  wrap(command: string, place: SandboxPlace, execution: ToolExecution): Promise<WrappedCommand>;
}
