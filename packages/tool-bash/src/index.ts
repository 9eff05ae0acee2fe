export { default } from "./plugin.js";
export { createBashTool, BashParameters } from "./tool.js";
export { BashErrorCode, BashAbortedError } from "./errors.js";
export type { BashConnection, BashLimitExceeded, BashToolDetails, BashSandboxDetails, SandboxMode } from "./details.js";
export type { BashToolOptions } from "./options.js";
