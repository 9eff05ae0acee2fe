import type { AgentHarness } from "@toolhost/core";

/** How a call the policy may still judge would end as it is: the tool refuses it before it runs. */
export interface WouldEnd {
  code: string;
  text: string;
}

/**
 * Refuses (a `ToolhostError`, exit 2) a call the pipeline would end before the policy: an unknown
 * tool, or arguments its tool refuses after preparing them (a tool may take other spellings: the
 * pipeline's own prepare stage decides, not the raw schema). A call that can never run is not
 * explained; one the tool refuses for what it touches (a path that does not exist yet) is, by the
 * policy, which says so.
 */
export async function checkCall(harness: AgentHarness, tool: string, args: unknown): Promise<WouldEnd | undefined> {
  const { closestName, ErrorCode, ToolhostError, resultCode, textOf } = await import("@toolhost/core");
  if (!harness.getTool(tool)) {
    const close = closestName(tool, harness.tools.map((each) => each.name));
    throw new ToolhostError(
      ErrorCode.TOOL_NOT_FOUND,
      `The config has no tool "${tool}", so there is no call to explain.${close ? ` Did you mean "${close}"?` : ""} See "toolhost list"; for another host's tool, give its access on a JSON line to "toolhost policy explain -".`,
    );
  }
  const prepared = await harness.prepareCall({ id: "explain", name: tool, arguments: args });
  if (prepared.ok) return undefined;
  const code = resultCode(prepared.result);
  const text = textOf(prepared.result);
  // The tool's own refusal of what it touches (a file that does not exist yet): the policy still
  // judges the path (hooks-policy says it does not exist), and the caller says how the call would end.
  if ((prepared.result.details as { refused?: unknown } | null)?.refused === true) return { code: code ?? ErrorCode.BLOCKED, text };
  if (code === ErrorCode.INVALID_ARGUMENTS) throw new ToolhostError(code, `${text}\nSee "toolhost schema ${tool}".`);
  throw new ToolhostError(code ?? ErrorCode.INTERNAL, `"${tool}" would not reach the policy: ${text}`);
}
