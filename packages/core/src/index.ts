export { AgentHarness, HarnessStage, type AnyAgentHarness, type HarnessHooks } from "./harness.js";
export type { PreparedToolCall } from "./_pipeline.js";
export { resolvePluginOptions } from "./_options.js";
export { Agent, type AgentInitialState, type AgentOptions, type AgentState } from "./agent.js";
export { definePlugin, isPlugin, PLUGIN_API_VERSION, type PluginDefinition, type PluginReport, type PluginSetting, type ToolhostPlugin } from "./plugin.js";
export { closestName } from "./suggest.js";
export { ErrorCode, ToolhostError, describeError, messageOf } from "./errors.js";
export { resultCode, textOf, toolError } from "./results.js";
export { isInside } from "./paths.js";
export { preview } from "./preview.js";
export type * from "./types.js";
export { problemsOf as checkValue } from "./_validate.js";
/**
 * TypeBox's `Type`, from the copy bundled in the kernel: plugins build their schemas with it, so a
 * host loads TypeBox once, bundled, instead of its ~250 module files per importer.
 */
export { Type } from "@sinclair/typebox";
export type { Static, TObject, TProperties, TSchema } from "@sinclair/typebox";
