export { parseCommand, type ParsedCommand, type ShellPart } from "./_shell.js";
export { createPolicy, type Policy, type PolicyExplanation } from "./_policy.js";
