import { basename } from "node:path";
import { isInside } from "@toolhost/core";
import type { BashConnection } from "../details.js";
import type { QuarantinedFile } from "./_control-files.js";
import type { SandboxPlan } from "./_plan.js";
import { findOnPath } from "../_programs.js";
import { systemView } from "./_system.js";

const NETWORK_FAILURE =
  /Could not resolve host|Temporary failure in name resolution|Name or service not known|Network is unreachable|Connection refused|Failed to connect|getaddrinfo|ENETUNREACH|ECONNREFUSED|EAI_AGAIN/i;

/** A command that likely needs the network: a URL, or a program that fetches (a word of its own, not `~/.ssh`). */
const NEEDS_NETWORK = /https?:\/\/|(?<![\w./~-])(curl|wget|ssh|scp|rsync|nc|git\s+(fetch|pull|push|clone|ls-remote)|npm\s+(i|install|ci)|pnpm\s+(i|install|add)|yarn\s+add|pip3?\s+install)\b/;

/** What the sandbox stopped in this call, in words a model can act on; "" when nothing. */
export function sandboxNotes(plan: SandboxPlan, command: string, output: string, failed = false, connections: readonly BashConnection[] = []): string {
  const notes = [...writeNotes(plan, output), ...networkNotes(plan, command, output, failed, connections), ...unseenNotes(plan, output), ...linkNotes(plan, command, output)];
  const named = plan.hidden.filter((path) => command.includes(basename(path)) || output.includes(basename(path)));
  const secrets = plan.root === "minimal" ? new Set(systemView().secrets) : new Set<string>();
  const denied = named.filter((path) => !secrets.has(path));
  const system = named.filter((path) => secrets.has(path));
  if (denied.length > 0) {
    notes.push(`[sandbox: the policy denies reading ${denied.join(", ")}; here they read as empty. Do not try to read them another way.]`);
  }
  if (system.length > 0) {
    notes.push(`[sandbox: ${system.join(", ")} ${system.length === 1 ? "holds" : "hold"} this machine's secrets (others may not read them); here they read as empty.]`);
  }
  return notes.length > 0 ? `\n${notes.join("\n")}` : "";
}

function writeNotes(plan: SandboxPlan, output: string): string[] {
  if (!/Read-only file system/.test(output)) return [];
  const where = [...plan.writable, plan.root === "minimal" ? "/tmp and the home folder (private to this call, empty at its start)" : "/tmp (private to this call)"].join(", ");
  const notes = [
    `[sandbox: a write outside the writable folders was refused ("Read-only file system"). Commands may write only in ${where}. Write there instead, or ask the user to add the folder to the bash tool's "writable" option.]`,
  ];
  const git = plan.readOnly.find((path) => basename(path) === ".git" && (output.includes(path) || output.includes(".git/")));
  if (git) {
    notes.push(
      `[sandbox: ${git} is read-only, so git commands that change the repository (add, commit, checkout, fetch) fail here. Ask the user to run them, or to add "${git}" to the bash tool's "writable" option.]`,
    );
  }
  const control = new Set(plan.controlFiles.readOnly);
  const denied = plan.readOnly.filter((path) => basename(path) !== ".git" && !control.has(path) && output.includes(`${basename(path)}: Read-only`));
  if (denied.length > 0) notes.push(`[sandbox: the policy denies writing ${denied.join(", ")}; it is read-only here.]`);
  const controls = plan.controlFiles.readOnly.filter((path) => basename(path) !== ".git" && output.includes(basename(path)));
  if (controls.length > 0) {
    notes.push(
      `[sandbox: ${controls.join(", ")} ${controls.length === 1 ? "is a control file" : "are control files"} (what decides later calls, or what a program runs later outside any sandbox), read-only here. Ask the user to make this change.]`,
    );
  }
  return notes;
}

function networkNotes(plan: SandboxPlan, command: string, output: string, failed: boolean, connections: readonly BashConnection[]): string[] {
  const refused = connections.filter((connection) => !connection.allowed);
  const notes = refused.slice(0, 5).map((connection) => `[sandbox: the proxy refused ${connection.destination} (${connection.url}): ${connection.reason ?? "refused"}]`);
  if (refused.length > 5) notes.push(`[sandbox: and ${refused.length - 5} more destinations were refused]`);
  const failedToConnect = NETWORK_FAILURE.test(output) || (failed && NEEDS_NETWORK.test(command));
  if (plan.network === "off" && failedToConnect) {
    notes.push(
      `[sandbox: the network is off for commands (the bash tool's "network" option is "off"), so connections fail, even to services on this machine's 127.0.0.1; if this command needed the network, that is why it failed. Work without the network, or ask the user to set "network" to "proxy" (each destination asked of the policy) or "host".]`,
    );
  }
  if (plan.network === "proxy" && failedToConnect && refused.length === 0) {
    notes.push(
      "[sandbox: the network is reachable only through the proxy in HTTP_PROXY, HTTPS_PROXY and ALL_PROXY (NO_PROXY covers this sandbox's own 127.0.0.1, which is not this machine's): a program that ignores them, or a name resolved here, cannot connect. Use a program that honours the proxy variables.]",
    );
  }
  return notes;
}

/**
 * Minimal root: a program the command called that is on this machine's PATH but not in the
 * sandbox. (Only programs: saying which other paths exist would tell a command what it must not
 * see, for any path it prints.)
 */
function unseenNotes(plan: SandboxPlan, output: string): string[] {
  if (plan.root !== "minimal") return [];
  const shown = [...plan.writable, ...plan.readable, "/tmp", "/dev", "/proc"];
  const unseen = new Set<string>();
  for (const match of output.matchAll(/(?:^|[\s:])([\w.+-]+): command not found/gm)) {
    const path = findOnPath(match[1] as string, process.env.PATH);
    if (path && !shown.some((folder) => isInside(path, folder))) unseen.add(path);
  }
  if (unseen.size === 0) return [];
  const list = [...unseen].slice(0, 5).join(", ");
  return [
    `[sandbox: ${list} is on this machine's PATH but not in the sandbox (root "minimal" shows only the system folders, the workspace and the folders the user adds). Ask the user to add it to the bash tool's "readable" (or "writable") option if the command needs it.]`,
  ];
}

/** The control files the call created, moved aside after it: where they are now, and why. */
export function quarantineNotes(files: readonly QuarantinedFile[]): string {
  if (files.length === 0) return "";
  const lines = files.map((file) => {
    const where = file.movedTo !== undefined ? `moved to ${file.movedTo}` : file.removed ? "removed (it could not be moved)" : "neither moved nor removed: tell the user";
    return `[sandbox: the command created ${file.path}, a control file (${file.why}), where none was; it was ${where}, so that nothing outside the sandbox reads it. Control files are not written from the sandbox: ask the user to make this change.]`;
  });
  return `\n${lines.join("\n")}`;
}

/** Hard links to files elsewhere: those covered that the command named, or why none is covered. */
function linkNotes(plan: SandboxPlan, command: string, output: string): string[] {
  const links = plan.hardLinks;
  if (!links) return [];
  if (links.declaredOnly !== undefined) {
    return [
      `[sandbox: ${links.files} files in the writable folders are hard links to files elsewhere, and this call did not cover them: ${links.declaredOnly}. They may show files outside what this call may read; the call's declared reach says so.]`,
    ];
  }
  const named = links.hidden.filter((path) => command.includes(basename(path)) || output.includes(basename(path)));
  if (named.length === 0) return [];
  return [`[sandbox: ${named.slice(0, 5).join(", ")} ${named.length === 1 ? "is a hard link" : "are hard links"} to a file outside what this call may read (not a package-store copy); here ${named.length === 1 ? "it reads" : "they read"} as empty.]`];
}
