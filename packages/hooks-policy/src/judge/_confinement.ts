import type { PolicyPart, ToolAccess, ToolConfinement } from "@toolhost/core";
import { writesInside } from "../rules/_access.js";
import type { ReadCovers } from "../rules/_denied-reads.js";
import { LIFTED } from "./_scope.js";
import type { ToolRules } from "./_tool-rules.js";

/*
 * What a confined call is trusted with: a sandboxed rule applies only when the confinement also
 * bounds what the call reads, and the decision says when the sandbox made the difference.
 */

/** What the policy trusts a confined call with, and what of its confinement it relied on. */
export interface Trust {
  /** A confinement is declared whose writes and network the policy trusts (the bounds of its reads aside). */
  boxed: boolean;
  /** Boxed, and bounded in what it reads: sandboxed rules apply. */
  confined: boolean;
  /** In words, what the decision relies on: `it can write only inside the workspace, and the network is off`. */
  relied: string;
  /** More of the confinement it relies on: the minimal root and its limits, the hidden reads. */
  also: string[];
  /**
   * Confined under the minimal root with limits on processes, memory and file size: what would
   * fill the process table (a fork bomb, a loop of background processes) ends at those limits.
   */
  limited: boolean;
}

const KNOWN_FIELDS = new Set(["root", "writable", "readable", "network", "destinations", "limits", "hidesDeniedReads"]);
/** The system's folders a minimal root shows read-only: their secret files are the sandbox's to cover (shadow files, host keys). */
const SYSTEM_FOLDERS = /^\/(usr|bin|sbin|lib|lib32|lib64|libx32|etc|opt|nix\/store)(\/|$)/;

/**
 * How far a call's declared confinement is trusted. Its writes must stay in the workspace and its
 * network be off or through the policy's proxy (with no destination let through wholesale), and
 * it must be bounded in what it reads: under the minimal root with limits, by the root itself (only
 * the system, the workspace and what `readable` names exist; the tool hides what the policy
 * denies there); under the host's root, only when every deny-read pattern can be hidden. A field
 * the policy does not know gets no trust. `coversOf` gives the deny-read rules as a sandbox covers
 * them, asked only when a confinement is declared.
 */
export function trustOf(access: ToolAccess | undefined, workspace: string, coversOf: () => ReadCovers): Trust {
  const confinement = access?.confinement;
  const none: Trust = { boxed: false, confined: false, relied: "", also: [], limited: false };
  if (!confinement || Object.keys(confinement).some((key) => !KNOWN_FIELDS.has(key))) return none;
  const network = networkOf(confinement);
  if (network === undefined || !writesInside(confinement.writable, workspace)) return none;
  const also: string[] = [];
  const contained = containedOf(confinement);
  if (contained) also.push(contained);
  // Read only for a confinement: sorting the deny-read rules into covers costs a first call ~8 ms.
  const covers = coversOf();
  const hidden = confinement.hidesDeniedReads === true;
  const bounded = !covers.any || (hidden && (contained !== undefined || covers.unbounded.length === 0));
  if (covers.any && hidden) also.push(contained ? "what the policy denies to read there is hidden" : "what the policy denies to read is hidden");
  const limited = bounded && contained !== undefined && (confinement.limits?.fileSizeBytes ?? 0) > 0;
  return { boxed: true, confined: bounded, relied: `it can write only inside the workspace, and ${network}`, also, limited };
}

/** How the confinement reaches the network, in words; undefined when the policy does not trust it with the network. */
function networkOf(confinement: ToolConfinement): string | undefined {
  const mode = confinement.network === false ? "off" : confinement.network === true ? "host" : confinement.network;
  if (mode === "off") return "the network is off";
  if (mode !== "proxy") return undefined;
  const destinations = confinement.destinations ?? [];
  // A destination whose host is only wildcards lets everything through: the network is the host's.
  if (destinations.some((each) => /^[*.]*(:[*\d]*)?$/.test(each.trim()))) return undefined;
  const through = "every connection goes through the policy's proxy";
  return destinations.length === 0 ? through : `${through} (its settings let ${destinations.slice(0, 4).join(", ")}${destinations.length > 4 ? ", …" : ""} through)`;
}

/**
 * The minimal root with its limits, in words; undefined when the declaration does not carry it
 * (the host's root, `readable` not declared, no bound on processes and memory).
 */
function containedOf(confinement: ToolConfinement): string | undefined {
  const { root, readable, limits } = confinement;
  if (root !== "minimal" || readable === undefined || !readable.every((path) => path.startsWith("/") && !path.includes("\0"))) return undefined;
  if (!limits || !(limits.processes !== undefined && limits.processes > 0) || !(limits.memoryBytes !== undefined && limits.memoryBytes > 0)) return undefined;
  const extra = readable.filter((path) => !SYSTEM_FOLDERS.test(path));
  const shown = extra.length === 0 ? "" : `, ${extra.slice(0, 3).join(", ")}${extra.length > 3 ? ", …" : ""}`;
  const bounds = [`${limits.processes} processes`, `${Math.round(limits.memoryBytes / 2 ** 20)} MiB of memory`];
  if (limits.fileSizeBytes) bounds.push(`files up to ${Math.round(limits.fileSizeBytes / 2 ** 20)} MiB`);
  if (limits.cpuSeconds) bounds.push(`${limits.cpuSeconds} s of CPU`);
  return `a minimal root (only the system, the workspace${shown} exist, no host socket), limits: ${bounds.join(", ")}`;
}

/** The note of a part a sandboxed rule decided, saying what of the confinement it relied on. */
export function liftedNote(trust: Trust): string {
  const also = trust.also.length === 0 ? "" : `; it relies on the confinement too: ${trust.also.join("; ")}`;
  return `the call runs confined (${trust.relied}), so a sandboxed rule decides what the policy cannot read${also}`;
}

/**
 * Sandboxed rules first where they lifted an ask (the sandbox made the difference, and the
 * decision says so), last elsewhere (another rule would have decided the same).
 */
export function orderSandboxed(parts: PolicyPart[], rules: ToolRules): void {
  if (rules.lifting.size === 0) return;
  for (const part of parts) {
    const sandboxed = part.matched.filter((entry) => rules.lifting.has(entry.id));
    const others = part.matched.filter((entry) => !rules.lifting.has(entry.id));
    part.matched = part.note?.includes(LIFTED) ? [...sandboxed, ...others] : [...others, ...sandboxed];
  }
}

/** A confined call whose reads are not bounded: its asks say why the sandbox made no difference. */
export function noteUntrusted(covers: ReadCovers, parts: PolicyPart[]): void {
  const { unbounded } = covers;
  const shown = unbounded.slice(0, 4).join(", ") + (unbounded.length > 4 ? `, and ${unbounded.length - 4} more` : "");
  const why =
    unbounded.length > 0
      ? `the call runs in a sandbox, but no sandbox can hide what ${shown} name${unbounded.length === 1 ? "s" : ""} outside the workspace, so sandboxed rules do not apply`
      : "the call runs in a sandbox that does not say it hides what the policy denies to read, so sandboxed rules do not apply";
  for (const part of parts) {
    // First, so that the call's one-line reason keeps it whatever else the part says.
    if (part.decision === "ask") part.note = part.note ? `${why}; ${part.note}` : why;
  }
}
