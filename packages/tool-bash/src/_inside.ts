import { sep } from "node:path";

/** Whether `path` is `folder` or lies under it (both absolute and normalized). */
export function isInside(path: string, folder: string): boolean {
  return path === folder || path.startsWith(folder.endsWith(sep) ? folder : `${folder}${sep}`);
}
