export { default, PLUGIN_NAME, POLICY_SERVICE } from "./plugin.js";
export {
  createPolicy,
  PolicyErrorCode,
  type ExplainRequest,
  type MatchedRule,
  type PartKind,
  type Policy,
  type PolicyEnvironment,
  type PolicyExplanation,
  type PolicyPart,
  type PolicyService,
} from "./_policy.js";
export { parseCommand, MAX_COMMAND_LENGTH, MAX_NESTING, MAX_PARTS, type ParsedCommand, type ShellPart } from "./_shell.js";
export type { ShellWord } from "./_words.js";
export { Redactor, MIN_KNOWN_VALUE_LENGTH, type KnownValues } from "./_redact.js";
export { canonicalJson, digest, type AuditEntry } from "./_audit.js";
export { PRESETS, type Preset } from "./presets.js";
export {
  DEFAULT_REDACT_ENV,
  PolicyOptionsSchema,
  type Decision,
  type PolicyOptions,
  type PolicyRule,
  type PresetName,
  type RedactRule,
} from "./_schema.js";
