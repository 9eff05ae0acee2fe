import type { PluginSetting, ToolConfinement } from "@toolhost/core";
import type { BashToolConfig } from "../options.js";
import type { SandboxUse } from "./_use.js";

/** How the sandbox option turned out: `auto → bwrap 0.8.0 (/usr/bin/bwrap)`, `auto → off: <why>`. */
export function sandboxSetting(use: SandboxUse): string {
  const mode = use.details.mode;
  if (use.kind === "bwrap") return `${mode} → ${use.details.backend ?? "bwrap"}`;
  if (use.kind === "refuse") return `${mode} → none: every call is refused: ${use.reason}`;
  return mode === "off" ? "off" : `${mode} → off: ${use.details.reason ?? "no sandbox"}`;
}

/**
 * The settings the tool runs with, for `toolhost config`: the sandbox as decided at load, what it
 * confines, and the options that change every command. Environment variables by name only.
 */
export function effectiveSettings(config: BashToolConfig, use: SandboxUse, cwd: string): Record<string, PluginSetting> {
  const unenforced = "not enforced (unsandboxed)";
  return {
    sandbox: sandboxSetting(use),
    writable: use.kind === "bwrap" ? [...use.settings.writable] : unenforced,
    network: use.kind === "bwrap" ? use.settings.network : `on: ${unenforced}`,
    commandPrefix: config.commandPrefix ?? null,
    cwd,
    timeout: config.timeout > 0 ? `${config.timeout} s` : "none",
    shell: config.shell ?? "bash, else sh",
    env: Object.keys(config.env ?? {}),
    executionMode: config.executionMode,
  };
}

/**
 * What a sandboxed call can change at most, for the policy (`ToolAccess.confinement`); undefined
 * unsandboxed. It hides what the policy denies to read anywhere (or refuses the call) when the
 * policy service can say what that is (`deniedReads`).
 */
export function confinementOf(use: SandboxUse): ToolConfinement | undefined {
  if (use.kind !== "bwrap") return undefined;
  const hidesDeniedReads = typeof use.policy()?.deniedReads === "function";
  return { writable: [...use.settings.writable], network: use.settings.network === "on", hidesDeniedReads };
}
