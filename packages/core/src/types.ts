import type { Static, TSchema } from "@sinclair/typebox";

/** A block of text, for the model and for people. */
export interface TextContent {
  type: "text";
  text: string;
}

/** An image, base64-encoded, with its MIME type (`image/png`, …). */
export interface ImageContent {
  type: "image";
  data: string;
  mimeType: string;
}

/** What a call or a model turn cost. Tools that call models report it; it is never sent to the model. */
export interface Usage {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  totalTokens: number;
  cost: { input: number; output: number; cacheRead: number; cacheWrite: number; total: number };
}

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
   * roots): it ends as an error result with that code and no one is asked to approve it.
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
   * `context` is the harness's `toolContext`.
   */
  execute(
    toolCallId: string,
    params: Static<TParameters>,
    signal: AbortSignal,
    onUpdate: AgentToolUpdateCallback<TDetails>,
    context: TContext,
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
  /** Network destinations it reaches. */
  network?: NetworkAccess[];
  /**
   * Set only when the call will run confined by the operating system (a sandbox): the most it can
   * change, whatever its command does. Absent means unconfined. A policy may trust a confined call
   * more; it must give no trust to a confinement it cannot check.
   */
  confinement?: ToolConfinement;
}

/** What a confined call can do at most: enforced by the operating system, not predicted from its text. */
export interface ToolConfinement {
  /** Absolute folders it can write to (besides a private temporary folder discarded after the call). */
  writable: string[];
  /** Whether it can reach the network (other than a loopback of its own). */
  network: boolean;
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

/** A tool call as the model wrote it. */
export interface ToolCall {
  type?: "toolCall";
  id: string;
  name: string;
  arguments: unknown;
}

/** The result of one tool call, as a message for the model's context. */
export interface ToolResultMessage<TDetails = unknown> {
  role: "toolResult";
  toolCallId: string;
  toolName: string;
  content: (TextContent | ImageContent)[];
  details: TDetails;
  isError: boolean;
  usage?: Usage;
  addedToolNames?: string[];
  terminate?: boolean;
  timestamp: number;
}

/** The model's reasoning, when the provider streams it. */
export interface ThinkingContent {
  type: "thinking";
  thinking: string;
}

export interface UserMessage {
  role: "user";
  content: string | (TextContent | ImageContent)[];
  timestamp: number;
}

/** Why the model stopped: `toolUse` (it wants its calls run), `stop`, `length` (cut off), `error`, `aborted`. */
export type StopReason = "stop" | "length" | "toolUse" | "error" | "aborted";

export interface AssistantMessage {
  role: "assistant";
  content: (TextContent | ThinkingContent | ToolCall)[];
  stopReason: StopReason;
  usage?: Usage;
  model?: string;
  /** What went wrong, when `stopReason` is `error` or `aborted`. */
  errorMessage?: string;
  /** How many times the provider retried the request before this answer (for people; never sent to the model). */
  retries?: number;
  timestamp: number;
}

export type Message = UserMessage | AssistantMessage | ToolResultMessage;

/** A piece of an assistant message as the provider streams it. */
export type AssistantMessageEvent =
  | { type: "text_delta"; delta: string }
  | { type: "thinking_delta"; delta: string }
  | { type: "toolcall_delta"; index: number; id?: string; name?: string; argumentsDelta: string };

/**
 * What a `StreamFn` yields: deltas while the message is written, then exactly one `done` with the
 * whole message (its tool calls parsed, its stop reason and usage). A provider error or an abort is
 * a `done` whose message has `stopReason` `"error"` or `"aborted"` and an `errorMessage`: a stream
 * does not throw.
 */
export type AssistantStreamEvent = AssistantMessageEvent | { type: "done"; message: AssistantMessage };

/** The model a `StreamFn` is asked to use. */
export interface Model {
  /** The provider's model name, e.g. `gpt-4o-mini`. */
  id: string;
  /** Which provider serves it, for logs (`openai`, `ollama`, …). */
  provider?: string;
}

/** What the model sees of the conversation: the system prompt, the messages, the active tools. */
export interface AgentContext {
  systemPrompt?: string;
  messages: Message[];
  tools: AnyAgentTool[];
}

/** Streams one assistant message. */
export type StreamFn = (
  model: Model,
  context: AgentContext,
  options: { signal?: AbortSignal },
) => AsyncIterable<AssistantStreamEvent> | Promise<AsyncIterable<AssistantStreamEvent>>;

/**
 * What a provider plugin offers as the harness service `"model"`, and what `toolhost agent` reads
 * with `harness.getService<ModelService>("model")`: the model to ask and how to stream its answers.
 */
export interface ModelService {
  model: Model;
  streamFn: StreamFn;
  /**
   * Throws a `ToolhostError` when the model cannot be used as configured (no API key, say). The
   * host calls it when the model is first needed (`toolhost agent` refuses to start); a host that
   * needs no model may call it to warn, and goes on.
   */
  check?(): void;
}

/** A policy's answer to a call. */
export type PolicyDecision = "allow" | "ask" | "deny";

/** A call to decide without running it: a tool of this harness, or another host's with its access given. */
export interface PolicyRequest {
  tool: string;
  args: unknown;
  /** The folder relative paths are judged against. Default: the harness's `cwd`. */
  cwd?: string;
  /** What the call touches. Default: what the harness's tool of that name declares for `args`. */
  access?: ToolAccess;
}

/** The decision on one call, and every part of it with the rules that matched. */
export interface PolicyExplanation {
  decision: PolicyDecision;
  reason: string;
  tool: string;
  /** The ids of the rules that decided. */
  rules: string[];
  parts: Array<{
    kind: string;
    subject: string;
    decision: PolicyDecision;
    matched: Array<{ id: string; decision: string; reason?: string }>;
    note?: string;
  }>;
}

/** Paths a policy refuses under a root, for a sandbox to enforce (hide the first, keep the second read-only). */
export interface ProtectedPaths {
  denyRead: string[];
  denyWrite: string[];
}

/**
 * What a policy denies to read anywhere on the system, for a sandbox to hide
 * (`PolicyService.deniedReads`).
 */
export interface DeniedReads {
  /**
   * Existing paths, symlinks resolved (folders and files), that hold every existing path the
   * policy's deny-read patterns name outside the roots asked about (under a root,
   * `protectedPaths(root).denyRead` says). A sandbox covers each with an empty folder or file.
   */
  paths: string[];
  /**
   * The deny-read patterns no list of paths can cover (a name at any depth such as `.env`, a
   * wildcard in an absolute path's first folder, a rule that denies every read): what they name
   * may stay readable under a sandbox, so the policy does not trust a confined call with reads.
   */
  unbounded: string[];
}

/** Which calls `protectedPaths` is asked for. */
export interface ProtectedPathsOptions {
  /** True: for calls that run confined (rules with `sandboxed: false` do not apply to them, so what only they deny is not listed). */
  confined?: boolean;
}

/** What a policy plugin offers as the service `"policy"`. */
export interface PolicyService {
  /** Decides a call without running it and without asking anyone. Never throws: an error is a deny. */
  explain(request: PolicyRequest): Promise<PolicyExplanation>;
  /** The existing paths under `root` that the policy denies to read or to write. */
  protectedPaths(root: string, options?: ProtectedPathsOptions): Promise<ProtectedPaths>;
  /**
   * What the policy denies `tool` (and every tool) to read outside `roots`, as paths a sandbox can
   * cover; rejects when a search for them is too large (the call must then be refused). Optional:
   * a policy without it gets calls whose confinement does not say `hidesDeniedReads`.
   */
  deniedReads?(request: { roots: string[]; tool?: string }): Promise<DeniedReads>;
  /** The rules in force, in the order they are layered: id, layer, locked, source file, decision and matcher as written. */
  rules?(): Promise<Array<{ id: string; layer: string; locked: boolean; source?: string; decision: string; matcher: string; tool: string }>>;
}

/** What `toolhost worker` asks of the queue service: run the calls of one queue on this harness. */
export interface QueueWorkOptions {
  /** The queue to take calls from. */
  queue: string;
  /** How many calls run at once. */
  concurrency: number;
  /** How long a worker's claim on a call lasts without renewal; a crashed worker's calls are found after it. */
  lockDurationMs?: number;
  /** How often a health line is reported. */
  healthIntervalMs?: number;
  /** After `signal` aborts, how long running calls may finish before they are ended. */
  shutdownGraceMs?: number;
  /** Aborting it shuts the worker down gracefully: no new calls, running ones finish (see `shutdownGraceMs`). */
  signal: AbortSignal;
  /** Each health report (ready, periodic, stopping, stopped), for the worker's output. */
  onHealth(report: Record<string, unknown>): void;
}

/** What a queue plugin offers as the service `"queue"`: the worker side, used by `toolhost worker`. */
export interface QueueService {
  /** Takes calls from the queue and runs them through this harness until `signal` aborts and they finish. */
  work(options: QueueWorkOptions): Promise<void>;
}

/**
 * The services plugins offer one another and the host, by name (`harness.provideService`,
 * `harness.getService`). A new service is one line here; a third party adds its own by
 * declaration merging (`declare module "@toolhost/core" { interface Services { … } }`).
 */
export interface Services {
  model: ModelService;
  policy: PolicyService;
  queue: QueueService;
}

/**
 * Everything the harness and the agent tell their listeners, in order:
 * `agent_start`, then per turn `turn_start`, the assistant message's `message_*` events,
 * the tool events of its calls, each tool result's `message_start` / `message_end` in the calls'
 * order, `turn_end`; finally `agent_end`.
 */
export type AgentEvent =
  | { type: "agent_start" }
  | { type: "agent_end"; messages: Message[] }
  | { type: "turn_start" }
  | { type: "turn_end"; message: AssistantMessage; toolResults: ToolResultMessage[] }
  | { type: "message_start"; message: Message }
  | { type: "message_update"; message: AssistantMessage; assistantMessageEvent: AssistantMessageEvent }
  | { type: "message_end"; message: Message }
  | { type: "tool_execution_start"; toolCallId: string; toolName: string; args: unknown }
  | {
      type: "tool_execution_update";
      toolCallId: string;
      toolName: string;
      args: unknown;
      partialResult: AgentToolUpdate;
    }
  | {
      type: "tool_execution_end";
      toolCallId: string;
      toolName: string;
      result: AgentToolResult;
      isError: boolean;
      durationMs: number;
    };

/** What the stages after resolution know about a call. */
export interface ToolCallContext<TContext = unknown> {
  toolCall: ToolCall;
  tool: AnyAgentTool;
  /** The prepared and (from stage 4 on) validated arguments. */
  args: unknown;
  /** What the call will touch, as its tool declared it (from stage 4 on; absent if it declares nothing). */
  access?: ToolAccess;
  /** The harness's `toolContext`. */
  context: TContext;
}

/** One reason the arguments are invalid: where (a JSON pointer, `/path/0`) and what. */
export interface ValidationProblem {
  path: string;
  message: string;
}

/**
 * What a `beforeToolCall` tap answers. Return nothing to let the call go on.
 * `{ block: true, reason }` refuses it; `{ ask: true, reason }` sends it to the `approve` hook.
 * `blockedBy` names who decided; the kernel fills it with the tap's name when it is missing.
 */
export type BeforeToolCallResult =
  | { block: true; reason: string; blockedBy?: string; details?: Record<string, unknown> }
  | { ask: true; reason: string; askedBy?: string; details?: Record<string, unknown> };

/** The question put to the `approve` hook. */
export interface ApprovalRequest<TContext = unknown> extends ToolCallContext<TContext> {
  /** Why a human is asked. */
  reason: string;
  /** Who asked (the tap that answered `ask`). */
  askedBy: string;
  /** The `details` of the `ask` answer, e.g. the policy's rules that asked. */
  details?: Record<string, unknown>;
}

/** An answer of the `approve` hook. */
export interface ApprovalResult {
  approved: boolean;
  reason?: string;
}

/** Given to `afterToolCall`: the call and its result so far. */
export interface AfterToolCallContext<TContext = unknown> extends ToolCallContext<TContext> {
  result: AgentToolResult;
  isError: boolean;
}

/** Fields of the result an `afterToolCall` tap replaces; return nothing to keep the result. */
export type AfterToolCallResult = Partial<
  Pick<AgentToolResult, "content" | "details" | "isError" | "terminate" | "usage">
>;

export type BeforeToolCallFn<TContext = unknown> = (
  ctx: ToolCallContext<TContext>,
  signal: AbortSignal,
) => BeforeToolCallResult | undefined | Promise<BeforeToolCallResult | undefined>;

export type AfterToolCallFn<TContext = unknown> = (
  ctx: AfterToolCallContext<TContext>,
  signal: AbortSignal,
) => AfterToolCallResult | undefined | Promise<AfterToolCallResult | undefined>;

/** What `prepareArguments` and `validateArguments` taps get besides the arguments: the call, its tool, the harness's tool context. */
export interface PrepareContext<TContext = unknown> {
  toolCall: ToolCall;
  tool: AnyAgentTool;
  context: TContext;
}

export interface AgentHarnessOptions<TContext = unknown> {
  /** The working directory tools and policies resolve relative paths against. Default `process.cwd()`. */
  cwd?: string;
  /** The project folder (the config file's folder); `${workspace}` in policies. Default `cwd`. */
  workspace?: string;
  /** Tools registered at construction (owner: "harness options"). */
  tools?: AnyAgentTool[];
  /** Passed to every tool's `execute` as its fifth argument, and to every hook's context. */
  toolContext?: TContext;
  /** `"parallel"` (default): a batch's calls run concurrently; `"sequential"`: one at a time, in order. */
  toolExecution?: ExecutionMode;
  /** The most calls of one batch that run at once. */
  maxConcurrency?: number;
  /** A call that takes longer ends with a "timed out" error result and its signal aborted. */
  toolTimeoutMs?: number;
  /**
   * How long a stopped call (aborted, timed out) may take to return its output so far once its
   * signal is aborted; the caller gets that output marked as stopped. Default 1,000 ms.
   */
  abortGraceMs?: number;
  /** Tapped onto `hooks.beforeToolCall`. */
  beforeToolCall?: BeforeToolCallFn<TContext>;
  /** Tapped onto `hooks.afterToolCall`. */
  afterToolCall?: AfterToolCallFn<TContext>;
}

export interface ExecuteToolCallsOptions {
  /** Aborting it stops every unfinished call (see `abortGraceMs`) and aborts each tool's signal. */
  signal?: AbortSignal;
  /** Overrides the harness's `toolExecution` for this batch (the agent's setting). */
  toolExecution?: ExecutionMode;
  /** Overrides the harness's `toolTimeoutMs` for each call of this batch. */
  timeoutMs?: number;
  /** Overrides the harness's `abortGraceMs` for this batch. */
  abortGraceMs?: number;
}

export type AgentEventListener = (event: AgentEvent) => void;
