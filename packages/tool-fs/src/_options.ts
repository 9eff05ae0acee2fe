import { realpath } from "node:fs/promises";
import { resolve } from "node:path";
import { ErrorCode, ToolhostError, type ImageContent, type TextContent } from "@toolhost/core";
import { FsError, FsErrorCode } from "./_errors.js";
import { expandHome } from "./_paths.js";

/** What `imageProcessor` is told about the image it gets. */
export interface ImageInfo {
  /** The path as the model gave it. */
  path: string;
  /** `image/png`, `image/jpeg`, `image/gif` or `image/webp`. */
  mimeType: string;
}

/**
 * Called by `read` with the bytes of an image (at most `maxSize`): return the block the model
 * sees instead of the image, e.g. a resized image or a text description.
 */
export type ImageProcessor = (
  image: Buffer,
  info: ImageInfo,
) => TextContent | ImageContent | Promise<TextContent | ImageContent>;

/** Options of the file tools, shared by every factory and the plugin. */
export interface FsToolOptions {
  /** Relative paths resolve against it. Default `process.cwd()` (the plugin uses the harness's `cwd`). */
  cwd?: string;
  /** The folders the tools may touch, after symlinks are resolved. Default `[cwd]`. */
  roots?: string[];
  /** Bytes: the most `read` returns in one call, and the largest image it returns. Default 1 MiB. */
  maxSize?: number;
  /** The most lines `read` returns in one call. Default 2000. */
  maxLines?: number;
  /** Bytes: the most output `ls`, `find` and `grep` return in one call. Default 10 MiB. */
  maxTotalSize?: number;
  /** Turns the images `read` finds into what the model sees. Default: the image itself. */
  imageProcessor?: ImageProcessor;
  /** `false` makes `grep` use its plain Node search even when ripgrep is installed. Default `true`. */
  ripgrep?: boolean;
}

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
  };
}
