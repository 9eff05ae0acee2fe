// The public surface of @toolhost/hooks-policy, chosen by hand (see README "Library"): the
// plugin, the compiled policy for hosts that decide without a harness, the presets and the
// options' schema. The parser, the program inventory, option tables, matchers and audit helpers
// are internal. The decisions' types (`PolicyExplanation`, `PolicyPart`, `AskingPart`, …) are
// core's: import them from `@toolhost/core`.
export { default, PLUGIN_NAME, POLICY_SERVICE } from "./plugin.js";
export { createPolicy } from "./policy.js";
export { PolicyErrorCode, type EffectiveRule, type Policy, type PolicyEnvironment } from "./types.js";
export { Redactor, MIN_KNOWN_VALUE_LENGTH, type KnownValues } from "./redaction.js";
export type { AuditEntry } from "./audit-entry.js";
export { PRESETS, type Preset } from "./presets.js";
export {
  DEFAULT_REDACT_ENV,
  PolicyOptionsSchema,
  type Decision,
  type PolicyOptions,
  type PolicyLayer,
  type PolicyRule,
  type PresetName,
  type RedactRule,
} from "./options.js";
