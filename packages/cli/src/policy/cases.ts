import { type AgentHarness, type PolicyDecision, type PolicyService, preview, type ToolAccess } from "@toolhost/core";
import type { Painter } from "../_output.js";
import { terminalLine } from "../_terminal-text.js";
import { UsageError } from "../usage-error.js";
import { checkCall } from "./check-call.js";

/** What a case expects: a decision, or `not-allow` (ask or deny). */
export type Expectation = PolicyDecision | "not-allow";
const EXPECTATIONS: readonly Expectation[] = ["allow", "ask", "deny", "not-allow"];

/** One line of a cases file: `{ "tool", "args", "expect", "cwd"?, "access"? }`. */
export interface PolicyCase {
  line: number;
  tool: string;
  args: unknown;
  expect: Expectation;
  cwd?: string;
  access?: ToolAccess;
}

/** A case the policy decided otherwise. */
export interface Mismatch {
  line: number;
  tool: string;
  args: unknown;
  expect: Expectation;
  decision: PolicyDecision;
  /** The rules that decided; empty when the default did. */
  rules: string[];
  reason: string;
}

/**
 * The cases of a JSON-lines file (blank lines skipped). Every malformed line is a usage error
 * (exit 2) that names it and says what a case is.
 */
export function parseCases(text: string, file: string): PolicyCase[] {
  const cases: PolicyCase[] = [];
  const problems: string[] = [];
  text.split("\n").forEach((raw, index) => {
    if (raw.trim() === "") return;
    const problem = caseProblem(raw, index + 1, cases);
    if (problem !== undefined) problems.push(`line ${index + 1}: ${problem}`);
  });
  if (problems.length > 0) {
    const shown = problems.length > 10 ? [...problems.slice(0, 10), `… and ${problems.length - 10} more`] : problems;
    throw new UsageError(`${file} has lines that are not policy cases:\n${shown.map((each) => `  ${each}`).join("\n")}\nEach line is {"tool": "bash", "args": {"command": "ls"}, "expect": "allow" | "ask" | "deny" | "not-allow", "cwd"?: "…", "access"?: {…}}.`);
  }
  if (cases.length === 0) throw new UsageError(`${file} has no cases: give one JSON object a line, e.g. {"tool": "bash", "args": {"command": "ls"}, "expect": "allow"}.`);
  return cases;
}

/** What is wrong with one line, or undefined after adding its case. */
function caseProblem(raw: string, line: number, cases: PolicyCase[]): string | undefined {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (error) {
    return `not valid JSON (${(error as Error).message})`;
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) return "not a JSON object";
  const { tool, args, expect, cwd, access } = value as Record<string, unknown>;
  if (typeof tool !== "string" || tool === "") return '"tool" is missing or not a string';
  if (!EXPECTATIONS.includes(expect as Expectation)) return `"expect" is ${preview(expect, 40)}, not one of "allow", "ask", "deny", "not-allow"`;
  if (cwd !== undefined && typeof cwd !== "string") return '"cwd" is not a string';
  if (access !== undefined && (access === null || typeof access !== "object")) return '"access" is not an object';
  cases.push({ line, tool, args: args ?? {}, expect: expect as Expectation, ...(typeof cwd === "string" && { cwd }), ...(access !== undefined && { access: access as ToolAccess }) });
  return undefined;
}

/**
 * Decides each case with the policy, as `policy explain` would; a case of a tool the config lacks
 * (without `access`), or with arguments its tool refuses, cannot be judged: a usage error naming
 * its line.
 */
export async function runCases(cases: readonly PolicyCase[], policy: PolicyService, harness: AgentHarness, cwd: string): Promise<Mismatch[]> {
  const mismatches: Mismatch[] = [];
  for (const each of cases) {
    if (each.access === undefined) {
      await checkCall(harness, each.tool, each.args).catch((error: Error) => {
        throw new UsageError(`line ${each.line} (${each.tool}) cannot be judged: ${error.message}`);
      });
    }
    const explained = await policy.explain({ tool: each.tool, args: each.args, cwd: each.cwd ?? cwd, ...(each.access && { access: each.access }) });
    const met = each.expect === "not-allow" ? explained.decision !== "allow" : explained.decision === each.expect;
    if (!met) mismatches.push({ line: each.line, tool: each.tool, args: each.args, expect: each.expect, decision: explained.decision, rules: explained.rules, reason: explained.reason });
  }
  return mismatches;
}

/** The mismatches as a table for a person: line, tool, call, expected, got, and the rule that decided. */
export function mismatchTable(file: string, total: number, mismatches: readonly Mismatch[], paint: Painter): string {
  if (mismatches.length === 0) return `${paint("green", "ok")}  ${file}: ${total} case${total === 1 ? "" : "s"}, all as expected\n`;
  const rows = mismatches.map((each) => [String(each.line), each.tool, preview(each.args, 60), each.expect, each.decision, each.rules.length > 0 ? each.rules.join(", ") : "the default"].map(terminalLine));
  const head = ["line", "tool", "call", "expected", "got", "decided by"];
  const widths = head.map((title, i) => Math.max(title.length, ...rows.map((row) => (row[i] as string).length)));
  const format = (row: string[]): string => row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i] as number))).join("  ").trimEnd();
  const lines = [
    `${paint("red", "not as expected")}  ${file}: ${mismatches.length} of ${total} case${total === 1 ? "" : "s"}`,
    paint("dim", format(head)),
    ...rows.map(format),
  ];
  return `${lines.join("\n")}\n`;
}
