import { setMaxListeners } from "node:events";
import { resolve } from "node:path";
import type { Static, TSchema } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import {
  AsyncSeriesBailHook,
  AsyncSeriesHook,
  AsyncSeriesWaterfallHook,
  SyncHook,
  SyncWaterfallHook,
} from "tapable";
import { ErrorCode, ToolhostError, describeError, messageOf } from "./errors.js";
import { PLUGIN_API_VERSION, type ToolhostPlugin } from "./plugin.js";
import { formatProblems, preview, problemsOf } from "./_validate.js";
import type {
  AfterToolCallFn,
  AfterToolCallResult,
  AgentEvent,
  AgentToolResult,
  AgentToolUpdate,
  AnyAgentTool,
  ApprovalRequest,
  ApprovalResult,
  BeforeToolCallFn,
  BeforeToolCallResult,
  ExecutionMode,
  Services,
  ToolAccess,
  ToolCall,
  ToolCallContext,
  ToolResultMessage,
  ValidationProblem,
} from "./types.js";

/**
 * Where the kernel's own taps stand among the others (tapable `stage`): the tool's own
 * `prepareArguments` and the schema check run before any plugin's tap, the registry answers after all.
 */
export const HarnessStage = Object.freeze({
  BUILT_IN_FIRST: -1000,
  DEFAULT: 0,
  BUILT_IN_LAST: 1000,
});

/** What stages 2 and 3 know: the call, its tool, the harness's tool context. */
export interface PrepareContext<TContext = unknown> {
  toolCall: ToolCall;
  tool: AnyAgentTool;
  context: TContext;
}

/** The pipeline's stages, each a tapable hook. See DESIGN.md, "The pipeline". */
export interface HarnessHooks<TContext = unknown> {
  /** 1. Find the tool of a call. Return a tool, or nothing to pass on; the registry answers last. */
  readonly resolveTool: AsyncSeriesBailHook<[ToolCall], AnyAgentTool | undefined>;
  /** 2. Transform the arguments; return the new arguments. The tool's own `prepareArguments` runs first. */
  readonly prepareArguments: AsyncSeriesWaterfallHook<[unknown, PrepareContext<TContext>]>;
  /** 3. Validate; return a list of problems to reject the call. The schema check runs first. */
  readonly validateArguments: AsyncSeriesBailHook<
    [unknown, PrepareContext<TContext>],
    ValidationProblem[] | undefined
  >;
  /** 4. Authorize: `{ block: true, reason }` refuses, `{ ask: true, reason }` asks `approve`, nothing lets it run. */
  readonly beforeToolCall: AsyncSeriesBailHook<
    [ToolCallContext<TContext>, AbortSignal],
    BeforeToolCallResult | undefined
  >;
  /** 4a. Ask a human: `{ approved, reason }`. When no tap answers, the answer is no. */
  readonly approve: AsyncSeriesBailHook<[ApprovalRequest<TContext>, AbortSignal], ApprovalResult | undefined>;
  /** 5. Execute: return a result to stand in for the tool (dry run, replay, cache), or nothing to run it. */
  readonly executeToolCall: AsyncSeriesBailHook<
    [ToolCallContext<TContext>, AbortSignal],
    AgentToolResult | undefined
  >;
  /** 5a. Each `onUpdate(partialResult)` of a running tool. */
  readonly toolUpdate: SyncHook<[AgentToolUpdate, ToolCallContext<TContext>]>;
  /**
   * 6. Finalize: a tap gets the result so far and returns the fields to replace (`content`,
   * `details`, `isError`, `terminate`, `usage`), or nothing. Throwing withholds the result.
   */
  readonly afterToolCall: AsyncSeriesWaterfallHook<
    [AgentToolResult, ToolCallContext<TContext>, AbortSignal],
    AfterToolCallResult | undefined
  >;
  /** 7. Every `AgentEvent`. */
  readonly event: SyncHook<[AgentEvent]>;
  /**
   * Every text that leaves the kernel (results, refusals, streamed updates, the arguments events
   * carry): return it with secrets masked. A tap that throws withholds the item it was given.
   */
  readonly redact: SyncWaterfallHook<[string]>;
  /** When the harness is disposed: end processes, close files. */
  readonly dispose: AsyncSeriesHook<[]>;
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
  /** Tapped onto `hooks.beforeToolCall`. */
  beforeToolCall?: BeforeToolCallFn<TContext>;
  /** Tapped onto `hooks.afterToolCall`. */
  afterToolCall?: AfterToolCallFn<TContext>;
}

export interface ExecuteToolCallsOptions {
  /** Aborting it ends every unfinished call with an "aborted" result, promptly, and aborts each tool's signal. */
  signal?: AbortSignal;
  /** Overrides the harness's `toolExecution` for this batch (the agent's setting). */
  toolExecution?: ExecutionMode;
  /** Overrides the harness's `toolTimeoutMs` for each call of this batch. */
  timeoutMs?: number;
}

export type AgentEventListener = (event: AgentEvent) => void;

const OPTIONS_OWNER = "harness options";
const TOOL_NAME = /^[A-Za-z0-9_.-]{1,64}$/;

type Tap = { name: string; type: "sync" | "async" | "promise"; fn: Function };

/**
 * The kernel: takes every tool call through one pipeline of tapable hooks.
 *
 * ```ts
 * const harness = new AgentHarness({ tools: [myTool] });
 * const [result] = await harness.executeToolCalls([{ id: "1", name: "my_tool", arguments: {} }]);
 * ```
 */
export class AgentHarness<TContext = unknown> {
  readonly hooks: HarnessHooks<TContext>;
  readonly cwd: string;
  readonly workspace: string;
  readonly toolContext: TContext;
  readonly toolExecution: ExecutionMode;
  readonly maxConcurrency: number;
  readonly toolTimeoutMs: number | undefined;

  readonly #tools = new Map<string, { tool: AnyAgentTool; owner: string }>();
  readonly #services = new Map<string, { value: unknown; owner: string }>();
  readonly #listeners = new Set<AgentEventListener>();
  readonly #warned = new WeakSet<AgentEventListener>();
  #owner = OPTIONS_OWNER;
  #disposed = false;

  constructor(options: AgentHarnessOptions<TContext> = {}) {
    this.cwd = resolve(options.cwd ?? process.cwd());
    this.workspace = resolve(this.cwd, options.workspace ?? this.cwd);
    this.toolContext = options.toolContext as TContext;
    this.toolExecution = options.toolExecution ?? "parallel";
    this.maxConcurrency = options.maxConcurrency ?? Number.POSITIVE_INFINITY;
    this.toolTimeoutMs = options.toolTimeoutMs;
    if (!(this.maxConcurrency >= 1)) {
      throw new ToolhostError(ErrorCode.INVALID_PLUGIN_OPTIONS, `maxConcurrency must be 1 or more, got ${options.maxConcurrency}.`);
    }

    this.hooks = Object.freeze({
      resolveTool: new AsyncSeriesBailHook<[ToolCall], AnyAgentTool | undefined>(["toolCall"], "resolveTool"),
      prepareArguments: new AsyncSeriesWaterfallHook<[unknown, PrepareContext<TContext>]>(
        ["args", "ctx"],
        "prepareArguments",
      ),
      validateArguments: new AsyncSeriesBailHook<[unknown, PrepareContext<TContext>], ValidationProblem[] | undefined>(
        ["args", "ctx"],
        "validateArguments",
      ),
      beforeToolCall: new AsyncSeriesBailHook<[ToolCallContext<TContext>, AbortSignal], BeforeToolCallResult | undefined>(
        ["ctx", "signal"],
        "beforeToolCall",
      ),
      approve: new AsyncSeriesBailHook<[ApprovalRequest<TContext>, AbortSignal], ApprovalResult | undefined>(
        ["request", "signal"],
        "approve",
      ),
      executeToolCall: new AsyncSeriesBailHook<[ToolCallContext<TContext>, AbortSignal], AgentToolResult | undefined>(
        ["ctx", "signal"],
        "executeToolCall",
      ),
      toolUpdate: new SyncHook<[AgentToolUpdate, ToolCallContext<TContext>]>(["update", "ctx"], "toolUpdate"),
      afterToolCall: new AsyncSeriesWaterfallHook<
        [AgentToolResult, ToolCallContext<TContext>, AbortSignal],
        AfterToolCallResult | undefined
      >(["result", "ctx", "signal"], "afterToolCall"),
      event: new SyncHook<[AgentEvent]>(["event"], "event"),
      redact: new SyncWaterfallHook<[string]>(["text"], "redact"),
      dispose: new AsyncSeriesHook<[]>([], "dispose"),
    });

    // Every tap is wrapped once, when it is registered: a throwing tap is named in the error, a
    // `beforeToolCall` answer names its tap, an `afterToolCall` answer is merged into the result.
    this.hooks.beforeToolCall.intercept({
      register: (tap) => wrapTap(tap, "beforeToolCall", (answer: BeforeToolCallResult | undefined, name) => {
        if (answer === undefined || answer === null) return undefined;
        if ("block" in answer && answer.block) return answer.blockedBy ? answer : { ...answer, blockedBy: name };
        if ("ask" in answer && answer.ask) return answer.askedBy ? answer : { ...answer, askedBy: name };
        return undefined;
      }) as typeof tap,
    });
    this.hooks.afterToolCall.intercept({
      register: (tap) =>
        wrapTap(tap, "afterToolCall", (override: AfterToolCallResult | undefined, _name, args) =>
          override ? { ...(args[0] as AgentToolResult), ...override } : (args[0] as AgentToolResult),
        ) as typeof tap,
    });
    for (const name of ["resolveTool", "prepareArguments", "validateArguments", "approve", "executeToolCall"] as const) {
      this.hooks[name].intercept({ register: (tap) => wrapTap(tap, name) as typeof tap });
    }

    this.hooks.resolveTool.tap({ name: "toolhost:registry", stage: HarnessStage.BUILT_IN_LAST }, (call) =>
      this.#tools.get(call.name)?.tool,
    );
    this.hooks.prepareArguments.tapPromise(
      { name: "toolhost:tool-prepare", stage: HarnessStage.BUILT_IN_FIRST },
      async (args, { tool }) => (tool.prepareArguments ? await tool.prepareArguments(args) : args),
    );
    this.hooks.validateArguments.tap({ name: "toolhost:schema", stage: HarnessStage.BUILT_IN_FIRST }, (args, { tool }) =>
      problemsOf(tool.parameters, args),
    );
    if (options.beforeToolCall) {
      const fn = options.beforeToolCall;
      this.hooks.beforeToolCall.tapPromise(OPTIONS_OWNER, async (ctx, signal) => (await fn(ctx, signal)) ?? undefined);
    }
    if (options.afterToolCall) {
      const fn = options.afterToolCall;
      this.hooks.afterToolCall.tapPromise(OPTIONS_OWNER, async (result, ctx, signal) =>
        (await fn({ ...ctx, result, isError: result.isError === true }, signal)) ?? undefined,
      );
    }
    for (const tool of options.tools ?? []) this.registerTool(tool);
  }

  /** Every registered tool, in registration order. */
  get tools(): AnyAgentTool[] {
    return [...this.#tools.values()].map((entry) => entry.tool);
  }

  /** The registered tool of that name. */
  getTool(name: string): AnyAgentTool | undefined {
    return this.#tools.get(name)?.tool;
  }

  /** Who registered a tool: a plugin's name, or "harness options". */
  toolOwner(name: string): string | undefined {
    return this.#tools.get(name)?.owner;
  }

  /** Adds a tool. Two tools of one name are an error that names both owners. */
  registerTool(tool: AnyAgentTool): void {
    const owner = this.#owner;
    if (tool === null || typeof tool !== "object" || typeof tool.name !== "string" || !TOOL_NAME.test(tool.name)) {
      throw new ToolhostError(
        ErrorCode.INVALID_TOOL,
        `${owner} registered a tool with an invalid name ${preview((tool as AnyAgentTool | null)?.name)}: use 1 to 64 letters, digits, "_", "-" or ".".`,
      );
    }
    const problem =
      typeof tool.execute !== "function"
        ? "has no execute function"
        : typeof tool.parameters !== "object" || tool.parameters === null
          ? "has no parameters schema (a TypeBox schema such as Type.Object({}))"
          : typeof tool.description !== "string"
            ? "has no description"
            : undefined;
    if (problem) {
      throw new ToolhostError(ErrorCode.INVALID_TOOL, `Tool "${tool.name}" of ${owner} ${problem}.`);
    }
    const existing = this.#tools.get(tool.name);
    if (existing) {
      throw new ToolhostError(
        ErrorCode.DUPLICATE_TOOL,
        `Tool "${tool.name}" is registered twice: by ${existing.owner} and by ${owner}. Remove one of them from the config, or rename the tool.`,
      );
    }
    this.#tools.set(tool.name, { tool, owner });
  }

  /** Offers a named service (e.g. "policy") to the host and to other code, without imports between packages. */
  provideService<K extends keyof Services>(name: K, service: Services[K]): void;
  provideService<T>(name: string, service: T): void;
  provideService(name: string, service: unknown): void {
    const existing = this.#services.get(name);
    if (existing) {
      throw new ToolhostError(
        ErrorCode.DUPLICATE_SERVICE,
        `Service "${name}" is provided twice: by ${existing.owner} and by ${this.#owner}.`,
      );
    }
    this.#services.set(name, { value: service, owner: this.#owner });
  }

  /** A service some plugin provided, or undefined. */
  getService<K extends keyof Services>(name: K): Services[K] | undefined;
  getService<T>(name: string): T | undefined;
  getService(name: string): unknown {
    return this.#services.get(name)?.value;
  }

  /**
   * Applies a plugin: checks its API version, fills and validates its options against its schema,
   * and calls `apply` with the tools it registers owned by the plugin's name.
   */
  async use<TOptions extends TSchema>(plugin: ToolhostPlugin<TOptions>, options?: unknown): Promise<Static<TOptions>> {
    if (plugin.apiVersion !== PLUGIN_API_VERSION) {
      throw new ToolhostError(
        ErrorCode.INCOMPATIBLE_PLUGIN,
        `Plugin "${plugin.name}" was built for plugin API ${plugin.apiVersion}, but this @toolhost/core speaks plugin API ${PLUGIN_API_VERSION}. Install a version of the plugin made for this core, or upgrade @toolhost/core.`,
      );
    }
    const value = resolvePluginOptions(plugin, options);
    const previous = this.#owner;
    this.#owner = `plugin "${plugin.name}"`;
    try {
      await plugin.apply(this as unknown as AgentHarness, value);
    } catch (error) {
      if (error instanceof ToolhostError) throw error;
      throw new ToolhostError(ErrorCode.PLUGIN_APPLY_FAILED, `Plugin "${plugin.name}" failed to start: ${messageOf(error)}`, {
        cause: error,
      });
    } finally {
      this.#owner = previous;
    }
    return value;
  }

  /** Listens to every event; returns the function that stops listening. */
  subscribe(listener: AgentEventListener): () => void {
    if (this.#listeners.size === 0 && !this.hooks.event.taps.some((tap) => tap.name === "toolhost:subscribers")) {
      this.hooks.event.tap("toolhost:subscribers", (event) => {
        for (const each of this.#listeners) {
          try {
            each(event);
          } catch (error) {
            // Once per listener: a broken UI must not flood the terminal, nor break a call.
            if (!this.#warned.has(each)) {
              this.#warned.add(each);
              process.emitWarning(`A toolhost event listener threw on "${event.type}": ${messageOf(error)}`);
            }
          }
        }
      });
    }
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
    };
  }

  /** Tells every listener. A throwing listener is reported as a warning and never breaks a call. */
  emit(event: AgentEvent): void {
    if (!this.hooks.event.isUsed()) return;
    try {
      this.hooks.event.call(event);
    } catch (error) {
      process.emitWarning(`A toolhost event tap threw on "${event.type}": ${messageOf(error)}`);
    }
  }

  /**
   * Runs the calls of one assistant message and returns one result message per call, in the calls'
   * order. Never rejects because of a call: every failure becomes an error result.
   */
  async executeToolCalls(calls: readonly ToolCall[], options: ExecuteToolCallsOptions = {}): Promise<ToolResultMessage[]> {
    if (this.#disposed) {
      throw new ToolhostError(ErrorCode.HARNESS_DISPOSED, "This AgentHarness was disposed; create a new one to run tool calls.");
    }
    const batch = new BatchAbort(options.signal);
    const mode = options.toolExecution ?? this.toolExecution;
    const timeoutMs = options.timeoutMs ?? this.toolTimeoutMs;
    const count = calls.length;
    const results = new Array<AgentToolResult>(count);
    const resolved = await Promise.all(calls.map((call) => this.#resolve(call)));

    const runOne = async (index: number): Promise<void> => {
      const call = calls[index] as ToolCall;
      const found = resolved[index] as Resolved;
      this.emit({ type: "tool_execution_start", toolCallId: call.id, toolName: call.name, args: call.arguments });
      const started = performance.now();
      const result = await this.#runGuarded(call, found, batch, timeoutMs);
      results[index] = result;
      this.emit({
        type: "tool_execution_end",
        toolCallId: call.id,
        toolName: call.name,
        result,
        isError: result.isError === true,
        durationMs: performance.now() - started,
      });
    };

    const isBarrier = (index: number): boolean =>
      mode === "sequential" || (resolved[index] as Resolved).tool?.executionMode === "sequential";

    try {
      let index = 0;
      while (index < count) {
        if (isBarrier(index)) {
          await runOne(index);
          index += 1;
          continue;
        }
        let end = index;
        while (end < count && !isBarrier(end)) end += 1;
        await runPool(index, end, this.maxConcurrency, runOne);
        index = end;
      }
    } finally {
      batch.detach();
    }

    const messages = new Array<ToolResultMessage>(count);
    for (let i = 0; i < count; i++) {
      const call = calls[i] as ToolCall;
      const message = toMessage(call, results[i] as AgentToolResult);
      messages[i] = message;
      this.emit({ type: "message_start", message });
      this.emit({ type: "message_end", message });
    }
    return messages;
  }

  /** Ends what plugins hold (processes, files) through the `dispose` hook; the harness runs no call after. */
  async dispose(): Promise<void> {
    if (this.#disposed) return;
    this.#disposed = true;
    await this.hooks.dispose.promise();
  }

  async #resolve(call: ToolCall): Promise<Resolved> {
    try {
      const tool = await this.hooks.resolveTool.promise(call);
      return tool ? { tool } : { error: this.#notFound(call) };
    } catch (error) {
      return {
        error: errorResult(
          ErrorCode.TOOL_RESOLVE_FAILED,
          `Could not find the tool of call "${call.name}": ${messageOf(error)}`,
        ),
      };
    }
  }

  #notFound(call: ToolCall): AgentToolResult {
    const names = [...this.#tools.keys()];
    const available = names.length > 0 ? `Available tools: ${names.join(", ")}.` : "No tools are registered.";
    return errorResult(ErrorCode.TOOL_NOT_FOUND, `Tool "${call.name}" not found. ${available}`, {
      toolName: call.name,
      availableTools: names,
    });
  }

  /** Runs one call, ending it early with an error result on abort or timeout. */
  async #runGuarded(
    call: ToolCall,
    found: Resolved,
    batch: BatchAbort,
    timeoutMs: number | undefined,
  ): Promise<AgentToolResult> {
    if (found.error) return found.error;
    if (batch.aborted) return abortedResult(call);
    if (timeoutMs === undefined) {
      const running = this.#runCall(call, found.tool, batch.signal);
      return batch.stopped ? Promise.race([running, batch.stopped.then(() => abortedResult(call))]) : running;
    }
    const controller = batch.own();
    let timer: NodeJS.Timeout | undefined;
    try {
      const stopped = new Promise<AgentToolResult>((resolve) => {
        timer = setTimeout(() => {
          controller.abort(new ToolhostError(ErrorCode.TIMED_OUT, `timed out after ${timeoutMs} ms`));
          resolve(errorResult(ErrorCode.TIMED_OUT, `Tool "${call.name}" timed out after ${timeoutMs} ms.`, { timeoutMs }));
        }, timeoutMs);
        batch.stopped?.then(() => resolve(abortedResult(call)));
      });
      return await Promise.race([this.#runCall(call, found.tool, controller.signal), stopped]);
    } finally {
      clearTimeout(timer);
      batch.release(controller);
    }
  }

  /** Stages 2 to 6 of one call. Never rejects. */
  async #runCall(call: ToolCall, tool: AnyAgentTool, signal: AbortSignal): Promise<AgentToolResult> {
    const hooks = this.hooks;
    const context = this.toolContext;
    const prepare: PrepareContext<TContext> = { toolCall: call, tool, context };

    let args: unknown;
    try {
      args = await hooks.prepareArguments.promise(call.arguments, prepare);
    } catch (error) {
      return errorResult(
        ErrorCode.PREPARE_FAILED,
        `Could not prepare the arguments of "${call.name}": ${messageOf(error)}\nArguments received: ${preview(call.arguments)}`,
      );
    }

    let problems: ValidationProblem[] | undefined;
    try {
      problems = await hooks.validateArguments.promise(args, prepare);
    } catch (error) {
      return errorResult(ErrorCode.VALIDATION_FAILED, `Could not validate the arguments of "${call.name}": ${messageOf(error)}`);
    }
    if (problems && problems.length > 0) {
      return errorResult(
        ErrorCode.INVALID_ARGUMENTS,
        `Invalid arguments for tool "${call.name}":\n${formatProblems(problems)}\nArguments received: ${preview(args)}`,
        { problems, arguments: args },
      );
    }

    let access: ToolAccess | undefined;
    if (tool.access) {
      try {
        access = (await tool.access(args, { cwd: this.cwd, workspace: this.workspace })) ?? undefined;
      } catch (error) {
        const code = error instanceof ToolhostError ? error.code : ErrorCode.ACCESS_FAILED;
        return errorResult(code, error instanceof ToolhostError ? error.message : `Could not tell what "${call.name}" would touch, so the call was refused: ${messageOf(error)}`);
      }
    }

    const ctx: ToolCallContext<TContext> = { toolCall: call, tool, args, context, ...(access && { access }) };
    let decision: BeforeToolCallResult | undefined;
    try {
      decision = await hooks.beforeToolCall.promise(ctx, signal);
    } catch (error) {
      return errorResult(
        ErrorCode.POLICY_FAILED,
        `Blocked: the check before "${call.name}" failed, so the call was refused. ${messageOf(error)}`,
        { blockedBy: (error as TapError).tapName },
      );
    }
    if (decision !== undefined) {
      if ("block" in decision) {
        return errorResult(ErrorCode.BLOCKED, `Blocked by ${decision.blockedBy}: ${decision.reason}`, {
          ...decision.details,
          blockedBy: decision.blockedBy,
          reason: decision.reason,
        });
      }
      const refusal = await this.#approve(ctx, decision, signal);
      if (refusal) return refusal;
    }

    let result: AgentToolResult | undefined;
    try {
      result = await hooks.executeToolCall.promise(ctx, signal);
      if (result === undefined) {
        const onUpdate = (partialResult: AgentToolUpdate): void => {
          if (signal.aborted) return;
          hooks.toolUpdate.call(partialResult, ctx);
          this.emit({ type: "tool_execution_update", toolCallId: call.id, toolName: call.name, args, partialResult });
        };
        result = await tool.execute(call.id, args, signal, onUpdate, context);
      }
    } catch (error) {
      if (signal.aborted) return abortedResult(call);
      return errorResult(ErrorCode.TOOL_FAILED, `Tool "${call.name}" failed: ${describeError(error)}`, {
        error: messageOf(error),
      });
    }
    if (result === null || typeof result !== "object" || !Array.isArray(result.content)) {
      return errorResult(
        ErrorCode.INVALID_RESULT,
        `Tool "${call.name}" returned ${preview(result, 200)}, not a result with a content array; this is a bug in the tool.`,
      );
    }

    if (hooks.afterToolCall.taps.length === 0) return result;
    try {
      // The register interceptor merges each tap's fields into the result, so the hook yields a whole result.
      return (await hooks.afterToolCall.promise(result, ctx, signal)) as unknown as AgentToolResult;
    } catch (error) {
      return errorResult(
        ErrorCode.AFTER_HOOK_FAILED,
        `The result of "${call.name}" was withheld because a check after the call failed: ${messageOf(error)}`,
        { failedTap: (error as TapError).tapName },
      );
    }
  }

  /** Stage 4a. Returns the refusal, or undefined when approved. */
  async #approve(
    ctx: ToolCallContext<TContext>,
    decision: Extract<BeforeToolCallResult, { ask: true }>,
    signal: AbortSignal,
  ): Promise<AgentToolResult | undefined> {
    const askedBy = decision.askedBy ?? "beforeToolCall";
    let answer: ApprovalResult | undefined;
    try {
      answer = await this.hooks.approve.promise({ ...ctx, reason: decision.reason, askedBy }, signal);
    } catch (error) {
      answer = { approved: false, reason: `asking for approval failed: ${messageOf(error)}` };
    }
    if (answer?.approved === true) return undefined;
    const why =
      answer === undefined
        ? "no one could approve it (no approver is attached: run in a terminal, or tap the approve hook)"
        : answer.reason ?? "it was not approved";
    return errorResult(ErrorCode.NOT_APPROVED, `Not run: ${ctx.toolCall.name} needs approval (${decision.reason}), and ${why}.`, {
      ...decision.details,
      blockedBy: askedBy,
      reason: decision.reason,
      approval: answer ?? null,
    });
  }
}

/**
 * One batch's abort, with one listener on the caller's signal however large the batch.
 *
 * Calls without a timeout share the batch's signal: creating an AbortSignal costs Node 20 more
 * than the rest of the pipeline (measured in bench/kernel). A call with a timeout gets a signal of
 * its own, so that its timeout aborts it alone; the batch keeps those and aborts them itself.
 */
class BatchAbort {
  /** Settles when the batch is aborted; undefined when nothing can abort it. */
  readonly stopped: Promise<void> | undefined;
  readonly #shared = new AbortController();
  readonly #own = new Set<AbortController>();
  readonly #detach: (() => void) | undefined;

  constructor(signal: AbortSignal | undefined) {
    // Every running call of a large batch may listen to the shared signal.
    setMaxListeners(0, this.#shared.signal);
    if (signal === undefined) return;
    let resolveStopped!: () => void;
    this.stopped = new Promise((resolve) => {
      resolveStopped = resolve;
    });
    const abort = () => {
      this.#shared.abort(signal.reason);
      for (const controller of this.#own) controller.abort(signal.reason);
      resolveStopped();
    };
    if (signal.aborted) {
      abort();
      return;
    }
    signal.addEventListener("abort", abort, { once: true });
    this.#detach = () => signal.removeEventListener("abort", abort);
  }

  get aborted(): boolean {
    return this.#shared.signal.aborted;
  }

  /** The batch's signal, shared by the calls without a timeout. */
  get signal(): AbortSignal {
    return this.#shared.signal;
  }

  /** A controller of one call's own, aborted with the batch. */
  own(): AbortController {
    const controller = new AbortController();
    if (this.aborted) controller.abort(this.#shared.signal.reason);
    else if (this.stopped) this.#own.add(controller);
    return controller;
  }

  release(controller: AbortController): void {
    this.#own.delete(controller);
  }

  detach(): void {
    this.#detach?.();
  }
}

type Resolved = { tool: AnyAgentTool; error?: undefined } | { tool?: undefined; error: AgentToolResult };

/** An error thrown by a tap, naming it. */
class TapError extends ToolhostError {
  constructor(
    readonly tapName: string,
    hookName: string,
    cause: unknown,
  ) {
    super(
      cause instanceof ToolhostError ? cause.code : "TOOLHOST_TAP_FAILED",
      `${hookName} tap "${tapName}" threw: ${messageOf(cause)}`,
      { cause },
    );
  }
}

/** Wraps a tap so that its throw names it and its answer can be mapped (with its name and arguments). */
function wrapTap(
  tap: Tap,
  hookName: string,
  map?: (answer: never, tapName: string, args: unknown[]) => unknown,
): Tap {
  const { fn, name } = tap;
  const fail = (error: unknown): never => {
    throw error instanceof TapError ? error : new TapError(name, hookName, error);
  };
  if (tap.type === "promise") {
    return {
      ...tap,
      fn: (...args: unknown[]) => {
        let pending: Promise<unknown>;
        try {
          pending = Promise.resolve(fn(...args));
        } catch (error) {
          return Promise.reject(error instanceof TapError ? error : new TapError(name, hookName, error));
        }
        return pending.then((answer) => (map ? map(answer as never, name, args) : answer), fail);
      },
    };
  }
  if (tap.type === "async") {
    return {
      ...tap,
      fn: (...args: unknown[]) => {
        const callback = args.pop() as (error: unknown, answer?: unknown) => void;
        try {
          fn(...args, (error: unknown, answer: unknown) => {
            if (error) callback(error instanceof TapError ? error : new TapError(name, hookName, error));
            else callback(null, map ? map(answer as never, name, args) : answer);
          });
        } catch (error) {
          callback(new TapError(name, hookName, error));
        }
      },
    };
  }
  return {
    ...tap,
    fn: (...args: unknown[]) => {
      let answer: unknown;
      try {
        answer = fn(...args);
      } catch (error) {
        fail(error);
      }
      return map ? map(answer as never, name, args) : answer;
    },
  };
}

/** Runs `run(i)` for i in [start, end) with at most `limit` at once. */
async function runPool(
  start: number,
  end: number,
  limit: number,
  run: (index: number) => Promise<void>,
): Promise<void> {
  const size = end - start;
  if (size <= limit) {
    const pending = new Array<Promise<void>>(size);
    for (let i = 0; i < size; i++) pending[i] = run(start + i);
    await Promise.all(pending);
    return;
  }
  let next = start;
  const worker = async (): Promise<void> => {
    while (next < end) await run(next++);
  };
  await Promise.all(Array.from({ length: limit }, worker));
}

function errorResult(code: string, text: string, details: Record<string, unknown> = {}): AgentToolResult {
  return { content: [{ type: "text", text }], details: { code, ...details }, isError: true };
}

function abortedResult(call: ToolCall): AgentToolResult {
  return errorResult(ErrorCode.ABORTED, `Tool "${call.name}" aborted.`);
}

function toMessage(call: ToolCall, result: AgentToolResult): ToolResultMessage {
  const message: ToolResultMessage = {
    role: "toolResult",
    toolCallId: call.id,
    toolName: call.name,
    content: result.content,
    details: result.details,
    isError: result.isError === true,
    timestamp: Date.now(),
  };
  if (result.usage) message.usage = result.usage;
  if (result.addedToolNames) message.addedToolNames = result.addedToolNames;
  if (result.terminate) message.terminate = true;
  return message;
}

/**
 * Fills a plugin's option defaults and validates them against its schema, as `harness.use` does.
 * Takes only the plugin's name and schema, so a tool factory can check its options alike.
 */
export function resolvePluginOptions<TOptions extends TSchema>(
  plugin: Pick<ToolhostPlugin<TOptions>, "name" | "options">,
  options: unknown,
): Static<TOptions> {
  if (!plugin.options) {
    if (options !== undefined && !(typeof options === "object" && options !== null && Object.keys(options).length === 0)) {
      throw new ToolhostError(
        ErrorCode.INVALID_PLUGIN_OPTIONS,
        `Plugin "${plugin.name}" takes no options, but was given ${preview(options, 200)}. Remove them.`,
      );
    }
    return {} as Static<TOptions>;
  }
  const value = Value.Default(plugin.options, copyOptions(options ?? {}));
  const problems = problemsOf(plugin.options, value);
  if (problems) {
    throw new ToolhostError(
      ErrorCode.INVALID_PLUGIN_OPTIONS,
      `Invalid options for plugin "${plugin.name}":\n${formatProblems(problems)}\nFix them in the plugin's options; its schema lists what it takes.`,
    );
  }
  return value as Static<TOptions>;
}

/**
 * A copy of plain objects and arrays, so that filling defaults never changes the caller's config;
 * anything else (a function of a code config, e.g. tool-fs's imageProcessor) is kept as it is,
 * where structuredClone would throw.
 */
function copyOptions(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(copyOptions);
  if (value !== null && typeof value === "object" && Object.getPrototypeOf(value) === Object.prototype) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, copyOptions(item)]));
  }
  return value;
}
