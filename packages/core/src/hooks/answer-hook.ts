import { callTap, isThenable, named } from "../_taps.js";
import type { ApprovalAnswer, ApprovalResult } from "../types/index.js";
import { install, KernelHookBase, tapWatchers, watchCall, watchEnd } from "./base.js";

/**
 * A hook where the first answer wins (`approve`): taps run in order until one answers with an
 * object; `undefined` and `null` pass on to the next. `promise()` resolves to that answer with the
 * tap that gave it (`answeredBy`), or undefined when no tap answered, which the pipeline reads as
 * "no one could approve it". A tap that throws rejects it with an error naming the tap.
 */
export class AnswerHook<TArgs extends unknown[]> extends KernelHookBase<TArgs, ApprovalResult, ApprovalAnswer | undefined> {
  constructor(args: readonly string[], name: string) {
    super(args, name);
    install<TArgs, ApprovalAnswer | undefined>(this, (...callArgs) => firstAnswer(this, callArgs));
  }
}

async function firstAnswer<TArgs extends unknown[]>(hook: AnswerHook<TArgs>, args: TArgs): Promise<ApprovalAnswer | undefined> {
  const { taps, interceptors } = hook;
  if (interceptors.length > 0) watchCall(interceptors, args);
  const watchers = tapWatchers(interceptors);
  let found: ApprovalAnswer | undefined;
  try {
    for (const tap of taps) {
      if (watchers) for (const each of watchers) each.tap?.(tap);
      try {
        let answer = callTap(tap, args);
        if (isThenable(answer)) answer = await answer;
        if (answer === null || typeof answer !== "object") continue;
        found = { ...(answer as ApprovalResult), answeredBy: tap.name };
      } catch (error) {
        throw named(error, tap.name, hook.name ?? "approve");
      }
      break;
    }
  } catch (error) {
    if (interceptors.length > 0) watchEnd(interceptors, { error: error as Error });
    throw error;
  }
  if (interceptors.length > 0) watchEnd(interceptors, { result: found });
  return found;
}
