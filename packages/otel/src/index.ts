import { otelPlugin } from "./plugin.js";

export default otelPlugin;
export { createOtelPlugin, otelPlugin, PLUGIN_NAME, type OtelProviders } from "./plugin.js";
export { OtelOptions } from "./options.js";
export { DECISION_EVENT, DURATION_BUCKETS, EXECUTE_TOOL_DURATION, GenAiAttributes, GenAiOperation, OTHER_ERROR, ToolhostAttributes } from "./names.js";
export { startOtlpFromEnvironment, type OtlpHandle, type StartOtlpOptions } from "./otlp.js";
