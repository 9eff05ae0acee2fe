// Both sides of issue 33's measure, for a test and bench/policy: the share of harmless commands
// recommended asks about (unconfined in a workspace not trusted and trusted, and confined), and how
// many of the dangerous commands of each class it lets run.
import type { PolicyExplanation } from "@toolhost/core";
import { createPolicy } from "../src/index.js";
import { contained, INVENTORY_CLASSES } from "./inventory-classes.js";

export type Mode = "open" | "trusted" | "confined";
export const MODES: readonly Mode[] = ["open", "trusted", "confined"];

/** The harmless commands of harmless-commands.json, by what agents do with them. */
export type Harmless = Record<string, string[]>;

/** harmless-commands.json read: its lists, without its `about`. */
export function harmlessOf(json: string): Harmless {
  const { about: _about, ...lists } = JSON.parse(json) as Record<string, unknown>;
  return lists as Harmless;
}

export interface Share {
  mode: Mode;
  total: number;
  asked: string[];
  denied: string[];
}

function decider(ws: string, mode: Mode): (command: string) => PolicyExplanation {
  const policy = createPolicy({ extends: ["recommended"] }, { cwd: ws, workspace: ws, trustedWorkspace: mode === "trusted" });
  return (command) => policy.decide({ tool: "bash", args: { command }, access: { commands: [{ command, cwd: ws }], ...(mode === "confined" && { confinement: contained(ws) }) } });
}

/** How many harmless commands are asked about (or denied) in a mode. */
export function harmlessShare(ws: string, mode: Mode, harmless: Harmless): Share {
  const decide = decider(ws, mode);
  const commands = Object.values(harmless).flat();
  const decisions = commands.map((command) => [command, decide(command).decision] as const);
  return { mode, total: commands.length, asked: decisions.filter(([, d]) => d === "ask").map(([c]) => c), denied: decisions.filter(([, d]) => d === "deny").map(([c]) => c) };
}

export interface Dangerous {
  className: string;
  mode: Mode;
  /** The class's cases that must not run silently in that mode. */
  total: number;
  /** Those allowed at the command, and their connection (when they make one) too: what got through. */
  through: string[];
  /** Those allowed at the command whose danger is bounded by the confinement (every connection asked, or none possible). */
  bounded: number;
}

/**
 * Per class: its commands that must not run silently (asked or denied unconfined; confined, those
 * the sandbox does not bound), and how many the policy let through.
 */
export function dangerousThrough(ws: string, mode: Mode): Dangerous[] {
  const decide = decider(ws, mode);
  const policy = createPolicy({ extends: ["recommended"] }, { cwd: ws, workspace: ws });
  // The look-alikes are what must stay allowed, not a danger.
  return INVENTORY_CLASSES.filter((each) => each.name !== "harmless look-alikes").map((each) => {
    const dangerous = each.cases.filter((one) => one.open !== "allow" && (mode !== "trusted" || (one.trusted ?? one.open) !== "allow"));
    let bounded = 0;
    const through = dangerous.filter((one) => {
      if (decide(one.command).decision !== "allow") return false;
      if (mode !== "confined") return true;
      if (one.connects === undefined) return one.confined !== "allow" || ((bounded += 1), false);
      const connection = policy.decideConnection({ tool: "bash", args: {}, access: { network: [{ url: one.connects }] } });
      if (connection.decision === "allow") return true;
      bounded += 1;
      return false;
    });
    return { className: each.name, mode, total: dangerous.length, through: through.map((one) => one.command), bounded };
  });
}

export { classWorkspace, contained } from "./inventory-classes.js";
