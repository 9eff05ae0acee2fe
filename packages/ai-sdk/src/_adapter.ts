import { type Context, context } from "@opentelemetry/api";
import type { AnyAgentHarness, ToolCall, ToolResultMessage } from "@toolhost/core";
import { type ApplicationApproval, applicationAnswer } from "./_approval.js";
import { UpdateChannel } from "./_updates.js";

/** The name of this package's taps. */
export const NAME = "@toolhost/ai-sdk";

/** Before a terminal prompt, as other front ends' approvers (the MCP server's) stand. */
const APPROVE_STAGE = -100;

interface Pending {
  call: ToolCall;
  channel: UpdateChannel;
  resolve: (result: ToolResultMessage) => void;
  reject: (error: unknown) => void;
}

/**
 * What `toolhostTools` keeps per harness: the approvals the application gave for calls under way
 * (answered by an `approve` tap of this package), the update channels of those calls (fed by a
 * `toolUpdate` tap), and the calls the SDK starts together, run as one batch. Both taps are added
 * once per harness, the first time its tools are handed out. Calls are told apart by id and tool
 * name (ids come from the model, unique within its response).
 */
export class Adapter {
  readonly #approvals = new Map<string, ApplicationApproval>();
  readonly #channels = new Map<string, UpdateChannel>();
  readonly #queued = new Map<AbortSignal | undefined, Map<Context, Pending[]>>();
  #flushing = false;

  constructor(private readonly harness: AnyAgentHarness) {
    harness.hooks.approve.tap({ name: NAME, stage: APPROVE_STAGE }, (request) => {
      const held = this.#approvals.get(request.toolCall.id);
      if (held === undefined || held.toolName !== request.toolCall.name) return undefined;
      // One answer, for the call's own ask: what the running call asks about later (a sandbox
      // proxy's destination) is not what the person approved, and goes to the other approvers.
      this.#approvals.delete(request.toolCall.id);
      return applicationAnswer(held, request);
    });
    harness.hooks.toolUpdate.tap(NAME, (update, ctx) => {
      this.#channels.get(ctx.toolCall.id)?.push(update);
    });
  }

  /**
   * Runs a call in the batch of the calls the SDK starts in the same turn of the event loop with the
   * same abort signal (generateText starts all the calls of a model's answer together), in the order
   * they came, which is the model's: the harness's scheduling then holds across them (a sequential
   * tool runs alone, the calls before it first), and a batch costs the kernel less than a call each.
   * Calls started in different trace contexts (the SDK's own telemetry gives each call an
   * `ai.toolCall` span) are batches of their own, each run in its context, so that a tracing plugin
   * parents each call's span where it was started.
   */
  run(call: ToolCall, signal: AbortSignal | undefined, channel: UpdateChannel): Promise<ToolResultMessage> {
    return new Promise((resolve, reject) => {
      let bySignal = this.#queued.get(signal);
      if (bySignal === undefined) this.#queued.set(signal, (bySignal = new Map()));
      const active = context.active();
      let pending = bySignal.get(active);
      if (pending === undefined) bySignal.set(active, (pending = []));
      pending.push({ call, channel, resolve, reject });
      if (!this.#flushing) {
        this.#flushing = true;
        setImmediate(() => this.#flush());
      }
    });
  }

  #flush(): void {
    this.#flushing = false;
    for (const [signal, byContext] of this.#queued) {
      this.#queued.delete(signal);
      for (const [active, pending] of byContext) {
        const running = context.with(active, () => this.harness.executeToolCalls(pending.map((each) => each.call), signal ? { signal } : {}));
        running.then(
          (results) => {
            for (const [i, each] of pending.entries()) {
              each.channel.finish();
              const result = results[i];
              if (result) each.resolve(result);
              else each.reject(new Error(`toolhost returned no result for the call of "${each.call.name}"`));
            }
          },
          (error: unknown) => {
            for (const each of pending) {
              each.channel.finish();
              each.reject(error);
            }
          },
        );
      }
    }
  }

  #onPage = false;

  /**
   * From now on, the asks of this harness's calls no answer of the application covers go to the
   * approvals page (`toolhostTools(…, { approvals: "page" })`): one tap, after the application's.
   */
  askThroughPage(): void {
    if (this.#onPage) return;
    this.#onPage = true;
    this.harness.hooks.approve.tapPromise({ name: `${NAME} (approvals page)`, stage: APPROVE_STAGE + 1 }, async (request, signal) =>
      this.harness.getService("approvals")?.ask(request, signal),
    );
  }

  /** Holds what the application answered for a call until its ask, or its end. */
  hold(toolCallId: string, approval: ApplicationApproval | undefined): void {
    if (approval) this.#approvals.set(toolCallId, approval);
  }

  channel(toolCallId: string): UpdateChannel {
    const channel = new UpdateChannel();
    this.#channels.set(toolCallId, channel);
    return channel;
  }

  /** The call has its result: its approval and its channel go. */
  release(toolCallId: string, channel: UpdateChannel): void {
    channel.finish();
    if (this.#channels.get(toolCallId) === channel) this.#channels.delete(toolCallId);
    this.#approvals.delete(toolCallId);
  }
}

const adapters = new WeakMap<AnyAgentHarness, Adapter>();

export function adapterOf(harness: AnyAgentHarness): Adapter {
  let adapter = adapters.get(harness);
  if (adapter === undefined) {
    adapter = new Adapter(harness);
    adapters.set(harness, adapter);
  }
  return adapter;
}
