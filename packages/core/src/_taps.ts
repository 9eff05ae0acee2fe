import { ToolhostError, messageOf } from "./errors.js";
import type { HookTap as FullTap } from "./hooks/base.js";

export type { FullTap };

/** An error thrown by a tap, naming it: `beforeToolCall tap "my-policy" threw: …`. */
export class TapError extends ToolhostError {
  constructor(
    readonly tapName: string,
    readonly hookName: string,
    cause: unknown,
  ) {
    super(
      cause instanceof ToolhostError ? cause.code : "TOOLHOST_TAP_FAILED",
      `${hookName} tap "${tapName}" threw: ${messageOf(cause)}`,
      { cause },
    );
  }
}

export function named(error: unknown, tapName: string, hookName: string): TapError {
  return error instanceof TapError ? error : new TapError(tapName, hookName, error);
}

/** Any tapable hook, as far as naming its taps goes. */
interface Interceptable {
  intercept(interceptor: { register?: (tap: FullTap) => FullTap; [KERNEL_INTERCEPTOR]?: true }): void;
}

/**
 * Marks the kernel's own interceptors (tapable copies an interceptor's own properties, symbols
 * included), so that "no one else intercepts this hook" is a question about marks, not a count.
 */
const KERNEL_INTERCEPTOR = Symbol("toolhost:kernel-interceptor");

/**
 * When a hook has only its kernel tap and no interceptor but the kernel's, that tap, to call
 * directly: tapable's compiled promise chain costs more than the tap.
 */
export function onlyTap(hook: { taps: FullTap[]; interceptors: readonly object[] }): FullTap | undefined {
  if (hook.taps.length !== 1) return undefined;
  for (const each of hook.interceptors) if ((each as { [KERNEL_INTERCEPTOR]?: true })[KERNEL_INTERCEPTOR] !== true) return undefined;
  return hook.taps[0];
}

export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return value !== null && typeof value === "object" && typeof (value as PromiseLike<unknown>).then === "function";
}

/**
 * Makes every tap of `hook` name itself when it throws (a `register` interceptor, as webpack uses
 * them: for naming and tracing, never to change what a tap returns).
 */
export function nameThrowingTaps(hook: Interceptable, hookName: string): void {
  hook.intercept({
    [KERNEL_INTERCEPTOR]: true,
    register: (tap) => {
      const { fn, name } = tap;
      if (tap.type === "promise") {
        const wrapped = (...args: unknown[]): Promise<unknown> => {
          try {
            return Promise.resolve(fn(...args)).catch((error: unknown) => Promise.reject(named(error, name, hookName)));
          } catch (error) {
            return Promise.reject(named(error, name, hookName));
          }
        };
        return { ...tap, fn: wrapped };
      }
      if (tap.type === "async") {
        const wrapped = (...args: unknown[]): void => {
          const callback = args.pop() as (error: unknown, answer?: unknown) => void;
          try {
            fn(...args, (error: unknown, answer: unknown) => (error ? callback(named(error, name, hookName)) : callback(null, answer)));
          } catch (error) {
            callback(named(error, name, hookName));
          }
        };
        return { ...tap, fn: wrapped };
      }
      const wrapped = (...args: unknown[]): unknown => {
        try {
          return fn(...args);
        } catch (error) {
          throw named(error, name, hookName);
        }
      };
      return { ...tap, fn: wrapped };
    },
  });
}

/**
 * Calls one tap: its answer, or a promise of it. The kernel's own hook classes run their taps with
 * it, one by one, and the pipeline calls a tapable hook's only tap directly; whoever calls names a
 * tap that throws with `named`.
 */
export function callTap(tap: FullTap, args: readonly unknown[]): unknown {
  const { type, fn } = tap;
  if (type !== "async") return args.length === 1 ? fn(args[0]) : args.length === 2 ? fn(args[0], args[1]) : args.length === 3 ? fn(args[0], args[1], args[2]) : fn(...args);
  // A callback tap gets the hook's arguments, then its callback: in place, however many they are.
  return new Promise((resolve, reject) => {
    fn(...args, (error: unknown, answer: unknown) => (error ? reject(error) : resolve(answer)));
  });
}
