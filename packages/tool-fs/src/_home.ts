import { homedir } from "node:os";
import { join } from "node:path";

/** `~` and `~/…` as the home folder, as a shell would; any other path unchanged. */
export function expandHome(path: string): string {
  if (path === "~") return homedir();
  if (path.startsWith("~/")) return join(homedir(), path.slice(2));
  return path;
}
