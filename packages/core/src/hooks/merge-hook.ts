import { ToolhostError } from "../errors.js";
import { preview } from "../preview.js";
import { checkedResult } from "../results.js";
import { callTap, isThenable, named } from "../_taps.js";
import type { AfterToolCallResult, AgentToolResult } from "../types/index.js";
import { type HookInterceptor, type HookTap, install, KernelHookBase, tapWatchers, watched } from "./base.js";

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
    install<[AgentToolResult, ...TArgs], AgentToolResult>(this, (...callArgs) =>
      watched(this.interceptors, callArgs, () => mergeFrom(this, callArgs, 0, callArgs[0], tapWatchers(this.interceptors))),
    );
  }
}

type Watchers<TArgs extends unknown[]> = HookInterceptor<[AgentToolResult, ...TArgs], AgentToolResult>[] | undefined;

/** The taps from `start` on, each merged into `result`; a promise only from the first tap that gives one. */
function mergeFrom<TArgs extends unknown[]>(
  hook: MergeHook<TArgs>,
  args: [AgentToolResult, ...TArgs],
  start: number,
  first: AgentToolResult,
  watchers: Watchers<TArgs>,
): AgentToolResult | Promise<AgentToolResult> {
  const { taps } = hook;
  const hookName = hook.name ?? "afterToolCall";
  let result = first;
  for (let i = start; i < taps.length; i++) {
    const tap = taps[i] as HookTap;
    if (watchers) for (const each of watchers) each.tap?.(tap);
    let fields: unknown;
    try {
      fields = callTap(tap, result === args[0] ? args : [result, ...args.slice(1)]);
    } catch (error) {
      throw named(error, tap.name, hookName);
    }
    if (isThenable(fields)) {
      const before = result;
      return Promise.resolve(fields).then(
        (value) => mergeFrom(hook, args, i + 1, merged(before, value, tap, hookName), watchers),
        (error: unknown) => {
          throw named(error, tap.name, hookName);
        },
      );
    }
    result = merged(result, fields, tap, hookName);
  }
  return result;
}

/** The result with a tap's fields merged in; throws when they are not fields of a result. */
function merged(result: AgentToolResult, fields: unknown, tap: HookTap, hookName: string): AgentToolResult {
  if (fields === undefined || fields === null || fields === result) return result;
  const next = mergeFields(result, fields);
  if (next === undefined) throw new MalformedAnswerError(tap.name, hookName, preview(fields, 200));
  return next;
}

/** The result with the fields a tap replaces; undefined when they are not fields of a result. */
function mergeFields(result: AgentToolResult, fields: unknown): AgentToolResult | undefined {
  try {
    return typeof fields === "object" ? checkedResult({ ...result, ...(fields as object) }) : undefined;
  } catch {
    return undefined;
  }
}
