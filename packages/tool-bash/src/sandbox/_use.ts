import { resolve } from "node:path";
import type { PolicyService } from "@toolhost/core";
import { probeSandbox } from "./_probe.js";
import type { SandboxSettings } from "./_plan.js";
import type { BashSandboxDetails, SandboxMode } from "../details.js";

/** How the calls of a tool run, decided once (the probe) and given to each call. */
export type SandboxUse =
  | { kind: "off"; details: BashSandboxDetails }
  | { kind: "refuse"; reason: string; details: BashSandboxDetails }
  | {
      kind: "bwrap";
      settings: Omit<SandboxSettings, "visible">;
      /** The harness's policy service, asked at each call (it may be applied after this plugin). */
      policy: () => PolicyService | undefined;
      details: BashSandboxDetails;
    };

export interface SandboxOptions {
  sandbox: SandboxMode;
  writable: readonly string[];
  network: "on" | "off";
}

/** `${workspace}` replaced, relative paths against the workspace. */
export function writableFolders(entries: readonly string[], workspace: string): string[] {
  return entries.map((entry) => resolve(workspace, entry.replaceAll("${workspace}", workspace)));
}

/** Probes bubblewrap (once per process) unless the option is "off", and says how calls run. */
export async function resolveSandbox(
  options: SandboxOptions,
  workspace: string,
  pathVariable: string | undefined,
  policy: () => PolicyService | undefined,
): Promise<SandboxUse> {
  const mode = options.sandbox;
  if (mode === "off") return { kind: "off", details: { mode, enforced: false } };
  const probe = await probeSandbox(pathVariable);
  if (!probe.ok) {
    const details = { mode, enforced: false, reason: probe.reason };
    return mode === "required" ? { kind: "refuse", reason: probe.reason, details } : { kind: "off", details };
  }
  const writable = writableFolders(options.writable, workspace);
  return {
    kind: "bwrap",
    settings: { bwrap: probe.bwrap, workspace, writable, network: options.network },
    policy,
    details: { mode, enforced: true, backend: `bwrap${probe.version ? ` ${probe.version}` : ""} (${probe.bwrap})`, network: options.network, writable },
  };
}

/** One line on how calls run, for the tool's description and the load-time warning. */
export function describeSandbox(use: SandboxUse): string {
  if (use.kind === "bwrap") {
    const { writable, network } = use.settings;
    return `Commands run in a sandbox: they may write only in ${writable.join(", ") || "no folder"} and a private /tmp (the rest of the system is read-only), files the policy denies to read look empty, and the network is ${network === "off" ? "off" : "on"}.`;
  }
  if (use.kind === "refuse") return `No sandbox can be made here, and the tool requires one: every call is refused (${use.reason})`;
  return use.details.mode === "off" ? "Commands run unsandboxed." : `Commands run unsandboxed: ${use.details.reason}`;
}
