// The public surface of @toolhost/hooks-policy, chosen by hand (see README "Library"): the
// plugin, the compiled policy for hosts that decide without a harness, the presets and the
// options' schema. The parser, option tables, matchers and audit helpers are internal.
export { default, PLUGIN_NAME, POLICY_SERVICE } from "./plugin.js";
export {
  createPolicy,
  PolicyErrorCode,
  type AskingPart,
  type AskingRule,
  type EffectiveRule,
  type MatchedRule,
  type PartKind,
  type Policy,
  type PolicyEnvironment,
  type PolicyExplanation,
  type PolicyPart,
} from "./_policy.js";
export { Redactor, MIN_KNOWN_VALUE_LENGTH, type KnownValues } from "./_redact.js";
export type { AuditEntry } from "./_audit.js";
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
} from "./_schema.js";
