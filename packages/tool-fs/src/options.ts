import type { ImageContent, PolicyService, TextContent } from "@toolhost/core";

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
  /**
   * The project folder: the default root, and the folder relative roots resolve against. Default
   * `cwd`; the plugin uses the harness's `workspace` (the config file's folder), so a host started
   * in a subfolder still has the whole project as its root.
   */
  workspace?: string;
  /**
   * The folders the tools may touch, after symlinks are resolved. Default `[workspace]`. Relative
   * ones resolve against `workspace`; `~` is the home folder and `${workspace}` the workspace.
   */
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
  /**
   * Folders `grep` and `find` skip below the searched folder unless an ignore file brings them back
   * (`!node_modules/`) or a call sends `includeSkipped: true`: names or a path's end
   * (`.yarn/cache`), matched at any depth. Default `SKIPPED_FOLDERS` (node_modules, .venv, the
   * caches of build tools…); `[]` skips none.
   */
  skipFolders?: string[];
  /**
   * `true` lets `write` and `edit` replace a read-only file (no write permission bit), keeping its
   * mode. Default `false`: they refuse, as editors do.
   */
  overwriteReadOnly?: boolean;
  /**
   * A regular file with several names (hard links) is one file: `"refuse"` (the default) makes
   * read, write and edit refuse one that has a name outside the roots, whose content is not the
   * roots' to show or change; `"allow"` treats it as any file (a package manager's store linked
   * into `node_modules`, as pnpm's is, then reads).
   */
  hardLinks?: "refuse" | "allow";
  /**
   * The policy whose `protectedPaths(tree).denyRead` `ls`, `find` and `grep` leave out. The plugin
   * uses the harness's `"policy"` service; the factories take it here (code only). Default: none.
   */
  policy?: PolicyService | (() => PolicyService | undefined);
}

