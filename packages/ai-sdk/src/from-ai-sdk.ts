import { createRequire } from "node:module";
import { type Tool, type ToolSet, asSchema } from "ai";
import { type AgentTool, type AnyAgentHarness, ErrorCode, type TSchema, type ToolhostPlugin, ToolhostError, Type, definePlugin, messageOf } from "@toolhost/core";
import { type AiSdkAccessFunction, type AiSdkToolAccess, accessOf, checkAccessMap } from "./access.js";
import { NAME } from "./_adapter.js";
import { nameFilter } from "./_names.js";
import { resultOf } from "./output.js";
import { ownAskOf, recordOwnAsk } from "./_own-asks.js";
import { AiSdkErrorCode } from "./errors.js";

const { version } = createRequire(import.meta.url)("../package.json") as { version: string };

/** What `fromAiSdkTools` takes besides the tools. */
export interface FromAiSdkToolsOptions {
  /**
   * What each tool touches, by tool name: the input fields that hold paths, commands and URLs (a
   * mapping), or a function of the input. A tool without an entry declares nothing, and is judged by
   * the policy's `tool` and `args` rules only.
   */
  access?: Readonly<Record<string, AiSdkToolAccess | AiSdkAccessFunction>>;
  /** Tool names (or globs with `*`) to bring in; default all. */
  include?: readonly string[];
  /** Tool names (or globs) to leave out. */
  exclude?: readonly string[];
  /** The plugin's name (the owner of its tools in messages). Default `@toolhost/ai-sdk`. */
  name?: string;
}

/** After the policy's taps: a policy's deny or ask decides first; the tool's own ask comes after an allow. */
const OWN_ASK_STAGE = 100;

/**
 * AI SDK tools as toolhost tools: a plugin to `harness.use`, or the default export of a local
 * plugin file a config names. Each call of them then goes through toolhost's pipeline like any
 * tool's: validated with the tool's own input schema (zod, JSON Schema, …), judged by the policy
 * on the access `options.access` declares, redacted, audited, and told as events. A tool's own
 * `needsApproval` becomes an ask (after the policy's decision), answered by toolhost's approvers.
 * Tools without `execute` (client-side) and provider-executed tools are refused at load.
 */
export function fromAiSdkTools(tools: ToolSet, options: FromAiSdkToolsOptions = {}): ToolhostPlugin {
  const keep = nameFilter(options.include, options.exclude);
  const entries = Object.entries(tools).filter(([name]) => keep(name));
  return definePlugin({
    name: options.name ?? NAME,
    version,
    async apply(harness) {
      checkAccessMap(options.access ?? {}, entries.map(([name]) => name));
      const made: AgentTool[] = [];
      for (const [name, tool] of entries) made.push(await agentToolOf(name, tool, options.access?.[name]));
      for (const tool of made) harness.registerTool(tool);
      tapOwnAsks(harness, made, options.name ?? NAME);
      return { settings: { tools: made.map((tool) => tool.name) } };
    },
  });
}

async function agentToolOf(name: string, tool: Tool, access: AiSdkToolAccess | AiSdkAccessFunction | undefined): Promise<AgentTool> {
  const execute = tool.execute;
  if (typeof execute !== "function" || tool.type === "provider") {
    throw new ToolhostError(
      AiSdkErrorCode.NOT_RUNNABLE,
      `fromAiSdkTools: the AI SDK tool "${name}" ${tool.type === "provider" ? "is executed by its provider" : "has no execute function (a client-side tool)"}, so toolhost cannot run it. Leave it out (exclude: ["${name}"]) and pass it to the SDK directly.`,
    );
  }
  const schema = asSchema(tool.inputSchema);
  const mapping = typeof access === "function" ? undefined : access;
  const agentTool: AgentTool<TSchema> = {
    name,
    label: tool.title ?? name,
    description: tool.description ?? `${name} (an AI SDK tool)`,
    parameters: Type.Unsafe<unknown>({ type: "object", ...(await jsonSchemaOf(name, schema)) }),
    ...(mapping?.annotations && { annotations: mapping.annotations }),
    executionMode: mapping?.annotations?.readOnly === true ? "parallel" : "sequential",
    // The tool's own schema decides what its input is (and may transform it, as the SDK lets it).
    prepareArguments: schema.validate ? (args) => validated(name, schema, args) : undefined,
    ...(access !== undefined && { access: typeof access === "function" ? access : (input, env) => accessOf(access, input, env) }),
    async execute(toolCallId, input, signal, onUpdate) {
      const produced = execute.call(tool, input, { toolCallId, messages: [], abortSignal: signal });
      let output: unknown;
      if (isAsyncIterable(produced)) {
        for await (const each of produced) {
          output = each;
          onUpdate(resultOf(await modelOutput(tool, toolCallId, input, each), each));
        }
      } else {
        output = await produced;
      }
      return resultOf(await modelOutput(tool, toolCallId, input, output), output);
    },
  };
  if (tool.needsApproval !== undefined && tool.needsApproval !== false) {
    const needs = tool.needsApproval;
    recordOwnAsk(agentTool, async (args, toolCallId) => (typeof needs === "function" ? needs(args, { toolCallId, messages: [] }) : needs === true));
  }
  return agentTool;
}

/** The tool's own ask, as a `beforeToolCall` tap after the policy's: only for the tools of this plugin that have one. */
function tapOwnAsks(harness: AnyAgentHarness, tools: AgentTool[], pluginName: string): void {
  const asking = new Set(tools.filter((tool) => ownAskOf(tool) !== undefined));
  if (asking.size === 0) return;
  harness.hooks.beforeToolCall.tapPromise({ name: pluginName, stage: OWN_ASK_STAGE }, async (ctx) => {
    if (!asking.has(ctx.tool)) return undefined;
    const asks = await (ownAskOf(ctx.tool) as NonNullable<ReturnType<typeof ownAskOf>>)(ctx.args, ctx.toolCall.id);
    return asks ? { ask: true, reason: `the AI SDK tool "${ctx.tool.name}" asks for approval (its needsApproval)` } : undefined;
  });
}

async function jsonSchemaOf(name: string, schema: ReturnType<typeof asSchema>): Promise<Record<string, unknown>> {
  try {
    return JSON.parse(JSON.stringify(await schema.jsonSchema)) as Record<string, unknown>;
  } catch (error) {
    throw new ToolhostError(AiSdkErrorCode.INVALID_SCHEMA, `fromAiSdkTools: the input schema of "${name}" cannot be written as JSON Schema: ${messageOf(error)}`);
  }
}

async function validated(name: string, schema: ReturnType<typeof asSchema>, args: unknown): Promise<unknown> {
  const result = await schema.validate?.(args);
  if (result === undefined || result.success) return result === undefined ? args : result.value;
  throw new ToolhostError(ErrorCode.INVALID_ARGUMENTS, `the input does not match the schema of "${name}": ${messageOf(result.error)}`);
}

async function modelOutput(tool: Tool, toolCallId: string, input: unknown, output: unknown) {
  if (tool.toModelOutput) return tool.toModelOutput({ toolCallId, input, output });
  return typeof output === "string" ? ({ type: "text", value: output } as const) : ({ type: "json", value: (output ?? null) as never } as const);
}

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return value !== null && typeof value === "object" && typeof (value as AsyncIterable<unknown>)[Symbol.asyncIterator] === "function";
}
