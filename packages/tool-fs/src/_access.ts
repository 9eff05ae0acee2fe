import type { CheckedPath } from "./_paths.js";

/** A checked path as an access declaration lists it: as written (absolute) and, when a link leads elsewhere, where it lands. */
export function both(path: CheckedPath): string[] {
  return path.real === path.absolute ? [path.absolute] : [path.absolute, path.real];
}
