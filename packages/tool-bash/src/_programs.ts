import { accessSync, constants, statSync } from "node:fs";
import { delimiter, join } from "node:path";

/** An executable file named `name` in a folder of `pathVariable`. */
export function findOnPath(name: string, pathVariable: string | undefined): string | undefined {
  for (const folder of (pathVariable ?? "/usr/bin:/bin").split(delimiter)) {
    if (folder.length === 0) continue;
    const path = join(folder, name);
    if (isExecutable(path)) return path;
  }
  return undefined;
}

export function isExecutable(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
