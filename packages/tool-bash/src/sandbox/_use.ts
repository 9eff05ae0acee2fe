import { homedir } from "node:os";
import { resolve } from "node:path";
import type { NetworkMode, PolicyService, ToolLimits } from "@toolhost/core";
import type { BashSandboxDetails, SandboxMode } from "../details.js";
import { type EffectiveLimits, defaultLimits, effectiveLimits, limitsSummary } from "../limits/_limits.js";
import { limitMechanisms } from "../limits/_mechanisms.js";
import { HardLinkScan } from "./_hard-links.js";
import { LauncherPool } from "./_launcher.js";
import { systemProgram } from "../_programs.js";
import { type SandboxProbe, probeSandbox } from "./_probe.js";
import { seccompProgram, seccompUnsupported } from "./_seccomp.js";

/** What a sandboxed call may do, from the tool's options, decided once per tool. */
export interface SandboxSettings {
  bwrap: string;
  /** The project folder: always visible, and the root the policy is asked about. */
  workspace: string;
  root: "minimal" | "host";
  /** Absolute folders commands may write to (those that do not exist are left out). */
  writable: readonly string[];
  /** Minimal root: absolute host paths commands may read besides the system folders. */
  readable: readonly string[];
  /** The home folder commands see (empty under the minimal root). */
  home: string | undefined;
  network: NetworkMode;
  /** Under "proxy": `host:port` patterns let through without asking. */
  destinations: readonly string[];
  limits: EffectiveLimits | undefined;
  hardLinks: "declare" | "refuse";
  /** util-linux's nsenter, which runs the sandbox in the proxy's network namespace. */
  nsenter: string | undefined;
  /** Whether bwrap can bound a tmpfs's size (`--size`). */
  sizedTmpfs: boolean;
  /** bash, which waits in the next call's cgroups (see `LauncherPool`); none: each call enters them itself. */
  bash: string | undefined;
  /** The seccomp filter every call runs under (`_seccomp.ts`). */
  seccomp: Buffer;
}

/** How the calls of a tool run, decided once (the probe) and given to each call. */
export type SandboxUse =
  | { kind: "off"; details: BashSandboxDetails }
  | { kind: "refuse"; reason: string; details: BashSandboxDetails }
  | {
      kind: "bwrap";
      settings: SandboxSettings;
      /** The harness's policy service, asked at each call (it may be applied after this plugin). */
      policy: () => PolicyService | undefined;
      /** The tool's scan of its writable folders for hard links (minimal root). */
      hardLinkScan: HardLinkScan;
      /** A process already in the next call's cgroups (with limits by cgroup, and bash here). */
      launchers: LauncherPool;
      details: BashSandboxDetails;
    };

export interface SandboxOptions {
  sandbox: SandboxMode;
  root: "minimal" | "host";
  writable: readonly string[];
  readable: readonly string[];
  network: "off" | "proxy" | "host" | "on";
  destinations: readonly string[];
  limits?: ToolLimits;
  hardLinks: "declare" | "refuse";
  env?: Record<string, string>;
}

/** `${workspace}` and a leading `~/` replaced, relative paths against the workspace. */
export function resolveFolders(entries: readonly string[], workspace: string, home: string | undefined): string[] {
  return entries.map((entry) => {
    const named = entry.replaceAll("${workspace}", workspace);
    const expanded = home !== undefined && (named === "~" || named.startsWith("~/")) ? `${home}${named.slice(1)}` : named;
    return resolve(workspace, expanded);
  });
}

/** Probes bubblewrap (once per process) unless the option is "off", and says how calls run. */
export async function resolveSandbox(
  options: SandboxOptions,
  workspace: string,
  policy: () => PolicyService | undefined,
): Promise<SandboxUse> {
  const mode = options.sandbox;
  if (mode === "off") return { kind: "off", details: { mode, enforced: false } };
  const unsupported = seccompUnsupported();
  const probe = unsupported ? { ok: false as const, reason: `${unsupported}: no sandbox is made without it.` } : await probeSandbox();
  if (!probe.ok) {
    const details = { mode, enforced: false, reason: probe.reason };
    return mode === "required" ? { kind: "refuse", reason: probe.reason, details } : { kind: "off", details };
  }
  const settings = sandboxSettings(options, probe, workspace);
  const { root, writable, readable, network, limits } = settings;
  const details: BashSandboxDetails = {
    mode,
    enforced: true,
    backend: `bwrap${probe.version ? ` ${probe.version}` : ""} (${probe.bwrap})`,
    root,
    network,
    writable: [...writable],
    ...(root === "minimal" && { readable: [...readable] }),
    ...(limits && { limits: { ...limits.values }, limitsBy: { ...limits.by } }),
  };
  return { kind: "bwrap", settings, policy, hardLinkScan: new HardLinkScan(), launchers: new LauncherPool(), details };
}

function sandboxSettings(options: SandboxOptions, probe: Extract<SandboxProbe, { ok: true }>, workspace: string): SandboxSettings {
  const home = options.env?.HOME ?? process.env.HOME ?? homedir();
  const root = options.root;
  // The minimal root bounds every call; the host root keeps the sandbox as it was, bounded only when asked.
  const asked = options.limits !== undefined || root === "minimal" ? { ...defaultLimits(), ...options.limits } : undefined;
  return {
    bwrap: probe.bwrap,
    sizedTmpfs: probe.sizedTmpfs,
    workspace,
    root,
    writable: resolveFolders(options.writable, workspace, home),
    readable: root === "minimal" ? resolveFolders(options.readable, workspace, home) : [],
    home,
    network: options.network === "on" ? "host" : options.network,
    destinations: [...options.destinations],
    limits: asked ? effectiveLimits(asked, limitMechanisms()) : undefined,
    hardLinks: options.hardLinks,
    nsenter: options.network === "proxy" ? systemProgram("nsenter") : undefined,
    bash: systemProgram("bash"),
    seccomp: seccompProgram(),
  };
}

const NETWORK_WORDS: Record<NetworkMode, string> = {
  off: "there is no network (not even this machine's services on 127.0.0.1)",
  proxy: "the network is reachable only through the proxy in HTTP_PROXY/HTTPS_PROXY/ALL_PROXY, which asks the user's policy about each host and port",
  host: "the network is open",
};

/** One sentence on how calls run (what a command can and cannot reach), for the tool's description and the load-time warning. */
export function describeSandbox(use: SandboxUse): string {
  if (use.kind === "bwrap") {
    const { writable, readable, network, root, limits } = use.settings;
    const writes = `they may write only in ${writable.join(", ") || "no folder"} and a private /tmp`;
    const sees =
      root === "minimal"
        ? `they see only the system folders${readable.length > 0 ? `, ${readable.join(", ")}` : ""} and those folders (no other file of this machine, an empty home folder)`
        : "the rest of the system is read-only";
    const bounded = limits && Object.keys(limits.values).length > 0 ? "; processes, memory, file sizes and CPU time are limited" : "";
    return `Commands run in a sandbox: ${writes}, ${sees}, files the policy denies to read look empty, and ${NETWORK_WORDS[use.settings.network]}${bounded}.`;
  }
  if (use.kind === "refuse") return `No sandbox can be made here, and the tool requires one: every call is refused (${use.reason})`;
  return use.details.mode === "off" ? "Commands run unsandboxed." : `Commands run unsandboxed: ${use.details.reason}`;
}

/** The limits as `toolhost config` shows them. */
export function limitsSetting(use: SandboxUse): string {
  return use.kind === "bwrap" && use.settings.limits ? limitsSummary(use.settings.limits) : "none";
}
