import { callTap, isThenable, named } from "../_taps.js";
import type { BeforeToolCallResult, ToolDecision } from "../types/index.js";
import { type HookInterceptor, type HookTap, install, KernelHookBase, tapWatchers, watched } from "./base.js";

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
    install<TArgs, ToolDecision | undefined>(this, (...callArgs) =>
      watched(this.interceptors, callArgs, () => decideFrom(this, callArgs, 0, undefined, tapWatchers(this.interceptors))),
    );
  }
}

type Answer = ToolDecision | undefined;

/** The taps from `start` on, in order; a promise only from the first tap that gives one. */
function decideFrom<TArgs extends unknown[]>(
  hook: DecisionHook<TArgs>,
  args: TArgs,
  start: number,
  allowed: Answer,
  watchers: HookInterceptor<TArgs, Answer>[] | undefined,
): Answer | Promise<Answer> {
  const { taps } = hook;
  for (let i = start; i < taps.length; i++) {
    const tap = taps[i] as HookTap;
    if (watchers) for (const each of watchers) each.tap?.(tap);
    let answer: unknown;
    try {
      answer = callTap(tap, args);
    } catch (error) {
      throw named(error, tap.name, hook.name ?? "beforeToolCall");
    }
    if (isThenable(answer)) {
      return Promise.resolve(answer).then(
        (value) => {
          const decided = decisionNamed(value, tap, hook);
          if (decided !== undefined && !("allow" in decided)) return decided;
          return decideFrom(hook, args, i + 1, allowed ?? decided, watchers);
        },
        (error: unknown) => {
          throw named(error, tap.name, hook.name ?? "beforeToolCall");
        },
      );
    }
    const decided = decisionNamed(answer, tap, hook);
    if (decided === undefined) continue;
    if (!("allow" in decided)) return decided;
    allowed ??= decided;
  }
  return allowed;
}

function decisionNamed(answer: unknown, tap: HookTap, hook: { name: string | undefined }): Answer {
  try {
    return decisionOf(answer, tap.name);
  } catch (error) {
    throw named(error, tap.name, hook.name ?? "beforeToolCall");
  }
}

/** A tap's answer as a decision named after the tap, or undefined when it is no answer. */
function decisionOf(answer: unknown, tapName: string): Answer {
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
