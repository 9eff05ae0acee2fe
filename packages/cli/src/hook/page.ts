import type { ApprovalRequest, ApprovalResult } from "@toolhost/core";
import type { Host } from "@toolhost/core/config";

/** What the hook keeps of the host's timeout to answer and exit: the host must read an answer, never a killed hook. */
export const PAGE_MARGIN_MS = 2_000;
const VIA = "approvals page";

/**
 * An ask of one hook call on the approvals page (`--on-ask page`, or a hook server's `on-ask=page`):
 * a headless host refuses every ask, so the ask goes to the page instead of back to the host.
 */
export interface PageAsk {
  /** When the host's timeout for this hook runs out (ms since the epoch): the ask ends `PAGE_MARGIN_MS` before, refused. */
  hostDeadline: number;
  /** The host's timeout as the user gave it, for the refusal when it leaves no time (`the hook's 30 s (--timeout)`). */
  timeout: string;
  /** Who asks, as the page shows it (`toolhost hook claude-code`). */
  asker: string;
  /** The agent host's session (`session_id`): "for this session" on the page covers its later asks. */
  session?: string | undefined;
}

/**
 * Asks on the approvals page, waiting at most until shortly before the host's hook timeout; then,
 * or on any failure, the call is refused. The answer is bound to the call's content by the
 * approvals service (its digest), as for every asker.
 */
export async function askOnPage(host: Host, request: ApprovalRequest, signal: AbortSignal, ask: PageAsk): Promise<ApprovalResult> {
  const page = host.harness.getService("approvals");
  if (page === undefined) {
    const where = host.configPath ?? "your toolhost config (toolhost init writes one)";
    return { approved: false, via: VIA, reason: `the hook asks through the approvals page (--on-ask page), and no config names it: add "@toolhost/approvals" to the plugins of ${where}` };
  }
  const left = ask.hostDeadline - PAGE_MARGIN_MS - Date.now();
  if (left < 1_000) return { approved: false, via: VIA, reason: `${ask.timeout} leave no time to ask on the approvals page` };
  return page.ask(request, signal, { timeoutMs: left, asker: ask.asker, ...(ask.session !== undefined && { session: ask.session }) });
}
