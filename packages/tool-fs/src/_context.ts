import { realpath } from "node:fs/promises";
import { resolve } from "node:path";
import { ErrorCode, ToolhostError, type PolicyService } from "@toolhost/core";
import { FsError } from "./_errors.js";
import { expandHome } from "./_home.js";
import { FsErrorCode } from "./errors.js";
import type { FsToolOptions, ImageProcessor } from "./options.js";

export const DEFAULTS = Object.freeze({
  maxSize: 1024 * 1024,
  maxLines: 2000,
  maxTotalSize: 10 * 1024 * 1024,
});

/** The options every tool works with, filled in. */
export interface FsContext {
  cwd: string;
  /** The roots as configured (absolute), for messages. */
  roots: string[];
  /** The roots with symlinks resolved; computed once. */
  realRoots(): Promise<string[]>;
  maxSize: number;
  maxLines: number;
  maxTotalSize: number;
  imageProcessor: ImageProcessor | undefined;
  ripgrep: boolean;
  overwriteReadOnly: boolean;
  /** The policy service in force for this call, if any. */
  policy(): PolicyService | undefined;
}

export function createContext(options: FsToolOptions = {}): FsContext {
  const cwd = resolve(options.cwd ?? process.cwd());
  const roots = (options.roots && options.roots.length > 0 ? options.roots : [cwd]).map((root) =>
    resolve(cwd, expandHome(root)),
  );
  let real: Promise<string[]> | undefined;
  const positive = (name: string, value: number | undefined, fallback: number): number => {
    if (value === undefined) return fallback;
    if (!Number.isInteger(value) || value < 1) {
      throw new ToolhostError(
        ErrorCode.INVALID_PLUGIN_OPTIONS,
        `tool-fs option "${name}" must be a whole number of 1 or more, got ${value}. Fix it where the file tools are created.`,
      );
    }
    return value;
  };
  return {
    cwd,
    roots,
    realRoots() {
      real ??= Promise.all(
        roots.map((root) =>
          realpath(root).catch((error: NodeJS.ErrnoException) => {
            real = undefined;
            throw new FsError(
              FsErrorCode.ROOT_MISSING,
              `The root folder ${root} of the file tools cannot be used (${error.code ?? error.message}). Create it, or fix the tool-fs "roots" option.`,
              { root },
            );
          }),
        ),
      );
      return real;
    },
    maxSize: positive("maxSize", options.maxSize, DEFAULTS.maxSize),
    maxLines: positive("maxLines", options.maxLines, DEFAULTS.maxLines),
    maxTotalSize: positive("maxTotalSize", options.maxTotalSize, DEFAULTS.maxTotalSize),
    imageProcessor: options.imageProcessor,
    ripgrep: options.ripgrep ?? true,
    overwriteReadOnly: options.overwriteReadOnly ?? false,
    policy: typeof options.policy === "function" ? options.policy : () => options.policy as PolicyService | undefined,
  };
}
