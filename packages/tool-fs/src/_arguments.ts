import { isDeepStrictEqual } from "node:util";
import { ErrorCode, ToolhostError } from "@toolhost/core";
import { closestNames } from "./_similar.js";

/** A call's arguments before validation: anything a model sent. */
export type Args = Record<string, unknown>;

export function isArgs(value: unknown): value is Args {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The kernel names the tool around this message ("Could not prepare the arguments of "read": …"). */
export function invalid(message: string): ToolhostError {
  return new ToolhostError(ErrorCode.INVALID_ARGUMENTS, message);
}

/**
 * Moves `args[from]` (another host's name) to `args[to]` (ours), converted by `convert`. Both
 * given with different values is an error: the model meant two things.
 */
export function rename(args: Args, from: string, to: string, convert: (value: unknown) => unknown = (v) => v): void {
  if (!(from in args)) return;
  const value = convert(args[from]);
  delete args[from];
  if (to in args && !isDeepStrictEqual(args[to], value)) {
    throw invalid(`got both "${from}" and "${to}" with different values; send only "${to}".`);
  }
  args[to] = value;
}

/** Refuses an argument another host has but toolhost cannot honour, saying what to send instead. */
export function refuse(args: Args, name: string, instead: string): void {
  if (name in args) throw invalid(`"${name}" is not supported. ${instead}`);
}

/**
 * Refuses any argument the tool does not know, naming the ones it takes and the likely one meant:
 * an unknown argument silently ignored (a `dryRun` that writes) is worse than an error.
 */
export function rejectUnknown(args: Args, allowed: readonly string[], aliases: readonly string[]): void {
  const unknown = Object.keys(args).filter((key) => !allowed.includes(key));
  if (unknown.length === 0) return;
  const parts = unknown.slice(0, 5).map((key) => {
    const near = closestNames(key, [...allowed, ...aliases], 1);
    return `"${key.slice(0, 100)}"${near.length > 0 ? ` (did you mean "${near[0]}"?)` : ""}`;
  });
  const more = unknown.length > 5 ? ` and ${unknown.length - 5} more` : "";
  throw invalid(`unknown argument${unknown.length === 1 ? "" : "s"} ${parts.join(", ")}${more}. It takes: ${allowed.join(", ")}.`,
  );
}
