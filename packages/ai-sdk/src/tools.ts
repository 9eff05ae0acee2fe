import { type Tool, type ToolExecutionOptions, type ToolSet, jsonSchema } from "ai";
import { type AnyAgentHarness, type AnyAgentTool, type ToolCall, ToolhostError } from "@toolhost/core";
import type { Host } from "@toolhost/core/config";
import { adapterOf } from "./_adapter.js";
import { approvalInMessages } from "./_approval.js";
import { decisionOf } from "./_decide.js";
import { nameFilter } from "./_names.js";
import { ownAskOf } from "./_own-asks.js";
import { type ToolhostToolOutput, modelOutputOf } from "./output.js";
import { AiSdkErrorCode, ToolhostCallError } from "./errors.js";

/** What `toolhostTools` takes besides the harness. */
export interface ToolhostToolsOptions {
  /** Tool names (or globs with `*`) to hand out; default every registered tool. */
  include?: readonly string[];
  /** Tool names (or globs) to leave out; they win over `include`. */
  exclude?: readonly string[];
  /**
   * Who answers the policy's asks: the application, through the SDK's tool approval (`"application"`,
   * the default), or a person on the user's approvals page (`"page"`: `toolhost approvals serve`;
   * the harness needs `@toolhost/approvals`, whose `approvals` service puts each ask there). With
   * `"page"` no tool needs the SDK's approval: a call waits in `execute` until it is answered there,
   * or refused (no page running, no answer in time).
   */
  approvals?: "application" | "page";
}

/**
 * toolhost's tools as an AI SDK `ToolSet`, for `generateText`, `streamText` and agents. Each tool
 * keeps its description and its parameters (as JSON Schema), and its calls go through toolhost's
 * whole pipeline: prepare, validate, the policy, redaction, events, `afterToolCall`, with the SDK's
 * abort signal as the call's signal.
 *
 * - `needsApproval` asks the policy (prepare and decide, nothing run) and is true for an ask. The
 *   answer the application adds (`tool-approval-response`) becomes the `approve` stage's answer for
 *   that call (`via: "application"`); a part a locked layer holds is still refused.
 * - A refused or failed call throws a `ToolhostCallError`: the SDK's `tool-error`, whose text (the
 *   model's error output) is toolhost's, with the reason.
 * - Streamed updates come as preliminary results; images reach the model as image parts.
 *
 * Takes the tools registered when it is called.
 */
export function toolhostTools(source: AnyAgentHarness | Pick<Host, "harness">, options: ToolhostToolsOptions = {}): ToolSet {
  const harness = harnessOf(source);
  const adapter = adapterOf(harness);
  const onPage = options.approvals === "page";
  if (onPage) {
    if (harness.getService("approvals") === undefined) {
      throw new ToolhostError(
        AiSdkErrorCode.NO_APPROVALS_PAGE,
        'toolhostTools(…, { approvals: "page" }) puts asks on the approvals page, and no plugin of this harness provides it: add "@toolhost/approvals" to the config\'s plugins (or harness.use it).',
      );
    }
    adapter.askThroughPage();
  }
  const keep = nameFilter(options.include, options.exclude);
  const tools: ToolSet = {};
  for (const tool of harness.tools) if (keep(tool.name)) tools[tool.name] = aiSdkToolOf(harness, tool, onPage);
  return tools;
}

function harnessOf(source: unknown): AnyAgentHarness {
  const candidate = source !== null && typeof source === "object" && "harness" in source ? (source as { harness: unknown }).harness : source;
  if (candidate !== null && typeof candidate === "object" && typeof (candidate as AnyAgentHarness).executeToolCalls === "function") return candidate as AnyAgentHarness;
  throw new ToolhostError(
    AiSdkErrorCode.INVALID_SOURCE,
    "toolhostTools takes an AgentHarness or a Host (from createHost of @toolhost/core/config); it was given neither.",
  );
}

function aiSdkToolOf(harness: AnyAgentHarness, agentTool: AnyAgentTool, onPage: boolean): Tool<unknown, ToolhostToolOutput> {
  const { name } = agentTool;
  // A round trip through JSON drops TypeBox's symbol keys: the SDK and the model get plain JSON Schema.
  const schema = JSON.parse(JSON.stringify(agentTool.parameters)) as Parameters<typeof jsonSchema>[0];
  return {
    description: agentTool.description,
    title: agentTool.label,
    // Not validated by the SDK: the pipeline validates, and an invalid call gets toolhost's error with each problem.
    inputSchema: jsonSchema<unknown>(schema),
    // On the page, the pipeline's own ask waits for a person in `execute`: the SDK asks the application nothing.
    needsApproval: (input, { toolCallId }) => (!onPage && mayAsk(harness, agentTool) ? asks(harness, { id: toolCallId, name, arguments: input }) : false),
    execute: (input, options) => run(harness, name, input, options),
    toModelOutput: ({ output }) => modelOutputOf(output),
  };
}

/** Whether anything could ask about a call of the tool: a policy, a `beforeToolCall` tap, the tool's own ask (fromAiSdkTools). */
function mayAsk(harness: AnyAgentHarness, tool: AnyAgentTool): boolean {
  return harness.getService("policy") !== undefined || harness.hooks.beforeToolCall.taps.length > 0 || ownAskOf(tool) !== undefined;
}

async function asks(harness: AnyAgentHarness, call: ToolCall): Promise<boolean> {
  return (await decisionOf(harness, call)) === "ask";
}

/** One call through the pipeline: its updates as preliminary results, then its result (or its error thrown). */
async function* run(harness: AnyAgentHarness, name: string, input: unknown, options: ToolExecutionOptions): AsyncGenerator<ToolhostToolOutput> {
  const { toolCallId } = options;
  const adapter = adapterOf(harness);
  adapter.hold(toolCallId, approvalInMessages(options.messages, toolCallId, name));
  const channel = adapter.channel(toolCallId);
  const running = adapter.run({ id: toolCallId, name, arguments: input }, options.abortSignal, channel);
  try {
    for (;;) {
      const update = channel.take();
      if (update !== undefined) yield { content: update.content, details: update.details };
      else if (channel.done) break;
      else await channel.wait();
    }
    const result = await running;
    if (result.isError) throw new ToolhostCallError(result);
    yield { content: result.content, details: result.details };
  } finally {
    adapter.release(toolCallId, channel);
  }
}
