import { isInside } from "@toolhost/core";
import { sandboxNotes } from "../sandbox/_notes.js";
import type { SandboxPlan } from "../sandbox/_plan.js";

/**
 * What the sandbox may stop in `command`, known from its text before it runs (the host shows the
 * output, not toolhost): the policy's hidden names it mentions, the network it needs while the
 * network is off, the home folder (empty here) and the paths outside what the sandbox shows. The
 * command line adds these to stderr only when the command fails; "" when there is nothing to say.
 */
export function failureNotes(plan: SandboxPlan, command: string, home: string | undefined): string {
  const notes = sandboxNotes(plan, command, "", true).trim().split("\n").filter((line) => line !== "");
  // The sandbox's /tmp is its own: a path of this machine's /tmp is there only when a mounted folder holds it.
  const shown = [...plan.writable, ...plan.readable, "/dev", "/proc"];
  const homeShown = home !== undefined && shown.some((folder) => isInside(home, folder));
  const mentionsHome = /(^|[\s"'=:(])~(\/|\s|$|["'])|\bHOME\b/.test(command) || (home !== undefined && command.includes(home));
  if (plan.root === "minimal" && !homeShown && mentionsHome) notes.push("[sandbox: the home folder is empty here: toolhost's sandbox shows none of the user's files in it]");
  const unseen = new Set<string>();
  for (const match of command.matchAll(/(?<![\w.~$/-])(\/[\w.@+-]+(?:\/[\w.@+-]+)*)/g)) {
    const path = match[1] as string;
    if (plan.root === "minimal" && !shown.some((folder) => isInside(path, folder)) && !(home !== undefined && isInside(path, home))) unseen.add(path);
  }
  if (unseen.size > 0) {
    const list = [...unseen].slice(0, 3).join(", ");
    const tmp = [...unseen].some((path) => isInside(path, "/tmp")) ? " (its /tmp is a private one, empty at the start)" : "";
    notes.push(`[sandbox: ${list} ${unseen.size === 1 ? "is" : "are"} not in toolhost's sandbox${tmp}, which shows only the system folders, ${plan.writable.join(", ")} and the folders the user adds to the bash tool's "readable" option]`);
  }
  return notes.join("\n");
}
