import { HarnessStage } from "@toolhost/core";
import type { Host } from "@toolhost/core/config";
import { refusalHint } from "./hint.js";
import { type Approval, approvalsFor, APPROVE_ENV, fromEnvironment, type GivenApproval, parseApprovals, quoteShell } from "./values.js";

/** What approvals given in advance need of the CLI: where it runs, and a note on stderr. */
export interface GivenApprovalsHost {
  readonly globals: { cwd: string };
  note(text: string): Promise<void>;
}

const TAP = "@toolhost/cli --approve";

/**
 * Approvals given in advance (`--approve`, `TOOLHOST_APPROVE`), for call, run and agent: checked
 * against the policy in force (a usage error when one approves nothing or could approve
 * everything), then a tap of `approve` that passes the asks they cover, before any prompt. Without
 * a terminal, a last tap refuses the rest, saying exactly which flag or config line would allow
 * the call.
 */
export async function attachGivenApprovals(host: Host, cli: GivenApprovalsHost, flags: readonly string[], interactive: boolean): Promise<void> {
  const given: GivenApproval[] = [...flags.map((value) => ({ value, from: "--approve" })), ...fromEnvironment(process.env[APPROVE_ENV])];
  const { harness } = host;
  const cwd = cli.globals.cwd;
  let approvals: Approval[] = [];
  if (given.length > 0) {
    const rules = await harness.getService("policy")?.rules?.();
    approvals = parseApprovals(given, { rules, tools: harness.tools.map((tool) => tool.name), cwd });
  }
  if (approvals.length > 0) {
    harness.hooks.approve.tapPromise(TAP, async (request) => {
      const used = approvalsFor(approvals, request.toolCall.name, request.details);
      if (!used) return undefined;
      const by = used.map((each) => `--approve '${each.text}'`).join(" ");
      // In the user's words, for the record: the flag with its value, or the line of TOOLHOST_APPROVE.
      const via = used.map((each) => (each.from === "--approve" ? `--approve ${quoteShell(each.text)}` : each.from)).join(", ");
      await cli.note(shown(() => harness.hooks.redact.call(`${request.toolCall.name}: approved by ${by} (${request.reason})`)));
      return { approved: true, scope: "once", via, reason: `approved by ${by}` };
    });
  }
  if (!interactive) {
    const place = { configPath: host.configPath, cwd, workspace: harness.workspace, given: approvals.length > 0 };
    harness.hooks.approve.tap({ name: `${TAP} (no terminal)`, stage: HarnessStage.BUILT_IN_LAST }, (request) => ({ approved: false, via: "no one to ask (no terminal)", reason: refusalHint(request, place) }));
  }
}

/** A note through the redact hook; a throwing tap withholds the detail. */
function shown(text: () => string): string {
  try {
    return text();
  } catch {
    return "a call was approved by --approve (its text was withheld by the redact hook)";
  }
}
