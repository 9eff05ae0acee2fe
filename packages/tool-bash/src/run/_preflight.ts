import { statSync } from "node:fs";
import { resolve } from "node:path";
import { findOnPath, isExecutable } from "../_programs.js";

/** Why the command cannot run in `cwd`, or undefined when the folder is there. */
export function checkCwd(cwd: string): string | undefined {
  try {
    if (statSync(cwd).isDirectory()) return undefined;
    return `Cannot run the command: the working directory ${cwd} is not a folder. Set the bash tool's "cwd" option to a folder.`;
  } catch {
    return `Cannot run the command: the working directory ${cwd} does not exist. Create it, or set the bash tool's "cwd" option to an existing folder.`;
  }
}

/** The shell to run: the option (a name on PATH, or a path against `cwd`), else bash, else sh. */
export function findShell(option: string | undefined, pathVariable: string | undefined, cwd: string): string | undefined {
  for (const name of option !== undefined ? [option] : ["bash", "sh"]) {
    if (name.includes("/")) {
      const path = resolve(cwd, name);
      if (isExecutable(path)) return path;
      continue;
    }
    const path = findOnPath(name, pathVariable);
    if (path !== undefined) return path;
  }
  return undefined;
}

/** What the model is told when no shell was found. */
export function shellNotFound(option: string | undefined, pathVariable: string | undefined): string {
  return option
    ? `Cannot run the command: the shell "${option}" was not found or is not executable (PATH: ${pathVariable ?? "unset"}). Install it, or set the bash tool's "shell" option to an existing shell.`
    : `Cannot run the command: neither bash nor sh was found on PATH (${pathVariable ?? "unset"}). Install bash, or set the bash tool's "shell" option.`;
}

/** What the model is told when the tool requires a sandbox that cannot be made. */
export function sandboxUnavailable(reason: string): string {
  return `Refused: the bash tool must run commands in a sandbox ("sandbox": "required"), and none can be made here: ${reason} No command runs until then. Tell the user; they may also set "sandbox": "auto" to run commands unsandboxed.`;
}
