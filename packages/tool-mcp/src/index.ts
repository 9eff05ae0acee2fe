import { mcpPlugin } from "./plugin.js";

export default mcpPlugin;
export { mcpPlugin, mcpServerStatus, type ServerStatus } from "./plugin.js";
export { McpPluginOptions } from "./options.js";
export { McpErrorCode } from "./errors.js";
export type { McpResultDetails } from "./results.js";
