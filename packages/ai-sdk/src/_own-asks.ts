import type { AnyAgentTool } from "@toolhost/core";

/** Whether an AI SDK tool's own `needsApproval` asks about a call. */
export type OwnAsk = (args: unknown, toolCallId: string) => Promise<boolean>;

/**
 * The toolhost tools `fromAiSdkTools` made from AI SDK tools that say they need approval: their
 * ask is one more `beforeToolCall` tap, which `toolhostTools`' `needsApproval` must see too.
 */
const asks = new WeakMap<AnyAgentTool, OwnAsk>();

export function recordOwnAsk(tool: AnyAgentTool, ask: OwnAsk): void {
  asks.set(tool, ask);
}

export function ownAskOf(tool: AnyAgentTool): OwnAsk | undefined {
  return asks.get(tool);
}

/** Whether the tool's own `needsApproval` asks; a function that throws asks (fail closed). */
export async function ownAsk(tool: AnyAgentTool, args: unknown, toolCallId: string): Promise<boolean> {
  const ask = asks.get(tool);
  if (ask === undefined) return false;
  try {
    return await ask(args, toolCallId);
  } catch {
    return true;
  }
}
