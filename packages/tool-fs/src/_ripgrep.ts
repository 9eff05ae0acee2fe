import { existsSync } from "node:fs";

let found: Promise<string | undefined> | undefined;

/**
 * The path of the `rg` binary of `@vscode/ripgrep`, or undefined when the package or its binary is
 * not installed (it is an optional dependency). Looked up once, on first use.
 */
export function ripgrepPath(): Promise<string | undefined> {
  found ??= import("@vscode/ripgrep").then(
    (module: { rgPath?: string }) => (typeof module.rgPath === "string" && existsSync(module.rgPath) ? module.rgPath : undefined),
    () => undefined,
  );
  return found;
}
