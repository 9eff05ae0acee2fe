import type { Host } from "@toolhost/core/config";
import type { HookRunOptions } from "./args.js";
import type { HookHost } from "./hosts.js";
import type { HookCall } from "./payload.js";

/** Before the judge's own tap, which hands every ask back to the host. */
const TAP = { name: "toolhost hook (approvals page)", stage: -200_000 };
/** What the hook keeps of the host's timeout to answer and exit: the host must read an answer, never a killed hook. */
const MARGIN_MS = 2_000;

/**
 * `--on-ask page`: the call's ask goes to the approvals page instead of back to the host (a
 * headless host refuses every ask), waiting at most until shortly before the host's hook timeout;
 * then, or on any failure, the call is refused. `approved()` says whether a person approved it
 * there: the host then gets an allow outright, since its own prompt would ask again (or refuse).
 */
export function askThroughPage(host: Host, hookHost: HookHost, call: HookCall, options: HookRunOptions): { approved(): boolean } {
  let approved = false;
  host.harness.hooks.approve.tapPromise(TAP, async (request, signal) => {
    const page = host.harness.getService("approvals");
    if (page === undefined) {
      const where = host.configPath ?? "your toolhost config (toolhost init writes one)";
      return { approved: false, via: "approvals page", reason: `the hook asks through the approvals page (--on-ask page), and no config names it: add "@toolhost/approvals" to the plugins of ${where}` };
    }
    // From the process's start: the host's timeout runs from when it started the hook.
    const left = (options.timeoutSeconds ?? 30) * 1000 - (Date.now() - performance.timeOrigin) - MARGIN_MS;
    if (left < 1_000) return { approved: false, via: "approvals page", reason: `the hook's ${options.timeoutSeconds} s (--timeout) leave no time to ask on the approvals page` };
    const answer = await page.ask(request, signal, { timeoutMs: left, asker: `toolhost hook ${hookHost.id}`, ...(call.session !== undefined && { session: call.session }) });
    approved = answer.approved;
    return answer;
  });
  return { approved: () => approved };
}
