import type { ApprovalsService } from "./approvals.js";
import type { ModelService } from "./model.js";
import type { PolicyService } from "./policy.js";
import type { QueueService } from "./queue.js";
import type { SandboxService } from "./sandbox.js";

/**
 * The services plugins offer one another and the host, by name (`harness.provideService`,
 * `harness.getService`). A new service is one line here; a third party adds its own by
 * declaration merging (`declare module "@toolhost/core" { interface Services { … } }`).
 */
export interface Services {
  approvals: ApprovalsService;
  model: ModelService;
  policy: PolicyService;
  queue: QueueService;
  sandbox: SandboxService;
}

