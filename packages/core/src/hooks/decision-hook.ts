import { callTap, isThenable, named } from "../_taps.js";
import type { BeforeToolCallResult, ToolDecision } from "../types/index.js";
import { install, KernelHookBase, tapWatchers, watchCall, watchEnd } from "./base.js";

/**
 * A hook whose taps decide, in order (`beforeToolCall`): the first `block` or `ask` answer is the
 * decision and no later tap runs; an `allow` answer is kept for the record (the first one) while
 * the next taps still judge; any other answer (`undefined`, `null`, `{}`, a malformed object) lets
 * the next tap judge. `promise()` resolves to the decision with the tap that gave it filled in
 * (`blockedBy`, `askedBy`, `allowedBy`), or undefined when no tap answered: exactly what the
 * pipeline acts on. A tap that throws (or answers with a throwing getter) rejects it with an error
 * naming the tap (`TapError`), which the pipeline turns into a refusal.
 */
export class DecisionHook<TArgs extends unknown[]> extends KernelHookBase<TArgs, BeforeToolCallResult, ToolDecision | undefined> {
  constructor(args: readonly string[], name: string) {
    super(args, name);
    install<TArgs, ToolDecision | undefined>(this, (...callArgs) => decide(this, callArgs));
  }
}

async function decide<TArgs extends unknown[]>(hook: DecisionHook<TArgs>, args: TArgs): Promise<ToolDecision | undefined> {
  const { taps, interceptors } = hook;
  if (interceptors.length > 0) watchCall(interceptors, args);
  const watchers = tapWatchers(interceptors);
  let allowed: ToolDecision | undefined;
  try {
    for (const tap of taps) {
      if (watchers) for (const each of watchers) each.tap?.(tap);
      let decided: ToolDecision | undefined;
      try {
        let answer = callTap(tap, ...args);
        if (isThenable(answer)) answer = await answer;
        decided = decisionOf(answer, tap.name);
      } catch (error) {
        throw named(error, tap.name, hook.name ?? "beforeToolCall");
      }
      if (decided === undefined) continue;
      if ("allow" in decided) {
        allowed ??= decided;
        continue;
      }
      if (interceptors.length > 0) watchEnd(interceptors, { result: decided });
      return decided;
    }
  } catch (error) {
    if (interceptors.length > 0) watchEnd(interceptors, { error: error as Error });
    throw error;
  }
  if (interceptors.length > 0) watchEnd(interceptors, { result: allowed });
  return allowed;
}

/** A tap's answer as a decision named after the tap, or undefined when it is no answer. */
function decisionOf(answer: unknown, tapName: string): ToolDecision | undefined {
  if (answer === null || typeof answer !== "object") return undefined;
  const given = answer as Record<string, unknown>;
  const details = given.details !== null && typeof given.details === "object" ? { details: given.details as Record<string, unknown> } : {};
  const reason = typeof given.reason === "string" ? given.reason : undefined;
  const by = (key: string): string => (typeof given[key] === "string" && given[key] !== "" ? (given[key] as string) : tapName);
  if (given.block === true) return { block: true, reason: reason ?? "no reason given", blockedBy: by("blockedBy"), ...details };
  if (given.ask === true) return { ask: true, reason: reason ?? "no reason given", askedBy: by("askedBy"), ...details };
  if (given.allow === true) return { allow: true, ...(reason !== undefined && { reason }), allowedBy: by("allowedBy"), ...details };
  return undefined;
}
