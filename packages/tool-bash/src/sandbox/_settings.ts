import { type PluginSetting, type ToolConfinement, isInside } from "@toolhost/core";
import type { BashToolConfig } from "../options.js";
import { existingReal, unique } from "./_hide.js";
import { systemView } from "./_system.js";
import { type SandboxSettings, type SandboxUse, limitsSetting } from "./_use.js";
import { fullOutputBound } from "../_full-output.js";
import { bytesText } from "../_numbers.js";

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
  const boxed = use.kind === "bwrap" ? use.settings : undefined;
  const minimal = boxed?.root === "minimal";
  // The host root reports what the sandbox reported before the minimal root, and its limits when some are set.
  const limited = boxed?.limits !== undefined;
  return {
    sandbox: sandboxSetting(use),
    ...(minimal && { root: "minimal: the system folders read-only (/etc's secrets covered), a private /tmp, /dev, /proc, an empty home folder" }),
    writable: boxed ? [...boxed.writable] : unenforced,
    ...(minimal && { readable: [...systemView().readable, ...boxed.readable] }),
    network: boxed ? networkSetting(boxed.network, boxed.destinations) : `on: ${unenforced}`,
    ...((minimal || limited) && { limits: limitsSetting(use) }),
    commandPrefix: config.commandPrefix ?? null,
    cwd,
    timeout: config.timeout > 0 ? `${config.timeout} s` : "none",
    shell: config.shell ?? "bash, else sh",
    env: Object.keys(config.env ?? {}),
    executionMode: config.executionMode,
    fullOutput: fullOutputSetting(config, boxed),
  };
}

/** Where a truncated call's whole output goes on the host, and how much of it at most. */
function fullOutputSetting(config: BashToolConfig, boxed: SandboxSettings | undefined): string {
  if (!config.keepFullOutput) return "not kept (keepFullOutput: false)";
  const fileSize = boxed?.limits?.values.fileSizeBytes ?? config.limits?.fileSizeBytes;
  const bound = fullOutputBound(config.fullOutputBytes, fileSize);
  const from = config.fullOutputBytes !== undefined ? "fullOutputBytes" : fileSize !== undefined ? "the call's fileSizeBytes" : "default";
  const lifetime = config.fullOutputLifetime > 0 ? `, each kept ${config.fullOutputLifetime} s` : ", kept until the harness is disposed";
  return `a private file per truncated call, at most ${bytesText(bound)} (${from})${lifetime}`;
}

function networkSetting(network: "off" | "proxy" | "host", destinations: readonly string[]): string {
  if (network !== "proxy") return network;
  const through = destinations.length > 0 ? `; let through without asking: ${destinations.join(", ")}` : "";
  return `proxy: each destination asked of the policy${through}`;
}

/** What a call will see that its folders do not hold: where it runs, the programs run by path, the tool's full-output folder. */
export interface CallReach {
  cwd: string;
  programs: readonly string[];
  visible: readonly string[];
}

/**
 * What a sandboxed call can reach at most, for the policy (`ToolAccess.confinement`); undefined
 * unsandboxed. Under the host root it says what it said before the minimal root (writable folders,
 * the network as a boolean, whether denied reads are hidden), plus the limits when some are set.
 */
export function confinementOf(use: SandboxUse, reach: CallReach): ToolConfinement | undefined {
  if (use.kind !== "bwrap") return undefined;
  const { settings } = use;
  const hidesDeniedReads = typeof use.policy()?.deniedReads === "function";
  const writable = unique(settings.writable.map((path) => existingReal(path)).filter((path): path is string => path !== undefined));
  const limits = settings.limits && Object.keys(settings.limits.values).length > 0 ? { limits: { ...settings.limits.values } } : {};
  const destinations = settings.network === "proxy" ? { destinations: [...settings.destinations] } : {};
  if (settings.root === "host") {
    const network = settings.network === "proxy" ? "proxy" : settings.network === "host";
    return { writable: [...settings.writable], network, hidesDeniedReads, ...destinations, ...limits };
  }
  const readable = [...systemView().readable];
  for (const path of [...settings.readable, reach.cwd, ...reach.programs, ...reach.visible]) {
    const real = existingReal(path);
    if (real !== undefined && real !== "/tmp" && ![...readable, ...writable].some((folder) => isInside(real, folder))) readable.push(real);
  }
  // A file of the writable folders with a name elsewhere is written there too: its file system is writable.
  const links = writable.length > 0 ? use.hardLinkScan.current(writable) : undefined;
  const reachable = links && (links.files > 0 || !links.complete) ? links.reach : [];
  return { root: "minimal", writable: unique([...writable, ...reachable]), readable, network: settings.network, hidesDeniedReads, ...destinations, ...limits };
}
