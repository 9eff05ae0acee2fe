import { resolve } from "node:path";
import type { Static, TSchema } from "@sinclair/typebox";
import { ErrorCode, ToolhostError, messageOf } from "./errors.js";
import { Listeners } from "./_listeners.js";
import { resolvePluginOptions } from "./plugin-options.js";
import { PLUGIN_API_VERSION } from "./plugin-version.js";
import { preview } from "./preview.js";
import { runBatch } from "./_schedule.js";
import { prepareCall } from "./_pipeline.js";
import { createHarnessHooks, type HarnessHooks } from "./hooks/harness-hooks.js";
import { nameThrowingTaps } from "./_taps.js";
import { callProblems } from "./validate.js";
import type {
  PluginContext,
  PreparedToolCall,
  AgentEventListener,
  AgentHarnessOptions,
  AgentEvent,
  AnyAgentTool,
  ExecuteToolCallsOptions,
  ExecutionMode,
  Services,
  ToolCall,
  ToolResultMessage,
} from "./types/index.js";

export type { AgentEventListener, AgentHarnessOptions, ExecuteToolCallsOptions } from "./types/index.js";

/**
 * Where the kernel's own taps stand among the others (tapable `stage`): the tool's own
 * `prepareArguments` and the schema check run before any plugin's tap, the registry answers after all.
 */
export const HarnessStage = Object.freeze({
  BUILT_IN_FIRST: -1000,
  DEFAULT: 0,
  BUILT_IN_LAST: 1000,
});

/**
 * A harness whatever its tool context: what plugins and the pipeline get, since they do not know
 * the host's `TContext` (the hooks' types make `AgentHarness<T>` invariant in it).
 */
// biome-ignore lint: `any` is what lets a harness of every tool context be given to a plugin.
export type AnyAgentHarness = AgentHarness<any>;

export type { HarnessHooks } from "./hooks/harness-hooks.js";

const OPTIONS_OWNER = "harness options";
/**
 * A plugin as `use` applies it: what `definePlugin` returns (`ToolhostPlugin`), said without naming
 * the harness's class (the plugin contract names the harness; the harness need not name it back).
 */
export interface AppliedPlugin<TOptions extends TSchema = TSchema> {
  readonly name: string;
  readonly apiVersion: number;
  readonly options?: TOptions;
  // biome-ignore lint: the harness a plugin gets is this one, whatever its tool context.
  apply(harness: any, options: Static<TOptions>, context: PluginContext): unknown;
}

/** The context of a plugin applied from code: no config named it. */
const NO_LAYERS: PluginContext = Object.freeze({ layers: Object.freeze([]) });
const TOOL_NAME = /^[A-Za-z0-9_.-]{1,64}$/;
const DEFAULT_ABORT_GRACE_MS = 1_000;

/**
 * The kernel: takes every tool call through one pipeline of tapable hooks (see `_pipeline.ts`).
 *
 * ```ts
 * const harness = new AgentHarness({ tools: [myTool] });
 * const [result] = await harness.executeToolCalls([{ id: "1", name: "my_tool", arguments: {} }]);
 * ```
 */
export class AgentHarness<TContext = unknown> {
  /**
   * The pipeline's stages, each a hook whose class says what the pipeline does with its taps, in
   * the order a call meets them (see `createHarnessHooks`). Created once, frozen.
   */
  readonly hooks: HarnessHooks<TContext> = createHarnessHooks<TContext>();

  readonly cwd: string;
  readonly workspace: string;
  readonly toolContext: TContext;
  readonly toolExecution: ExecutionMode;
  readonly maxConcurrency: number;
  readonly toolTimeoutMs: number | undefined;
  readonly abortGraceMs: number;

  readonly #tools = new Map<string, { tool: AnyAgentTool; owner: string }>();
  readonly #services = new Map<string, { value: unknown; owner: string }>();
  readonly #listeners = new Listeners();
  #owner = OPTIONS_OWNER;
  #disposed = false;

  constructor(options: AgentHarnessOptions<TContext> = {}) {
    this.cwd = resolve(options.cwd ?? process.cwd());
    this.workspace = resolve(this.cwd, options.workspace ?? this.cwd);
    this.toolContext = options.toolContext as TContext;
    this.toolExecution = options.toolExecution ?? "parallel";
    this.maxConcurrency = options.maxConcurrency ?? Number.POSITIVE_INFINITY;
    this.toolTimeoutMs = options.toolTimeoutMs;
    this.abortGraceMs = options.abortGraceMs ?? DEFAULT_ABORT_GRACE_MS;
    if (!(this.maxConcurrency >= 1)) {
      throw new ToolhostError(ErrorCode.INVALID_PLUGIN_OPTIONS, `maxConcurrency must be 1 or more, got ${options.maxConcurrency}.`);
    }
    if (!(this.abortGraceMs >= 0)) {
      throw new ToolhostError(ErrorCode.INVALID_PLUGIN_OPTIONS, `abortGraceMs must be 0 or more, got ${options.abortGraceMs}.`);
    }
    // The kernel's own hook classes (beforeToolCall, approve, afterToolCall) name a tap that throws themselves.
    for (const name of ["resolveTool", "prepareArguments", "validateArguments", "executeToolCall", "toolUpdate", "propagate", "redact"] as const) {
      nameThrowingTaps(this.hooks[name], name);
    }
    this.#tapBuiltIns(options);
    for (const tool of options.tools ?? []) this.registerTool(tool);
  }

  /** The kernel's own taps: the registry, the tool's `prepareArguments`, the schema check, and the options' hooks. */
  #tapBuiltIns({ beforeToolCall: before, afterToolCall: after }: AgentHarnessOptions<TContext>): void {
    const { hooks } = this;
    hooks.resolveTool.tap({ name: "toolhost:registry", stage: HarnessStage.BUILT_IN_LAST }, (call) => this.#tools.get(call.name)?.tool);
    hooks.prepareArguments.tap({ name: "toolhost:tool-prepare", stage: HarnessStage.BUILT_IN_FIRST }, (args, { tool }) =>
      tool.prepareArguments ? tool.prepareArguments(args) : args,
    );
    hooks.validateArguments.tap({ name: "toolhost:schema", stage: HarnessStage.BUILT_IN_FIRST }, (args, { tool }) =>
      callProblems(tool.parameters, args),
    );
    if (before) hooks.beforeToolCall.tapPromise(OPTIONS_OWNER, (ctx, signal) => Promise.resolve(before(ctx, signal)));
    if (after) {
      hooks.afterToolCall.tapPromise(OPTIONS_OWNER, (result, { toolCall, tool, args, access, context }, signal) =>
        Promise.resolve(after({ toolCall, tool, args, access, context, result, isError: result.isError === true }, signal)),
      );
    }
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
      const name = preview((tool as AnyAgentTool | null)?.name, 100);
      throw new ToolhostError(ErrorCode.INVALID_TOOL, `${owner} registered a tool with an invalid name ${name}: use 1 to 64 letters, digits, "_", "-" or ".".`);
    }
    const problem =
      typeof tool.execute !== "function"
        ? "has no execute function"
        : typeof tool.parameters !== "object" || tool.parameters === null
          ? "has no parameters schema (a TypeBox schema such as Type.Object({}))"
          : typeof tool.description !== "string"
            ? "has no description"
            : undefined;
    if (problem) throw new ToolhostError(ErrorCode.INVALID_TOOL, `Tool "${tool.name}" of ${owner} ${problem}.`);
    const existing = this.#tools.get(tool.name);
    if (existing) {
      throw new ToolhostError(
        ErrorCode.DUPLICATE_TOOL,
        `Tool "${tool.name}" is registered twice: by ${existing.owner} and by ${owner}. Remove one of them from the config, or rename the tool.`,
      );
    }
    this.#tools.set(tool.name, { tool, owner });
  }

  /** Offers a service (see `Services`) to the host and to other plugins, without imports between packages. */
  provideService<K extends keyof Services>(name: K, service: Services[K]): void;
  provideService<T>(name: string, service: T): void;
  provideService(name: string, service: unknown): void {
    const existing = this.#services.get(name);
    if (existing) {
      throw new ToolhostError(ErrorCode.DUPLICATE_SERVICE, `Service "${name}" is provided twice: by ${existing.owner} and by ${this.#owner}.`);
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
   * and calls `apply` with the tools it registers owned by the plugin's name. `context` says which
   * configs named it (a host that reads configs gives it; from code, none).
   */
  async use<TOptions extends TSchema>(plugin: AppliedPlugin<TOptions>, options?: unknown, context: PluginContext = NO_LAYERS): Promise<Static<TOptions>> {
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
      await plugin.apply(this as AnyAgentHarness, value, context);
    } catch (error) {
      if (error instanceof ToolhostError) throw error;
      throw new ToolhostError(ErrorCode.PLUGIN_APPLY_FAILED, `Plugin "${plugin.name}" failed to start: ${messageOf(error)}`, { cause: error });
    } finally {
      this.#owner = previous;
    }
    return value;
  }

  /** Listens to every event; returns the function that stops listening. */
  subscribe(listener: AgentEventListener): () => void {
    return this.#listeners.add(this.hooks.event, listener);
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
   * order. Never rejects because of a call: every failure, however malformed the call, becomes an
   * error result. Rejects only when `calls` is not an array (`TOOLHOST_INVALID_BATCH`, before
   * anything runs) or the harness was disposed.
   */
  async executeToolCalls(calls: readonly ToolCall[], options: ExecuteToolCallsOptions = {}): Promise<ToolResultMessage[]> {
    if (this.#disposed) {
      throw new ToolhostError(ErrorCode.HARNESS_DISPOSED, "This AgentHarness was disposed; create a new one to run tool calls.");
    }
    return runBatch(this as AnyAgentHarness, calls, options ?? {});
  }

  /**
   * Takes a call through the first stages only (resolve, prepare: the tool's `prepareArguments`,
   * the taps, validation, declared access) and stops before anyone is asked or anything runs.
   * Resolves to the prepared arguments and access, or to the result that would end the call
   * (`TOOL_NOT_FOUND`, `INVALID_ARGUMENTS`, ...). What an `explain` must judge: the arguments the
   * pipeline would hand the policy, not the raw ones (a tool may accept other spellings).
   */
  async prepareCall(call: ToolCall): Promise<PreparedToolCall> {
    if (this.#disposed) {
      throw new ToolhostError(ErrorCode.HARNESS_DISPOSED, "This AgentHarness was disposed; create a new one to prepare tool calls.");
    }
    return prepareCall(this as AnyAgentHarness, call);
  }

  /** Ends what plugins hold (processes, files) through the `dispose` hook; the harness runs no call after. */
  async dispose(): Promise<void> {
    if (this.#disposed) return;
    this.#disposed = true;
    await this.hooks.dispose.promise();
  }
}
