import picomatch from "picomatch";
import { ToolhostError } from "@toolhost/core";
import { McpErrorCode } from "./errors.js";

const MAX_NAME = 64;

/** `<server>__<tool>`, reduced to what model APIs accept: `^[a-zA-Z0-9_-]{1,64}$`. */
export function toolhostName(server: string, tool: string): string {
  const name = `${server}__${tool}`.replace(/[^a-zA-Z0-9_-]/g, "_");
  return name.slice(0, MAX_NAME);
}

/** Whether a server's tool is shown: it matches an `include` glob (or there is none) and no `exclude` glob. */
export function toolFilter(include: string[] | undefined, exclude: string[] | undefined): (tool: string) => boolean {
  const included = include && include.length > 0 ? picomatch(include) : () => true;
  const excluded = exclude && exclude.length > 0 ? picomatch(exclude) : () => false;
  return (tool) => included(tool) && !excluded(tool);
}

/** Records names as they are taken; a second tool reducing to a taken name is an error naming both. */
export class NameRegistry {
  readonly #owners = new Map<string, string>();

  take(name: string, owner: string, isTaken: (name: string) => string | undefined): void {
    const existing = this.#owners.get(name) ?? isTaken(name);
    if (existing !== undefined) {
      throw new ToolhostError(
        McpErrorCode.NAME_COLLISION,
        `@toolhost/tool-mcp: ${owner} and ${existing} both become the tool name "${name}" (names are <server>__<tool>, reduced to letters, digits, "_" and "-", at most ${MAX_NAME} characters). Rename a server in the config, or exclude one of the tools.`,
      );
    }
    this.#owners.set(name, owner);
  }
}
