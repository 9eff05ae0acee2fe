import { ToolhostError, messageOf } from "./errors.js";

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

/** A tap as tapable keeps it (tapable does not export the type). */
export interface FullTap {
  name: string;
  type: "sync" | "async" | "promise";
  fn: Function;
  stage?: number;
  before?: string;
}

/** Any tapable hook, as far as naming its taps goes. */
interface Interceptable {
  intercept(interceptor: { register?: (tap: FullTap) => FullTap }): void;
}

/**
 * Makes every tap of `hook` name itself when it throws (a `register` interceptor, as webpack uses
 * them: for naming and tracing, never to change what a tap returns).
 */
export function nameThrowingTaps(hook: Interceptable, hookName: string): void {
  hook.intercept({
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
 * Calls one tap: its answer, or a promise of it. The pipeline calls the taps of `beforeToolCall`
 * and `afterToolCall` itself, one by one (it needs to know which tap answered, and to merge each
 * answer), and a hook's only tap directly; it names a tap that throws with `named`.
 */
export function callTap(tap: FullTap, a: unknown, b?: unknown, c?: unknown): unknown {
  const { type, fn } = tap;
  if (type !== "async") return fn(a, b, c);
  return new Promise((resolve, reject) => {
    fn(a, b, c, (error: unknown, answer: unknown) => (error ? reject(error) : resolve(answer)));
  });
}
