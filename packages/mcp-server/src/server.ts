import { randomUUID } from "node:crypto";
import type { AgentHarness, ApprovalResult, ToolCall } from "@toolhost/core";
import {
  CLIENT_CAPABILITIES_META_KEY,
  type CallToolResult,
  type McpServerFactory,
  Server,
  type ServerContext,
  inputRequired,
  inputResponse,
} from "@modelcontextprotocol/server";
import { Approvals, approvalForm, type CallApproval } from "./_approvals.js";
import { mcpResult } from "./_results.js";
import { mcpTool } from "./_tools.js";
import { progressReporter } from "./_progress.js";
import type { ServeLimits } from "./limits.js";
import type { CallTracker } from "./_stdio-wire.js";

/** How the tools of a harness are served. */
export interface McpServeOptions {
  /** The server's name in `initialize` (default `toolhost`). */
  name?: string;
  /** The server's version in `initialize`. */
  version?: string;
  /**
   * Ask the client's user (MCP elicitation) when a policy answers `ask` and the client supports it.
   * Default true; false refuses every such call with the reason.
   */
  elicitation?: boolean;
  /** How long the client's user has to answer, in ms (default 120 000); no answer is a no. */
  askTimeoutMs?: number;
  /** Tells the user how to allow a refused call, e.g. `add an allow rule to the policy in /p/toolhost.config.yaml`. */
  allowHint?: string;
  /** What one client may hold of the server at a time (calls in flight, message size, unread output). */
  limits?: ServeLimits;
}

const DEFAULT_ALLOW_HINT = "add an allow rule for this tool to the policy of your toolhost config";

/**
 * A factory of MCP servers for the tools of `harness`: one per stdio connection, or one per HTTP
 * request. Every `tools/call` goes through `harness.executeToolCalls`, so policies, redaction,
 * audit and hooks apply as for any call.
 */
export function createServerFactory(harness: AgentHarness, options: McpServeOptions = {}): McpServerFactory {
  return serverFactory(harness, options, undefined);
}

/** `createServerFactory`, with the stdio connection told when each `tools/call` handler starts and ends. */
export function serverFactory(harness: AgentHarness, options: McpServeOptions, tracker: CallTracker | undefined): McpServerFactory {
  const approvals = Approvals.of(harness, options.allowHint ?? DEFAULT_ALLOW_HINT);
  return () => {
    const server = new Server(
      { name: options.name ?? "toolhost", version: options.version ?? "0.0.0" },
      {
        capabilities: { tools: {} },
        inputRequired: { roundTimeoutMs: options.askTimeoutMs ?? 120_000, maxRounds: 2 },
      },
    );
    server.setRequestHandler("tools/list", () => ({ tools: harness.tools.map(mcpTool) }));
    server.setRequestHandler("tools/call", async (request, ctx) => {
      tracker?.started(ctx.mcpReq.id);
      try {
        return await callTool(harness, approvals, server, options, request.params, ctx);
      } finally {
        tracker?.ended(ctx.mcpReq.id);
      }
    });
    return server;
  };
}

async function callTool(
  harness: AgentHarness,
  approvals: Approvals,
  server: Server,
  options: McpServeOptions,
  params: { name: string; arguments?: Record<string, unknown> },
  ctx: ServerContext,
): Promise<CallToolResult> {
  const args = params.arguments ?? {};
  const state: CallApproval = {
    canAsk: options.elicitation !== false && clientCanElicit(server, ctx),
    answerFor: (key) => answerIn(ctx, key),
  };
  const call: ToolCall = { id: nextCallId(), name: params.name, arguments: args };
  approvals.track(call.id, state);
  const unsubscribe = progressReporter(harness, call.id, ctx);
  try {
    const [message] = await harness.executeToolCalls([call], { signal: callSignal(ctx) });
    if (state.question !== undefined && state.answered !== true) {
      return inputRequired({
        inputRequests: { [state.question.key]: inputRequired.elicit({ message: state.question.text, requestedSchema: approvalForm() }) },
      }) as unknown as CallToolResult;
    }
    if (!message) return { content: [{ type: "text", text: "toolhost returned no result for the call." }], isError: true };
    return mcpResult(message);
  } finally {
    unsubscribe();
    approvals.release(call.id);
  }
}

/** The answer a retried request carries for the question of `key` (made from the call's content as judged now), if any. */
function answerIn(ctx: ServerContext, key: string): ApprovalResult | undefined {
  const answered = inputResponse(ctx.mcpReq.inputResponses, key);
  if (answered.kind !== "elicit") return undefined;
  return answered.action === "accept" && answered.content?.approve === true
    ? { approved: true, via: "MCP elicitation", reason: "approved by the MCP client's user" }
    : { approved: false, via: "MCP elicitation", reason: `the MCP client's user did not allow it (${answered.action === "accept" ? "answered no" : answered.action})` };
}

/**
 * Whether the client declared elicitation: from its `initialize` (2025 era), or from the request's
 * envelope (2026-07-28 era, where each request carries the client's capabilities).
 */
function clientCanElicit(server: Server, ctx: ServerContext): boolean {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  const perRequest = envelope?.[CLIENT_CAPABILITIES_META_KEY] as { elicitation?: unknown } | undefined;
  return (perRequest ?? server.getClientCapabilities())?.elicitation !== undefined;
}

/**
 * The call's signal: the client's cancellation, and over HTTP also the request's own end (a
 * 2025-era client's `notifications/cancelled` is a separate request that a stateless server cannot
 * relate to the call; the client closing the request it waits on can).
 */
function callSignal(ctx: ServerContext): AbortSignal {
  const request = ctx.http?.req?.signal;
  return request ? AbortSignal.any([ctx.mcpReq.signal, request]) : ctx.mcpReq.signal;
}

/** Call ids unique in this process (the approvals and the progress of a call are keyed by them): a random prefix and a count, not a UUID each. */
const CALL_PREFIX = `mcp-${randomUUID()}-`;
let calls = 0;
function nextCallId(): string {
  calls += 1;
  return `${CALL_PREFIX}${calls}`;
}
