import { sep } from "node:path";

/**
 * Whether `path` is `folder` or lies under it. Both must be absolute and normalized (as
 * `ToolAccess` paths are); no symlink is followed and nothing touches the disk. The one check that
 * tools, sandboxes and policies share when they compare a declared path with a root.
 */
export function isInside(path: string, folder: string): boolean {
  return path === folder || path.startsWith(folder.endsWith(sep) ? folder : `${folder}${sep}`);
}
