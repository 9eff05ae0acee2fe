export { AgentHarness, HarnessStage, type AnyAgentHarness, type HarnessHooks } from "./harness.js";
export { createHarnessHooks } from "./hooks/harness-hooks.js";
export { DecisionHook } from "./hooks/decision-hook.js";
export { AnswerHook } from "./hooks/answer-hook.js";
export { MergeHook, MalformedAnswerError } from "./hooks/merge-hook.js";
export type { HookInterceptor, HookTap, HookTapOptions, KernelHook } from "./hooks/base.js";
export { resolvePluginOptions } from "./plugin-options.js";
export { Agent, type AgentInitialState, type AgentOptions, type AgentState } from "./agent.js";
export { definePlugin, isPlugin, PLUGIN_API_VERSION, type PluginDefinition, type PluginReport, type PluginSetting, type ToolhostPlugin } from "./plugin.js";
export { closestName } from "./suggest.js";
export { ErrorCode, ToolhostError, describeError, messageOf } from "./errors.js";
export { resultCode, textOf, toolError } from "./results.js";
export { isInside } from "./paths.js";
export { partSubject, policyDetailsOf } from "./policy.js";
export { preview } from "./preview.js";
export type * from "./types/index.js";
export { problemsOf as checkValue } from "./validate.js";
/**
 * TypeBox's `Type`, from the copy bundled in the kernel: plugins build their schemas with it, so a
 * host loads TypeBox once, bundled, instead of its ~250 module files per importer.
 */
export { Type } from "@sinclair/typebox";
export type { Static, TObject, TProperties, TSchema } from "@sinclair/typebox";
export { CONTROL_FILES, controlFileOf, controlFilesNamed, type ControlFile, type ControlFilePlace } from "./control-files.js";
export { checkPackageStoreCopy, isPackageStoreCopy, packageStoreFolders, projectStoreFolder, type StoreCopyStat } from "./package-store.js";
export { callDigest, type CallContent } from "./digest.js";
export { canonicalAddress, hostInUrl, parseAuthority, parseHost, parsePort, tunnelUrl, type Destination, type DestinationProblem } from "./network.js";
