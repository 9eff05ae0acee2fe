export { default } from "./plugin.js";
export { createBashTool, BashParameters } from "./tool.js";
export { BashErrorCode, BashAbortedError, CALL_MARKER, type BashToolDetails } from "./_run.js";
export { BashToolOptionsSchema, type BashToolOptions, type BashToolConfig } from "./_options.js";
