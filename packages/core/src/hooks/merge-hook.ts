import { ToolhostError } from "../errors.js";
import { preview } from "../preview.js";
import { checkedResult } from "../results.js";
import { callTap, isThenable, named } from "../_taps.js";
import type { AfterToolCallResult, AgentToolResult } from "../types/index.js";
import { install, KernelHookBase, tapWatchers, watchCall, watchEnd } from "./base.js";

/** A merge hook tap's answer that is not fields of a result: the result is withheld. */
export class MalformedAnswerError extends ToolhostError {
  constructor(
    readonly tapName: string,
    readonly hookName: string,
    readonly answer: string,
  ) {
    super("TOOLHOST_AFTER_HOOK_FAILED", `${hookName} tap "${tapName}" returned ${answer}, not the fields of a result to replace`);
  }
}

/**
 * A hook whose taps each replace fields of a result (`afterToolCall`): each tap gets the result as
 * the taps before it left it, and returns the fields it replaces (`content`, `details`, `isError`,
 * `terminate`, `usage`), or nothing (or the same result) to keep it. `promise(result, …)` resolves
 * to the merged result, exactly what the pipeline passes on. A tap that throws rejects it with an
 * error naming the tap (`TapError`); an answer that is not fields of a result rejects it with a
 * `MalformedAnswerError`: the pipeline withholds the result either way.
 */
export class MergeHook<TArgs extends unknown[]> extends KernelHookBase<
  [AgentToolResult, ...TArgs],
  AfterToolCallResult | AgentToolResult,
  AgentToolResult
> {
  constructor(args: readonly string[], name: string) {
    super(args, name);
    install<[AgentToolResult, ...TArgs], AgentToolResult>(this, (...callArgs) => merge(this, callArgs));
  }
}

async function merge<TArgs extends unknown[]>(hook: MergeHook<TArgs>, args: [AgentToolResult, ...TArgs]): Promise<AgentToolResult> {
  const { taps, interceptors } = hook;
  if (interceptors.length > 0) watchCall(interceptors, args);
  const watchers = tapWatchers(interceptors);
  const hookName = hook.name ?? "afterToolCall";
  let [result] = args;
  try {
    for (const tap of taps) {
      if (watchers) for (const each of watchers) each.tap?.(tap);
      let fields: unknown;
      try {
        fields = callTap(tap, result, args[1], args[2]);
        if (isThenable(fields)) fields = await fields;
      } catch (error) {
        throw named(error, tap.name, hookName);
      }
      if (fields === undefined || fields === null || fields === result) continue;
      const merged = mergeFields(result, fields);
      if (merged === undefined) throw new MalformedAnswerError(tap.name, hookName, preview(fields, 200));
      result = merged;
    }
  } catch (error) {
    if (interceptors.length > 0) watchEnd(interceptors, { error: error as Error });
    throw error;
  }
  if (interceptors.length > 0) watchEnd(interceptors, { result });
  return result;
}

/** The result with the fields a tap replaces; undefined when they are not fields of a result. */
function mergeFields(result: AgentToolResult, fields: unknown): AgentToolResult | undefined {
  try {
    return typeof fields === "object" ? checkedResult({ ...result, ...(fields as object) }) : undefined;
  } catch {
    return undefined;
  }
}
