/*
 * The contract between the kernel, plugins and hosts, one file per concern: tools and what a call
 * touches, messages, the model service, the policy service, the queue service, the sandbox service, the services map,
 * events, the hooks' contexts and answers, the harness's options.
 */
export type * from "./content.js";
export type * from "./tool.js";
export type * from "./approval.js";
export type * from "./approvals.js";
export type * from "./messages.js";
export type * from "./model.js";
export type * from "./policy.js";
export type * from "./queue.js";
export type * from "./sandbox.js";
export type * from "./services.js";
export type * from "./events.js";
export type * from "./hooks.js";
export type * from "./options.js";
export type * from "./config.js";
