export {
  AgentHarness,
  HarnessStage,
  resolvePluginOptions,
  type AgentEventListener,
  type AgentHarnessOptions,
  type ExecuteToolCallsOptions,
  type HarnessHooks,
  type PrepareContext,
} from "./harness.js";
export { Agent, type AgentInitialState, type AgentOptions, type AgentState } from "./agent.js";
export { definePlugin, isPlugin, PLUGIN_API_VERSION, type PluginDefinition, type ToolhostPlugin } from "./plugin.js";
export { ErrorCode, ToolhostError, messageOf } from "./errors.js";
export type * from "./types.js";
