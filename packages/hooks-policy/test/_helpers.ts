import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AgentHarness, type AgentTool, type PolicyService } from "@toolhost/core";
import { ACCESS, accessTool, TOOL_NAMES as ACCESS_TOOL_NAMES } from "./fixtures/access-tools.mjs";
import type { PolicyExplanation } from "@toolhost/core";
import policyPlugin, { createPolicy, type Policy, type PolicyOptions } from "../src/index.js";

/** A case of policy-cases.json. */
export interface PolicyCase {
  id: string;
  ruleset: string;
  tool: string;
  args: unknown;
  expect: "allow" | "ask" | "deny" | "not-allow";
  note?: string;
}

/** The shared cases (a copy of shared/policy-cases.json) and their rulesets. */
export const policyCases = JSON.parse(readFileSync(new URL("./policy-cases.json", import.meta.url), "utf8")) as {
  rulesets: Record<string, PolicyOptions>;
  cases: PolicyCase[];
};

/** A fresh workspace laid out as policy-cases.json's "about" says. */
export function makeWorkspace(): { ws: string; cleanup: () => void } {
  const ws = realpathSync(mkdtempSync(join(tmpdir(), "toolhost-policy-")));
  mkdirSync(join(ws, "src"));
  writeFileSync(join(ws, "src", "a.ts"), "export const a = 1;\n");
  writeFileSync(join(ws, ".env"), "SECRET=1\n");
  writeFileSync(join(ws, "out.txt"), "");
  mkdirSync(join(ws, "sub"));
  symlinkSync("/etc/passwd", join(ws, "link-to-passwd"));
  symlinkSync(".env", join(ws, "env-link"));
  return { ws, cleanup: () => rmSync(ws, { recursive: true, force: true }) };
}

/** Replaces `${workspace}` in every string of a JSON value. */
export function inWorkspace<T>(value: T, ws: string): T {
  return JSON.parse(JSON.stringify(value).replaceAll("${workspace}", ws)) as T;
}

type Args = Record<string, unknown>;

export { ACCESS };

/** Decides a call the way the harness does: with what the test tool of that name declares. */
export function decide(policy: Policy, ws: string, tool: string, args: unknown, cwd?: string, policyCwd = ws): PolicyExplanation {
  const env = { cwd: cwd ?? policyCwd, workspace: ws };
  const access = typeof args === "object" && args !== null ? ACCESS[tool]?.(args as Args, env) : undefined;
  return policy.decide({ tool, args, ...(cwd && { cwd }), ...(access && { access }) });
}

/** A bash command decided by `recommended` in `ws`, unconfined, the workspace trusted or not. */
export function decideRecommendedBash(ws: string, command: string, trusted = false): PolicyExplanation {
  const policy = createPolicy({ extends: ["recommended"] }, { cwd: ws, workspace: ws, trustedWorkspace: trusted });
  return policy.decide({ tool: "bash", args: { command }, access: { commands: [{ command, cwd: ws }] } });
}

/** A tool that records that it ran and returns `ran <name>`; it declares access as ACCESS says. */
export function recordingTool(name: string, runs: string[], result?: () => { text: string; details: unknown }): AgentTool {
  return accessTool(name, runs, result);
}

export const TOOL_NAMES = [...ACCESS_TOOL_NAMES];

/** A harness with the recording tools and the policy plugin. */
export async function harnessWith(
  options: PolicyOptions,
  ws: string,
  runs: string[] = [],
): Promise<{ harness: AgentHarness; runs: string[]; policy: PolicyService }> {
  const harness = new AgentHarness({ cwd: ws, workspace: ws, tools: TOOL_NAMES.map((name) => recordingTool(name, runs)) });
  await harness.use(policyPlugin, options);
  const policy = harness.getService("policy") as PolicyService | undefined;
  if (!policy) throw new Error("the plugin provided no policy service");
  return { harness, runs, policy };
}

/** A policy whose `decide(tool, args, cwd?)` computes the call's access as the test tools declare it. */
export function withAccess(policy: Policy, ws: string, policyCwd = ws) {
  return {
    decide: (tool: string, args: unknown, cwd?: string) => decide(policy, ws, tool, args, cwd, policyCwd),
    rules: policy.rules,
    protectedPaths: (root: string) => policy.protectedPaths(root),
  };
}
