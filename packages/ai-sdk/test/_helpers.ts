import { mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { type AgentEvent, AgentHarness } from "@toolhost/core";
import policyPlugin from "@toolhost/hooks-policy";
import bashPlugin from "@toolhost/tool-bash";
import fsPlugin from "@toolhost/tool-fs";

/** A 1×1 PNG. */
export const PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==", "base64");

/** The policy the tests run under: reads and commands allowed, `touch` asked, `rm` asked by a locked layer, `.env` denied. */
export const POLICY = {
  default: "allow",
  extends: [{ name: "org", locked: true, rules: [{ id: "org-rm", command: "rm", decision: "ask", reason: "removing files needs a person" }] }],
  rules: [
    { id: "ask-touch", command: "touch *", decision: "ask", reason: "touch changes files" },
    { id: "no-env", path: ".env", decision: "deny", reason: ".env holds secrets" },
    { id: "no-secret-notes", tool: "write", path: "${workspace}/secret/**", decision: "deny", reason: "secret/ is not for notes" },
  ],
};

/** A workspace in a temporary folder (notes.txt, .env, pic.png) and a harness of the real plugins on it. */
export async function workspace(): Promise<{ dir: string; harness: AgentHarness; events: AgentEvent[]; remove: () => Promise<void> }> {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "toolhost-ai-sdk-test-")));
  writeFileSync(join(dir, "notes.txt"), "first note\nsecond note\n");
  writeFileSync(join(dir, ".env"), "API_TOKEN=not-for-models\n");
  writeFileSync(join(dir, "pic.png"), PNG);
  const harness = new AgentHarness({ cwd: dir, abortGraceMs: 2_000 });
  await harness.use(fsPlugin, { roots: ["."] });
  await harness.use(bashPlugin, { timeout: 60 });
  await harness.use(policyPlugin, POLICY);
  const events: AgentEvent[] = [];
  harness.subscribe((event) => events.push(event));
  return {
    dir,
    harness,
    events,
    remove: async () => {
      await harness.dispose();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The pids of the processes whose command line holds `marker`. */
export function processesWith(marker: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    let cmdline: string;
    try {
      cmdline = readFileSync(`/proc/${entry}/cmdline`, "latin1").replaceAll("\0", " ");
    } catch {
      continue;
    }
    if (cmdline.includes(marker) && isRunning(Number(entry))) found.push(Number(entry));
  }
  return found;
}

function isRunning(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
    const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
    return state !== "Z" && state !== "X";
  } catch {
    return false;
  }
}

/** Waits until `check` holds, polling; fails with `what` after a long while (the machine may be loaded). */
export async function eventually(check: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > until) throw new Error(`gave up waiting: ${what}`);
    await delay(25);
  }
}
