import { ErrorCode, ToolhostError, messageOf } from "./errors.js";
import { AgentHarness } from "./harness.js";
import { toolError } from "./results.js";
import type {
  AgentContext,
  AgentEventListener,
  AssistantMessage,
  AssistantMessageEvent,
  ExecutionMode,
  Message,
  Model,
  StreamFn,
  TextContent,
  ThinkingContent,
  ToolCall,
  ToolResultMessage,
  Usage,
  UserMessage,
  ImageContent,
} from "./types/index.js";

/** Where an agent starts. */
export interface AgentInitialState {
  model: Model;
  systemPrompt?: string;
  messages?: Message[];
  /**
   * The names of the tools the model sees. Default: every tool of the harness. Tools registered
   * but not listed become active when a result names them in `addedToolNames`.
   */
  activeTools?: string[];
}

export interface AgentOptions {
  initialState: AgentInitialState;
  /** Streams one assistant message (e.g. `createOpenAIStreamFn` of `@toolhost/provider-openai`). */
  streamFn: StreamFn;
  /** Runs the tool calls; a new one without tools when not given. */
  harness?: AgentHarness;
  /** Overrides the harness's `toolExecution` for the agent's batches. */
  toolExecution?: ExecutionMode;
  /** The most assistant turns of one `prompt` or `continue`; the run stops after it. Default 100. */
  maxTurns?: number;
}

/** What the agent holds: the conversation, the tools the model sees, what it cost. */
export interface AgentState {
  model: Model;
  systemPrompt: string | undefined;
  messages: Message[];
  /** The names of the tools the model sees; undefined when it sees every tool of the harness. */
  activeTools: string[] | undefined;
  /** Summed over every assistant message and tool result of the conversation. */
  usage: Usage;
  isRunning: boolean;
  /** Why the last run stopped early: the model's error, an abort, a cut-off. */
  error: string | undefined;
}

const DEFAULT_MAX_TURNS = 100;

/**
 * The agent loop: asks the model, runs its tool calls through the harness, gives it the results,
 * and asks again, until a message has no tool calls, every result of a batch says `terminate`,
 * the model errs, or `abort()` is called. Every event goes through the harness's `event` hook.
 */
export class Agent {
  readonly harness: AgentHarness;
  readonly #streamFn: StreamFn;
  readonly #toolExecution: ExecutionMode | undefined;
  readonly #maxTurns: number;
  readonly #state: AgentState;
  #controller: AbortController | undefined;

  constructor(options: AgentOptions) {
    const { initialState } = options;
    this.harness = options.harness ?? new AgentHarness();
    this.#streamFn = options.streamFn;
    this.#toolExecution = options.toolExecution;
    this.#maxTurns = options.maxTurns ?? DEFAULT_MAX_TURNS;
    this.#state = {
      model: initialState.model,
      systemPrompt: initialState.systemPrompt,
      messages: [...(initialState.messages ?? [])],
      activeTools: initialState.activeTools ? [...initialState.activeTools] : undefined,
      usage: emptyUsage(),
      isRunning: false,
      error: undefined,
    };
    for (const message of this.#state.messages) this.#addUsage(message);
  }

  /** A snapshot of the agent's state. */
  get state(): Readonly<AgentState> {
    return { ...this.#state, messages: [...this.#state.messages], usage: structuredClone(this.#state.usage) };
  }

  /** Listens to every event of the agent and its harness; returns the function that stops listening. */
  subscribe(listener: AgentEventListener): () => void {
    return this.harness.subscribe(listener);
  }

  /** Adds a user message and runs the loop until it stops. Resolves when it has; errors are in `state.error`. */
  prompt(input: string | (TextContent | ImageContent)[] | UserMessage): Promise<void> {
    const message: UserMessage =
      typeof input === "object" && !Array.isArray(input) ? input : { role: "user", content: input, timestamp: Date.now() };
    return this.#run([message]);
  }

  /** Runs the loop again from the conversation as it is (after an error, an abort, or new messages). */
  continue(): Promise<void> {
    return this.#run([]);
  }

  /** Aborts the stream and the running tool calls; the run ends after the current batch settles. */
  abort(reason?: unknown): void {
    this.#controller?.abort(reason);
  }

  async #run(newMessages: Message[]): Promise<void> {
    if (this.#state.isRunning) {
      throw new ToolhostError(
        ErrorCode.AGENT_BUSY,
        "The agent is already running; wait for prompt() or continue() to finish, or call abort() first.",
      );
    }
    const controller = new AbortController();
    this.#controller = controller;
    const { signal } = controller;
    const state = this.#state;
    state.isRunning = true;
    state.error = undefined;
    const runMessages: Message[] = [];
    const append = (message: Message): void => {
      state.messages.push(message);
      runMessages.push(message);
      this.#addUsage(message);
    };
    const emit = this.harness.emit.bind(this.harness);

    emit({ type: "agent_start" });
    try {
      for (const message of newMessages) {
        emit({ type: "message_start", message });
        append(message);
        emit({ type: "message_end", message });
      }
      for (let turn = 0; ; turn++) {
        if (signal.aborted) {
          state.error = "aborted";
          break;
        }
        if (turn >= this.#maxTurns) {
          state.error = `stopped after ${this.#maxTurns} turns (maxTurns)`;
          break;
        }
        if (!(await this.#turn(signal, append))) break;
      }
    } finally {
      state.isRunning = false;
      this.#controller = undefined;
      emit({ type: "agent_end", messages: runMessages });
    }
  }

  /** One turn: the model's message, then its tool calls run. Whether the loop goes on. */
  async #turn(signal: AbortSignal, append: (message: Message) => void): Promise<boolean> {
    const state = this.#state;
    const emit = this.harness.emit.bind(this.harness);
    emit({ type: "turn_start" });
    const assistant = await this.#streamAssistant(signal);
    append(assistant);
    const toolCalls = assistant.content.filter((block): block is ToolCall => block.type === "toolCall");

    let toolResults: ToolResultMessage[] = [];
    if (assistant.stopReason === "error" || assistant.stopReason === "aborted") {
      state.error = assistant.errorMessage ?? assistant.stopReason;
    } else if (assistant.stopReason === "length" && toolCalls.length > 0) {
      toolResults = toolCalls.map((call) => cutOffResult(call));
      state.error = "the model's output was cut off (length) in the middle of its tool calls";
    } else if (toolCalls.length > 0) {
      toolResults = await this.harness.executeToolCalls(toolCalls, {
        signal,
        ...(this.#toolExecution ? { toolExecution: this.#toolExecution } : {}),
      });
    }
    const cutOff = assistant.stopReason === "length";
    for (const message of toolResults) {
      // The harness told its own results' messages; the cut-off ones are told here.
      if (cutOff) emit({ type: "message_start", message });
      append(message);
      if (cutOff) emit({ type: "message_end", message });
      for (const name of message.addedToolNames ?? []) this.#activate(name);
    }
    emit({ type: "turn_end", message: assistant, toolResults });

    if (state.error !== undefined || toolResults.length === 0) return false;
    if (signal.aborted) {
      state.error = "aborted";
      return false;
    }
    return !toolResults.every((result) => result.terminate === true);
  }

  /** Streams one assistant message, telling its deltas; never throws. */
  async #streamAssistant(signal: AbortSignal): Promise<AssistantMessage> {
    const emit = this.harness.emit.bind(this.harness);
    const partial: AssistantMessage = { role: "assistant", content: [], stopReason: "stop", timestamp: Date.now() };
    const toolCallsByIndex = new Map<number, ToolCall & { partialArguments: string }>();
    emit({ type: "message_start", message: partial });
    let final: AssistantMessage | undefined;
    try {
      const context: AgentContext = {
        messages: [...this.#state.messages],
        tools: this.#activeTools(),
        ...(this.#state.systemPrompt !== undefined ? { systemPrompt: this.#state.systemPrompt } : {}),
      };
      const stream = await this.#streamFn(this.#state.model, context, { signal });
      for await (const event of stream) {
        if (event.type === "done") {
          final = event.message;
          break;
        }
        applyDelta(partial, toolCallsByIndex, event);
        emit({ type: "message_update", message: partial, assistantMessageEvent: event });
      }
      if (final === undefined) {
        final = {
          ...partial,
          stopReason: signal.aborted ? "aborted" : "error",
          errorMessage: signal.aborted ? "aborted" : "the model's stream ended without a final message",
        };
      }
    } catch (error) {
      final = {
        ...partial,
        stopReason: signal.aborted ? "aborted" : "error",
        errorMessage: signal.aborted ? "aborted" : `the model's stream failed: ${messageOf(error)}`,
      };
    }
    if (signal.aborted && final.stopReason !== "aborted" && final.stopReason !== "error") {
      // An abort that landed after the model finished still stops the run before its tools run.
      final = { ...final, stopReason: "aborted", errorMessage: "aborted" };
    }
    emit({ type: "message_end", message: final });
    return final;
  }

  #activeTools() {
    const active = this.#state.activeTools;
    const all = this.harness.tools;
    return active === undefined ? all : all.filter((tool) => active.includes(tool.name));
  }

  #activate(name: string): void {
    const active = this.#state.activeTools;
    if (active !== undefined && !active.includes(name) && this.harness.getTool(name)) active.push(name);
  }

  #addUsage(message: Message): void {
    if (message.role === "user" || !message.usage) return;
    const sum = this.#state.usage;
    const add = message.usage;
    sum.input += add.input;
    sum.output += add.output;
    sum.cacheRead += add.cacheRead;
    sum.cacheWrite += add.cacheWrite;
    sum.totalTokens += add.totalTokens;
    sum.cost.input += add.cost.input;
    sum.cost.output += add.cost.output;
    sum.cost.cacheRead += add.cost.cacheRead;
    sum.cost.cacheWrite += add.cost.cacheWrite;
    sum.cost.total += add.cost.total;
  }
}

function applyDelta(
  partial: AssistantMessage,
  toolCalls: Map<number, ToolCall & { partialArguments: string }>,
  event: AssistantMessageEvent,
): void {
  const last = partial.content[partial.content.length - 1];
  if (event.type === "text_delta") {
    if (last?.type === "text") (last as TextContent).text += event.delta;
    else partial.content.push({ type: "text", text: event.delta });
  } else if (event.type === "thinking_delta") {
    if (last?.type === "thinking") (last as ThinkingContent).thinking += event.delta;
    else partial.content.push({ type: "thinking", thinking: event.delta });
  } else {
    let call = toolCalls.get(event.index);
    if (!call) {
      call = { type: "toolCall", id: event.id ?? "", name: event.name ?? "", arguments: {}, partialArguments: "" };
      toolCalls.set(event.index, call);
      partial.content.push(call);
    }
    if (event.id) call.id = event.id;
    if (event.name) call.name = event.name;
    call.partialArguments += event.argumentsDelta;
  }
}

function cutOffResult(call: ToolCall): ToolResultMessage {
  const text = `Not run: your output was cut off (length limit) before this call of "${call.name}" was complete, so its arguments may be half-written. Make the call again with shorter output.`;
  const { content, details } = toolError(ErrorCode.OUTPUT_CUT_OFF, text);
  return { role: "toolResult", toolCallId: call.id, toolName: call.name, content, details, isError: true, timestamp: Date.now() };
}

function emptyUsage(): Usage {
  return { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };
}
