/** A phase of a call, in the order they happen. */
export type Phase = "start" | "prepared" | "spawned" | "first-byte" | "exit" | "tree-checked" | "drained" | "result";

let listener: ((call: string, phase: Phase, at: number) => void) | undefined;

/**
 * For `bench/bash` (not exported from the package): told each phase of every call with
 * `performance.now()`, to write the per-call timeline. Nothing is measured while none is set.
 */
export function onPhase(next: typeof listener): void {
  listener = next;
}

export function mark(call: string, phase: Phase): void {
  listener?.(call, phase, performance.now());
}
