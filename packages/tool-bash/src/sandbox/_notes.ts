import { basename } from "node:path";
import type { SandboxPlan } from "./_plan.js";

const NETWORK_FAILURE =
  /Could not resolve host|Temporary failure in name resolution|Name or service not known|Network is unreachable|Connection refused|Failed to connect|getaddrinfo|ENETUNREACH|ECONNREFUSED|EAI_AGAIN/i;

/** A command that likely needs the network: a URL, or a program that fetches (a word of its own, not `~/.ssh`). */
const NEEDS_NETWORK = /https?:\/\/|(?<![\w./~-])(curl|wget|ssh|scp|rsync|nc|git\s+(fetch|pull|push|clone|ls-remote)|npm\s+(i|install|ci)|pnpm\s+(i|install|add)|yarn\s+add|pip3?\s+install)\b/;

/** What the sandbox stopped in this call, in words a model can act on; "" when nothing. */
export function sandboxNotes(plan: SandboxPlan, command: string, output: string, failed = false): string {
  const { network } = plan;
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
