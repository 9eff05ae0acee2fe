import type { AgentHarness } from "@toolhost/core";

/**
 * Refuses (a `ToolhostError`, exit 2) a call the pipeline would end before the policy: an unknown
 * tool, or arguments its tool refuses after preparing them (a tool may take other spellings: the
 * pipeline's own prepare stage decides, not the raw schema). A call that can never run is not
 * explained.
 */
export async function checkCall(harness: AgentHarness, tool: string, args: unknown): Promise<void> {
  const { closestName, ErrorCode, ToolhostError, resultCode, textOf } = await import("@toolhost/core");
  if (!harness.getTool(tool)) {
    const close = closestName(tool, harness.tools.map((each) => each.name));
    throw new ToolhostError(
      ErrorCode.TOOL_NOT_FOUND,
      `The config has no tool "${tool}", so there is no call to explain.${close ? ` Did you mean "${close}"?` : ""} See "toolhost list"; for another host's tool, give its access on a JSON line to "toolhost policy explain -".`,
    );
  }
  const prepared = await harness.prepareCall({ id: "explain", name: tool, arguments: args });
  if (prepared.ok) return;
  const code = resultCode(prepared.result);
  const text = textOf(prepared.result);
  if (code === ErrorCode.INVALID_ARGUMENTS) throw new ToolhostError(code, `${text}\nSee "toolhost schema ${tool}".`);
  throw new ToolhostError(code ?? ErrorCode.INTERNAL, `"${tool}" would not reach the policy: ${text}`);
}
