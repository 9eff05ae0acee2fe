import type { Static, TSchema } from "@sinclair/typebox";
import type { ApprovalOutcome, ToolDecision } from "./approval.js";
import type { ImageContent, TextContent, Usage } from "./content.js";

export type { ImageContent, TextContent, Usage };

/**
 * What a tool returns. `content` goes to the model; `details` is for logs, UIs and hooks.
 *
 * - `isError: true` tells the model the call failed; the kernel keeps such a result as it is.
 * - `terminate: true` on every result of a batch ends the agent loop after that batch.
 * - `addedToolNames` makes those registered tools active from the next turn on.
 */
export interface AgentToolResult<TDetails = unknown> {
  content: (TextContent | ImageContent)[];
  details: TDetails;
  usage?: Usage;
  addedToolNames?: string[];
  terminate?: boolean;
  isError?: boolean;
}

/** A partial result a tool streams while it runs: the latest output, for UIs. */
export interface AgentToolUpdate<TDetails = unknown> {
  content: (TextContent | ImageContent)[];
  details?: TDetails;
}

/** Given to `execute`; each call becomes a `tool_execution_update` event and a `toolUpdate` hook call. */
export type AgentToolUpdateCallback<TDetails = unknown> = (partialResult: AgentToolUpdate<TDetails>) => void;

/**
 * A tool the model can call.
 *
 * `parameters` is a TypeBox schema: the kernel validates every call against it
 * (compiled once per tool) before `execute` runs, so `params` is always of its type.
 */
export interface AgentTool<TParameters extends TSchema = TSchema, TDetails = unknown, TContext = unknown> {
  /** The name the model calls it by; unique in a harness. */
  name: string;
  /** A human-readable name, for UIs. */
  label: string;
  /** What the tool does, for the model. */
  description: string;
  parameters: TParameters;
  /**
   * Called first with the raw arguments of each call, before any `prepareArguments` tap and
   * before validation: repair what models commonly get wrong (a number sent as a string, an old
   * field name). Throwing makes the call an error result.
   */
  prepareArguments?: (args: unknown) => unknown | Promise<unknown>;
  /**
   * What calls of this tool do to the world, as hints (MCP's tool annotations): hosts use them to
   * schedule, retry and describe the tool. A policy may be stricter because of them, never looser.
   */
  annotations?: ToolAnnotations;
  /**
   * Declares what a call will touch, from its validated arguments, before it is authorized: the
   * commands it runs, the paths it reads or writes, the network it reaches. Policies judge this
   * declaration, so a rule about `.env` holds for every tool that declares a read of it.
   * Throw a `ToolhostError` to refuse a call the tool would refuse anyway (a path outside its
   * roots): it ends as an error result with that code, the error's `details` and `refused: true`,
   * and no one is asked to approve it. (A tool that refuses while it runs, before it changed
   * anything, marks its result's details `refused: true` too: hosts count both as refusals.)
   */
  access?: (params: Static<TParameters>, env: AccessEnvironment) => ToolAccess | undefined | Promise<ToolAccess | undefined>;
  /**
   * `"sequential"` makes each call of this tool a barrier in its batch: it starts only when every
   * call before it has finished, runs alone, and the calls after it wait. Default `"parallel"`.
   */
  executionMode?: ExecutionMode;
  /**
   * Runs the call. `signal` aborts on batch abort or timeout: stop work, end processes, and throw.
   * Return `isError: true` for failures the model should see; throwing is turned into an error result too.
   * `context` is the harness's `toolContext`; `execution` the call's own channels to the pipeline
   * (its updates, how it was approved, asking about more than it declared, the trace context to
   * pass on). A tool called outside a harness may get no `execution`.
   */
  execute(
    toolCallId: string,
    params: Static<TParameters>,
    signal: AbortSignal,
    onUpdate: AgentToolUpdateCallback<TDetails>,
    context: TContext,
    execution?: ToolExecution,
  ): Promise<AgentToolResult<TDetails>>;
}

/** Where a call stands: `access` resolves relative paths against `cwd`; `workspace` is the project folder. */
export interface AccessEnvironment {
  cwd: string;
  workspace: string;
}

/** A shell command a call runs, and the folder it runs in. */
export interface CommandAccess {
  command: string;
  cwd: string;
}

/** A network destination a call reaches. */
export interface NetworkAccess {
  url: string;
  /** `GET`, `POST`, …, when known. */
  method?: string;
  /**
   * The address the connection to `url` goes to, when the caller resolved `url`'s host itself and
   * connects to that address and no other (a proxy): canonical (`canonicalAddress`: `127.0.0.1`,
   * `::1`, an IPv4-mapped address as IPv4). A policy judges it by the rules that name addresses (an
   * address, a range such as loopback or private); where none names it, it adds nothing to the
   * decision.
   *
   * In a call's own declaration (`AgentTool.access`) the URL is judged as well. In a running call's
   * follow-up (`ToolExecution.authorize`), an entry with `address` asks about the address only: the
   * tool has asked about `url` first (an entry without `address`), or let it through by its own
   * settings, and asks about each address before it connects there (a name the policy refuses is
   * then never looked up). A tool that connects to an address it asked about as a name alone lets
   * one allowed name reach any address its resolver is told.
   */
  address?: string;
}

/**
 * What one call will touch, as its tool declares it (`AgentTool.access`). Paths are absolute.
 * A tool that declares nothing is judged by its name and arguments alone.
 */
export interface ToolAccess {
  /** Shell commands it runs. */
  commands?: CommandAccess[];
  /** Files it reads. */
  reads?: string[];
  /** Trees it reads recursively: every path under each (grep, find, ls of a folder). */
  readTrees?: string[];
  /** Paths it creates, changes or deletes. */
  writes?: string[];
  /**
   * What some of `writes` will hold once the call ran, when the tool knows it before (a write's
   * content): for an approver to show the change as a diff against the file as it is. Policies do
   * not judge it (they judge `writes`); a tool that does not know the outcome leaves it out.
   */
  contents?: Array<{ path: string; content: string }>;
  /** Network destinations it reaches. */
  network?: NetworkAccess[];
  /**
   * Set only when the call will run confined by the operating system (a sandbox): the most it can
   * change, whatever its command does. Absent means unconfined. A policy may trust a confined call
   * more; it must give no trust to a confinement it cannot check.
   */
  confinement?: ToolConfinement;
}

/**
 * How a confined call reaches the network:
 * - `"off"`: not at all (a network namespace of its own with only a loopback of its own);
 * - `"proxy"`: only through a proxy the tool serves, which asks the authorize stage about each
 *   connection's destination (`ToolExecution.authorize` with a `network` access) before it opens it;
 * - `"host"`: as the host does (no confinement of the network).
 */
export type NetworkMode = "off" | "proxy" | "host";

/**
 * What of the host's filesystem a confined call sees:
 * - `"minimal"`: the system folders read-only, a private `/tmp`, `/dev` and `/proc`, the `writable`
 *   and `readable` paths and an empty home; nothing else of the host exists inside (no other home,
 *   no `/var`, no `/run`, no `/mnt`, no host socket);
 * - `"host"`: all of `/` read-only, with only what the tool covers hidden.
 */
export type ConfinementRoot = "minimal" | "host";

/** Bounds the operating system puts on one confined call, all its processes together where the mechanism allows. */
export interface ToolLimits {
  /** Processes (and threads) alive at once. */
  processes?: number;
  /** Address space (or memory, under a cgroup) of a process, in bytes. */
  memoryBytes?: number;
  /** Largest file a process may write, in bytes. */
  fileSizeBytes?: number;
  /** CPU time of a process, in seconds. */
  cpuSeconds?: number;
  /** Open files of a process. */
  openFiles?: number;
}

/**
 * What a confined call can do at most: enforced by the operating system, not predicted from its
 * text. A policy may trust a call by what this says, and by nothing more: a field it does not
 * understand, or a value it cannot check, gets no trust.
 */
export interface ToolConfinement {
  /** What of the host exists inside. Absent: `"host"` (all of `/` visible, read-only). */
  root?: ConfinementRoot;
  /** Absolute paths it can write to (besides a private temporary folder discarded after the call). */
  writable: string[];
  /**
   * Absolute paths of the host it can read and not write, system folders included (`/usr`, `/etc`,
   * …), beyond `writable`. Under the `"host"` root, `["/"]`. Absent: not declared (a policy must
   * then assume everything is readable).
   */
  readable?: string[];
  /**
   * How it reaches the network (see `NetworkMode`). The booleans of the first version of this
   * contract mean `"off"` (false) and `"host"` (true).
   */
  network: NetworkMode | boolean;
  /**
   * Under `"proxy"`: the destinations (`host:port`, `*.example.com:443`) the tool's own settings let
   * through without asking about their names (the addresses they resolve to are still asked
   * about); every other destination goes to the authorize stage. Absent: none.
   */
  destinations?: string[];
  /** The bounds on processes, memory, file size, CPU time and open files; absent: none declared. */
  limits?: ToolLimits;
  /**
   * True when the call cannot read what the `policy` service denies to read, wherever it lies: the
   * tool hides every path `PolicyService.deniedReads` lists (and `protectedPaths(root).denyRead`
   * under its folders), or refuses the call. Absent or false: reads are not bounded, and a policy
   * must not trust the call with what it cannot read (a script, an inline program).
   */
  hidesDeniedReads?: boolean;
}

/** Hints about a tool's effects, as MCP's tool annotations. Absent means unknown. */
export interface ToolAnnotations {
  /** It changes nothing: it only reads. */
  readOnly?: boolean;
  /** It may delete or overwrite what exists (meaningful when not `readOnly`). */
  destructive?: boolean;
  /** Calling it again with the same arguments has no further effect: it is safe to retry. */
  idempotent?: boolean;
  /** It reaches beyond the machine (the network, other services). */
  openWorld?: boolean;
}

/** Any tool, whatever its parameters, details and context. */
// biome-ignore lint: the widest tool type needs `any` for its params to accept every tool.
export type AnyAgentTool = AgentTool<any, any, any>;

export type ExecutionMode = "parallel" | "sequential";


/**
 * What the authorize stage said about more of a running call (`ToolExecution.authorize`): allowed
 * (perhaps after a person approved it), or refused with the code and reason a refused call gets
 * (`TOOLHOST_BLOCKED`, `TOOLHOST_NOT_APPROVED`, `TOOLHOST_POLICY_FAILED`, `TOOLHOST_ABORTED`).
 */
export type AuthorizeOutcome =
  | { allowed: true; approval?: ApprovalOutcome }
  | { allowed: false; code: string; reason: string; approval?: ApprovalOutcome };

/**
 * A running call's own channels to the pipeline, made by the execute stage: given to the tool as
 * the sixth argument of `execute`, and to an `executeToolCall` tap as `ctx.execution`, so that a
 * stand-in (a queue, a dry run, a cache) does what the kernel does without copying it.
 */
export interface ToolExecution {
  readonly toolCallId: string;
  /**
   * Streams an update of this call as the kernel does for a tool: redacted, then the `toolUpdate`
   * hook and a `tool_execution_update` event; nothing once the call is stopped. The same function
   * as `execute`'s fourth argument.
   */
  readonly onUpdate: AgentToolUpdateCallback;
  /** How the authorize stage let the call through when someone was asked; absent when no tap asked. */
  readonly approval?: ApprovalOutcome;
  /**
   * The `beforeToolCall` answer that let the call through, with the tap that gave it: an allow
   * (its `details`, e.g. the policy's deciding rules), or the ask that `approval` answered yes to.
   * Absent when no tap answered. A stand-in that hands the call on (a queue) records it.
   */
  readonly decision?: ToolDecision;
  /**
   * Asks the authorize stage about something this call will touch that it could not declare before
   * it ran (a destination its sandbox's proxy is asked to connect to): the same `beforeToolCall`
   * taps judge `access` as the call's access, an ask goes to the same `approve` taps, and a
   * `tool_execution_decision` event tells it. Never rejects; refused once the call is stopped.
   */
  authorize(access: ToolAccess, signal?: AbortSignal): Promise<AuthorizeOutcome>;
  /**
   * What this call hands on to the processes and servers it reaches, as string keys (W3C trace
   * context: `traceparent`, `tracestate`), filled by the `propagate` hook's taps; empty when no
   * one taps it. A tool puts them in a child's environment (upper-cased: `TRACEPARENT`) or in an
   * MCP request's `_meta`.
   */
  carrier(): Readonly<Record<string, string>>;
}
