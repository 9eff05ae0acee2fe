import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AgentHarness, type AgentTool, Type } from "@toolhost/core";
import policyPlugin, { type PolicyOptions, type PolicyService } from "../src/index.js";

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

/** A tool that records that it ran and returns `ran <name>`. */
export function recordingTool(name: string, runs: string[], result?: () => { text: string; details: unknown }): AgentTool {
  return {
    name,
    label: name,
    description: `test tool ${name}`,
    parameters: Type.Object({}),
    async execute() {
      runs.push(name);
      const made = result?.() ?? { text: `ran ${name}`, details: { ran: name } };
      return { content: [{ type: "text", text: made.text }], details: made.details };
    },
  };
}

export const TOOL_NAMES = ["bash", "read", "write", "edit", "make_api_call"];

/** A harness with the recording tools and the policy plugin. */
export async function harnessWith(
  options: PolicyOptions,
  ws: string,
  runs: string[] = [],
): Promise<{ harness: AgentHarness; runs: string[]; policy: PolicyService }> {
  const harness = new AgentHarness({ cwd: ws, workspace: ws, tools: TOOL_NAMES.map((name) => recordingTool(name, runs)) });
  await harness.use(policyPlugin, options);
  const policy = harness.getService<PolicyService>("policy");
  if (!policy) throw new Error("the plugin provided no policy service");
  return { harness, runs, policy };
}
