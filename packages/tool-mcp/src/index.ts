import { mcpPlugin } from "./plugin.js";

export default mcpPlugin;
export { mcpPlugin, mcpServerStatus, type ServerStatus } from "./plugin.js";
export { McpPluginOptions } from "./_options.js";
export { McpErrorCode } from "./_errors.js";
export type { McpResultDetails } from "./_results.js";
