import { realpath, stat } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { ErrorCode, ToolhostError, type PolicyService } from "@toolhost/core";
import { FsError } from "./_errors.js";
import { expandHome } from "./_home.js";
import { FsErrorCode } from "./errors.js";
import type { FsToolOptions, ImageProcessor } from "./options.js";
import { SKIPPED_FOLDERS } from "./skipped.js";

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
  /** `"refuse"`: read, write and edit refuse a file with a name (hard link) outside the roots; `"allow"`: they do not look. */
  hardLinks: "refuse" | "allow";
  /** Folders grep and find skip unless an ignore file or the call says otherwise. */
  skipFolders: readonly string[];
  /** The policy service in force for this call, if any. */
  policy(): PolicyService | undefined;
}

export function createContext(options: FsToolOptions = {}): FsContext {
  const cwd = resolve(options.cwd ?? process.cwd());
  const roots = rootsOf(options, cwd);
  return {
    cwd,
    roots,
    realRoots: realRootsOnce(roots),
    maxSize: positive("maxSize", options.maxSize, DEFAULTS.maxSize),
    maxLines: positive("maxLines", options.maxLines, DEFAULTS.maxLines),
    maxTotalSize: positive("maxTotalSize", options.maxTotalSize, DEFAULTS.maxTotalSize),
    imageProcessor: options.imageProcessor,
    ripgrep: options.ripgrep ?? true,
    overwriteReadOnly: options.overwriteReadOnly ?? false,
    hardLinks: hardLinksOf(options.hardLinks),
    skipFolders: skipFoldersOf(options.skipFolders),
    policy: typeof options.policy === "function" ? options.policy : () => options.policy as PolicyService | undefined,
  };
}

/** The roots, absolute: the workspace by default; relative ones, `~` and `${workspace}` resolved against it. */
function rootsOf(options: FsToolOptions, cwd: string): string[] {
  const workspace = resolve(cwd, options.workspace ?? cwd);
  const given = options.roots && options.roots.length > 0 ? options.roots : [workspace];
  return given.map((root) => resolve(workspace, expandHome(root.replaceAll("${workspace}", workspace))));
}

/** Resolves the roots' symlinks once, on first use; a missing root is an error each time it is asked. */
function realRootsOnce(roots: readonly string[]): () => Promise<string[]> {
  let real: Promise<string[]> | undefined;
  return () => {
    real ??= Promise.all(roots.map(realRoot)).catch((error: unknown) => {
      real = undefined;
      throw error;
    });
    return real;
  };
}

/** A root's real path; a root that is missing, or is a file rather than a folder, is an error naming it. */
async function realRoot(root: string): Promise<string> {
  let real: string;
  try {
    real = await realpath(root);
    if ((await stat(real)).isDirectory()) return real;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new FsError(
      FsErrorCode.ROOT_MISSING,
      `The root folder ${root} of the file tools cannot be used (${code}). Create it, or fix the tool-fs "roots" option.`,
      { root },
    );
  }
  throw new FsError(
    FsErrorCode.ROOT_NOT_FOLDER,
    `The root ${root} of the file tools is a file, not a folder: a root is a folder the tools may touch. Give its folder (${dirname(root)}) in the tool-fs "roots" option, or leave the option out to use the workspace.`,
    { root },
  );
}

function hardLinksOf(value: FsToolOptions["hardLinks"]): "refuse" | "allow" {
  if (value === undefined || value === "refuse" || value === "allow") return value ?? "refuse";
  throw new ToolhostError(
    ErrorCode.INVALID_PLUGIN_OPTIONS,
    `tool-fs option "hardLinks" is "refuse" or "allow", got ${JSON.stringify(value)?.slice(0, 200)}. Fix it where the file tools are created.`,
  );
}

function positive(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 1) {
    throw new ToolhostError(
      ErrorCode.INVALID_PLUGIN_OPTIONS,
      `tool-fs option "${name}" must be a whole number of 1 or more, got ${value}. Fix it where the file tools are created.`,
    );
  }
  return value;
}

/** The skipped folders: each a name or a path's end, matched at any depth below a searched folder. */
function skipFoldersOf(folders: readonly string[] | undefined): readonly string[] {
  if (folders === undefined) return SKIPPED_FOLDERS;
  for (const folder of folders) {
    const bad =
      typeof folder !== "string" || folder.length === 0 || folder.length > 200 || /[\n\r\0\\]/.test(folder) ||
      folder.startsWith("/") || folder.startsWith("!") || folder.startsWith("#") || folder.endsWith("/") || folder.endsWith(" ") ||
      folder.split("/").some((part) => part === "" || part === "." || part === "..");
    if (bad) {
      throw new ToolhostError(
        ErrorCode.INVALID_PLUGIN_OPTIONS,
        `tool-fs option "skipFolders" takes folder names or path ends such as "node_modules" or ".yarn/cache" (no leading "/", "!" or "#", no "..", at most 200 characters), got ${JSON.stringify(folder)?.slice(0, 200)}. Fix it where the file tools are created.`,
      );
    }
  }
  return Object.freeze([...folders]);
}
