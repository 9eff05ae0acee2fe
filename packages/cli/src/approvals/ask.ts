import { HarnessStage } from "@toolhost/core";
import type { Host } from "@toolhost/core/config";

const TAP = { name: "@toolhost/cli (approvals page)", stage: HarnessStage.BUILT_IN_LAST - 1 };

/**
 * Without a terminal (call, run, agent started by a service, CI, a queue host), the asks that no
 * `--approve` value passed go to the approvals page when the config names `@toolhost/approvals`:
 * after the approvals given in advance, before the refusal that names them.
 */
export function attachPageApprover(host: Host): void {
  const page = host.harness.getService("approvals");
  if (page === undefined) return;
  host.harness.hooks.approve.tapPromise(TAP, (request, signal) => page.ask(request, signal));
}
