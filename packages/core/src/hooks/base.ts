import TapableHook from "tapable/lib/Hook.js";

/** A tap as a hook keeps it: its name, how it is called, its function and where it is placed (tapable does not export the type). */
export interface HookTap {
  name: string;
  type: "sync" | "async" | "promise";
  fn: Function;
  stage?: number;
  before?: string;
}
type FullTap = HookTap;

/** How a tap is placed: its name (the plugin's), and optionally a stage (lower runs first) or the taps it runs before. */
export interface HookTapOptions {
  name: string;
  stage?: number;
  before?: string;
}

/**
 * Watches a hook (`hook.intercept`), as webpack's progress and timing do: `call` when it is called,
 * `tap` before each tap runs, `result` with what it resolves to, `error` when it rejects, `done`
 * after either; `register` sees (and may wrap) each tap as it is added.
 */
export interface HookInterceptor<TArgs extends unknown[], TResult> {
  name?: string;
  register?: (tap: FullTap) => FullTap;
  call?: (...args: TArgs) => void;
  tap?: (tap: FullTap) => void;
  result?: (result: TResult) => void;
  error?: (error: Error) => void;
  done?: () => void;
}

/**
 * The tap side of a tapable hook, with the answer a tap gives (`TAnswer`) and what the hook's
 * `promise` resolves to (`TResult`): the shape of the kernel's own hook classes.
 */
export interface KernelHook<TArgs extends unknown[], TAnswer, TResult> {
  readonly name: string | undefined;
  readonly taps: FullTap[];
  readonly interceptors: HookInterceptor<TArgs, TResult>[];
  tap(options: string | HookTapOptions, fn: (...args: TArgs) => TAnswer | undefined): void;
  tapPromise(options: string | HookTapOptions, fn: (...args: TArgs) => Promise<TAnswer | undefined>): void;
  tapAsync(options: string | HookTapOptions, fn: (...args: [...TArgs, (error?: Error | null, answer?: TAnswer) => void]) => void): void;
  intercept(interceptor: HookInterceptor<TArgs, TResult>): void;
  isUsed(): boolean;
  /** Runs the taps as the pipeline does, and resolves to what the pipeline acts on. */
  promise(...args: TArgs): Promise<TResult>;
  /** `promise`, with a Node-style callback. */
  callAsync(...args: [...TArgs, (error: Error | null, result?: TResult) => void]): void;
}

type KernelHookConstructor = new <TArgs extends unknown[], TAnswer, TResult>(
  args: readonly string[],
  name: string,
) => KernelHook<TArgs, TAnswer, TResult>;

/** tapable's `Hook`, typed as the kernel's hooks use it. */
export const KernelHookBase = TapableHook as unknown as KernelHookConstructor;

/** Where a kernel hook keeps the function its `promise` runs, for the pipeline to call without a promise when no tap made one. */
const RUN = Symbol("toolhost:run");

type Run<TArgs extends unknown[], TResult> = (...args: TArgs) => TResult | Promise<TResult>;

/**
 * Installs `run` as a hook's `promise` and `callAsync`, where tapable would compile code from its
 * taps: tapable resets both to `_promise` / `_callAsync` whenever a tap or interceptor is added, so
 * those are set too. `call` (synchronous) is not offered: these hooks run promise taps. `run` gives
 * its answer at once when no tap gave a promise (`runHook`, the pipeline's way in); `promise`
 * wraps that same answer in a promise.
 */
export function install<TArgs extends unknown[], TResult>(hook: object, run: Run<TArgs, TResult>): void {
  const promise = (...args: TArgs): Promise<TResult> => {
    try {
      return Promise.resolve(run(...args));
    } catch (error) {
      return Promise.reject(error);
    }
  };
  const callAsync = (...args: unknown[]): void => {
    const callback = args.pop() as (error: Error | null, result?: TResult) => void;
    promise(...(args as TArgs)).then(
      (result) => callback(null, result),
      (error: Error) => callback(error),
    );
  };
  Object.assign(hook, { [RUN]: run, promise, _promise: promise, callAsync, _callAsync: callAsync, call: undefined, _call: undefined });
}

/**
 * Runs a kernel hook as its `promise` does, but gives the answer itself when no tap made a promise
 * (a throw is thrown): the pipeline's way in, so that a call costs a promise only where a tap is async.
 */
// biome-ignore lint: any answer type; the hook is known by its arguments and result.
export function runHook<TArgs extends unknown[], TResult>(hook: KernelHook<TArgs, any, TResult>, ...args: TArgs): TResult | Promise<TResult> {
  return (hook as unknown as { [RUN]: Run<TArgs, TResult> })[RUN](...args);
}

/** `run`'s answer, with the interceptors told how it ended (at once, or when its promise settles). */
export function watched<TArgs extends unknown[], TResult>(
  interceptors: HookInterceptor<TArgs, TResult>[],
  args: TArgs,
  run: () => TResult | Promise<TResult>,
): TResult | Promise<TResult> {
  if (interceptors.length === 0) return run();
  watchCall(interceptors, args);
  let out: TResult | Promise<TResult>;
  try {
    out = run();
  } catch (error) {
    watchEnd(interceptors, { error: error as Error });
    throw error;
  }
  if (!isThenable(out)) {
    watchEnd(interceptors, { result: out });
    return out;
  }
  return Promise.resolve(out).then(
    (result) => {
      watchEnd(interceptors, { result });
      return result;
    },
    (error: Error) => {
      watchEnd(interceptors, { error });
      throw error;
    },
  );
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return value !== null && typeof value === "object" && typeof (value as PromiseLike<unknown>).then === "function";
}

/** Tells the interceptors of a call that it started; the `tap` interceptors, per tap, are told by `tapWatchers`. */
export function watchCall<TArgs extends unknown[], TResult>(interceptors: HookInterceptor<TArgs, TResult>[], args: TArgs): void {
  for (const each of interceptors) each.call?.(...args);
}

/** The interceptors that watch each tap (`tap`), or undefined when none does: the common case costs one check. */
export function tapWatchers<TArgs extends unknown[], TResult>(interceptors: HookInterceptor<TArgs, TResult>[]): HookInterceptor<TArgs, TResult>[] | undefined {
  if (interceptors.length === 0) return undefined;
  const found = interceptors.filter((each) => each.tap !== undefined);
  return found.length > 0 ? found : undefined;
}

/** Tells the interceptors how the call ended. */
export function watchEnd<TArgs extends unknown[], TResult>(
  interceptors: HookInterceptor<TArgs, TResult>[],
  outcome: { result: TResult } | { error: Error },
): void {
  for (const each of interceptors) {
    if ("error" in outcome) each.error?.(outcome.error);
    else each.result?.(outcome.result);
    each.done?.();
  }
}
