import { basename, resolve } from "node:path";
import type { PolicyService } from "@toolhost/core";
import { probeSandbox } from "./_probe.js";
import type { SandboxPlan, SandboxSettings } from "./_sandbox.js";
import type { BashSandboxDetails, SandboxMode } from "./details.js";

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

const NETWORK_FAILURE =
  /Could not resolve host|Temporary failure in name resolution|Name or service not known|Network is unreachable|Connection refused|Failed to connect|getaddrinfo|ENETUNREACH|ECONNREFUSED|EAI_AGAIN/i;

/** A command that likely needs the network: a URL, or a program that fetches (a word of its own, not `~/.ssh`). */
const NEEDS_NETWORK = /https?:\/\/|(?<![\w./~-])(curl|wget|ssh|scp|rsync|nc|git\s+(fetch|pull|push|clone|ls-remote)|npm\s+(i|install|ci)|pnpm\s+(i|install|add)|yarn\s+add|pip3?\s+install)\b/;

/** What the sandbox stopped in this call, in words a model can act on; "" when nothing. */
export function sandboxNotes(plan: SandboxPlan, network: "on" | "off", command: string, output: string, failed = false): string {
  const notes: string[] = [];
  if (/Read-only file system/.test(output)) {
    const where = [...plan.writable, "/tmp (private to this call)"].join(", ");
    notes.push(
      `[sandbox: a write outside the writable folders was refused ("Read-only file system"). Commands may write only in ${where}. Write there instead, or ask the user to add the folder to the bash tool's "writable" option.]`,
    );
    const git = plan.readOnly.find((path) => basename(path) === ".git" && (output.includes(path) || output.includes(".git/")));
    if (git) {
      notes.push(
        `[sandbox: ${git} is read-only, so git commands that change the repository (add, commit, checkout, fetch) fail here. Ask the user to run them, or to add "${git}" to the bash tool's "writable" option.]`,
      );
    }
    const denied = plan.readOnly.filter((path) => basename(path) !== ".git" && output.includes(`${basename(path)}: Read-only`));
    if (denied.length > 0) notes.push(`[sandbox: the policy denies writing ${denied.join(", ")}; it is read-only here.]`);
  }
  if (network === "off" && (NETWORK_FAILURE.test(output) || (failed && NEEDS_NETWORK.test(command)))) {
    notes.push(
      `[sandbox: the network is off for commands (the bash tool's "network" option is "off"), so connections fail, even to services on this machine's 127.0.0.1; if this command needed the network, that is why it failed. Work without the network, or ask the user to set "network": "on".]`,
    );
  }
  const hidden = plan.hidden.filter((path) => command.includes(basename(path)) || output.includes(basename(path)));
  if (hidden.length > 0) {
    notes.push(`[sandbox: the policy denies reading ${hidden.join(", ")}; here they read as empty. Do not try to read them another way.]`);
  }
  return notes.length > 0 ? `\n${notes.join("\n")}` : "";
}
