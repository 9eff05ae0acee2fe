export { toolhostTools, type ToolhostToolsOptions } from "./tools.js";
export { fromAiSdkTools, type FromAiSdkToolsOptions } from "./from-ai-sdk.js";
export type { AiSdkAccessFunction, AiSdkToolAccess } from "./access.js";
export type { ToolhostToolOutput } from "./output.js";
export { AiSdkErrorCode, ToolhostCallError } from "./errors.js";
